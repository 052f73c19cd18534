/** The names of Kafka's internal topics, as its clients and brokers know them. */
export const CONSUMER_OFFSETS_TOPIC = '__consumer_offsets';
export const TRANSACTION_STATE_TOPIC = '__transaction_state';
export const CLUSTER_METADATA_TOPIC = '__cluster_metadata';
export const SHARE_GROUP_STATE_TOPIC = '__share_group_state';

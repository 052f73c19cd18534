/** Values Kafka's Fetch and ListOffsets requests give a meaning of their own (ListOffsetsRequest, FetchRequest, IsolationLevel). */

/** ListOffsets' special timestamps. */
export const LATEST_TIMESTAMP = -1n;
export const EARLIEST_TIMESTAMP = -2n;
export const MAX_TIMESTAMP = -3n;
/** Kafka's -4: the earliest offset in local storage, the log start offset without tiered storage. */
export const EARLIEST_LOCAL_TIMESTAMP = -4n;

/** The replica id a consumer sends in Fetch and ListOffsets; a broker sends its own id. */
export const CONSUMER_REPLICA_ID = -1;

/** Fetch's and ListOffsets' isolation levels. */
export const READ_UNCOMMITTED = 0;
export const READ_COMMITTED = 1;

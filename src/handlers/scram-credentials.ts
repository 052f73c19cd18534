/**
 * What DescribeUserScramCredentials and AlterUserScramCredentials share (KIP-554): a user's
 * SCRAM credentials are the `SCRAM-SHA-256` / `SCRAM-SHA-512` configs of the user entity in the
 * client-entity store, in Kafka's ZooKeeper text form, so Kafka 3.9's
 * `kafka-configs.sh --zookeeper … --entity-type users` reads and writes the same credentials.
 */
import type { ClientEntityStore } from '../metadata/client-entity-store.js';
import { parseCredential, SCRAM_MECHANISMS, type ScramCredential, type ScramMechanism } from '@sluice/protocol/sasl/scram-formatter.js';

export interface UserCredential {
  readonly mechanism: ScramMechanism;
  readonly credential: ScramCredential;
}

/** The user's readable credentials, in mechanism order (SHA-256 before SHA-512, as Kafka lists them). */
export function userCredentials(store: ClientEntityStore, user: string): UserCredential[] {
  const configs = store.configs({ user });
  return SCRAM_MECHANISMS.flatMap((mechanism) => {
    const text = configs.get(mechanism.name);
    const credential = text === undefined ? undefined : parseCredential(text);
    return credential === undefined ? [] : [{ mechanism, credential }];
  });
}

/** Users (not user/client-id pairs, nor the `<default>` user) that have at least one credential. */
export function usersWithCredentials(store: ClientEntityStore): string[] {
  return store
    .entities()
    .filter((e) => typeof e.entity.user === 'string' && e.entity.clientId === undefined && e.entity.ip === undefined)
    .map((e) => e.entity.user as string)
    .filter((user) => userCredentials(store, user).length > 0);
}

/**
 * Reads and changes the configs of users, client ids and ips (SCRAM credentials, quotas) in the
 * metadata: the single broker's own file, or ZooKeeper on a cluster member. A change is a
 * read-modify-write of one entity, so changes to the same entity are applied one at a time on
 * this broker: two credential upserts for one user must not drop each other.
 */
import { KeyedQueue } from '../common/keyed-queue.js';
import { entityPath, type ClientEntity, type ClientEntityConfigs } from './client-entities.js';
import type { MetadataWriter } from './metadata-writer.js';

export class ClientEntityStore {
  private readonly changes = new KeyedQueue();

  constructor(private readonly writer: MetadataWriter) {}

  /** The entity's configs now; empty when it has none. */
  configs(entity: ClientEntity): ReadonlyMap<string, string> {
    return this.writer.image.clientEntityConfigs(entity);
  }

  entities(): readonly ClientEntityConfigs[] {
    return this.writer.image.clientEntities();
  }

  /**
   * Replaces the entity's configs with what `change` makes of the current ones (an empty result
   * removes the entity). `change` may throw to refuse; nothing is written then.
   */
  alter(entity: ClientEntity, change: (current: ReadonlyMap<string, string>) => ReadonlyMap<string, string>): Promise<void> {
    return this.changes.run(entityPath(entity), async () => {
      const next = change(this.configs(entity));
      await this.writer.setClientEntityConfigs(entity, next);
    });
  }
}

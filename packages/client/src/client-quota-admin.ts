/**
 * Client quotas over the wire: DescribeClientQuotas and AlterClientQuotas, behind
 * `sluice configs --entity-type users|clients`. Entities are named as Kafka's ClientQuotaEntity
 * does (`user`, `client-id`, `ip`; a null name is the `<default>` entity).
 */
import {
  AlterClientQuotasRequest,
  AlterClientQuotasResponse,
  DescribeClientQuotasRequest,
  DescribeClientQuotasResponse,
} from '@sluice/protocol/messages/index.js';
import { throwIfError } from './client-errors.js';
import type { KafkaCluster } from './cluster.js';

/** Entity type to name (null: the default entity of that type). */
export type QuotaEntityNames = ReadonlyMap<string, string | null>;

/** A filter component: `name` a string matches it exactly, null the default entity, undefined any specified name. */
export interface QuotaFilterComponent {
  readonly entityType: string;
  readonly name?: string | null;
}

export interface DescribedClientQuotas {
  readonly entity: QuotaEntityNames;
  readonly values: ReadonlyMap<string, number>;
}

/** A quota to set (a number) or remove (null). */
export interface QuotaChange {
  readonly key: string;
  readonly value: number | null;
}

const MATCH_EXACT = 0;
const MATCH_DEFAULT = 1;
const MATCH_SPECIFIED = 2;

export class ClientQuotaAdminClient {
  constructor(private readonly cluster: KafkaCluster) {}

  /** The entities matching every component (only those components' types when `strict`), with their quotas. */
  async describeClientQuotas(components: readonly QuotaFilterComponent[], strict = false): Promise<DescribedClientQuotas[]> {
    const connection = await this.cluster.anyConnection();
    const res = await connection.request(DescribeClientQuotasRequest, DescribeClientQuotasResponse, () => ({
      components: components.map((c) => ({
        entityType: c.entityType,
        matchType: c.name === undefined ? MATCH_SPECIFIED : c.name === null ? MATCH_DEFAULT : MATCH_EXACT,
        match: c.name ?? null,
      })),
      strict,
    }));
    throwIfError(res.errorCode, res.errorMessage, 'cannot describe client quotas');
    return (res.entries ?? []).map((e) => ({
      entity: new Map(e.entity.map((p) => [p.entityType, p.entityName])),
      values: new Map(e.values.map((v) => [v.key, v.value])),
    }));
  }

  /** Applies the changes to the entity; throws the broker's error for it. */
  async alterClientQuotas(entity: QuotaEntityNames, changes: readonly QuotaChange[], validateOnly = false): Promise<void> {
    const connection = await this.cluster.anyConnection();
    const res = await connection.request(AlterClientQuotasRequest, AlterClientQuotasResponse, () => ({
      entries: [
        {
          entity: [...entity].map(([entityType, entityName]) => ({ entityType, entityName })),
          ops: changes.map((c) => ({ key: c.key, value: c.value ?? 0, remove: c.value === null })),
        },
      ],
      validateOnly,
    }));
    for (const e of res.entries) throwIfError(e.errorCode, e.errorMessage, 'cannot alter client quotas');
  }
}

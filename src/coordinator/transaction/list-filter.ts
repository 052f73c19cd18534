/**
 * ListTransactions' filters, parsed once for every coordinator of the broker: state names (unknown
 * ones are echoed back, and match nothing), producer ids, a minimum duration (v1+) and a
 * transactional id pattern (v2+, KIP-1152). Kafka matches the whole id against a Java regular
 * expression; here a JavaScript one, which agrees on the common syntax.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { ListTransactionsRequestData } from '@sluice/protocol/messages/api/66-list-transactions.js';
import { type TransactionState, stateNamed } from './transaction-state.js';

export interface ListFilter {
  /** null: no state filter; empty: only unknown names were given, so nothing matches. */
  readonly states: ReadonlySet<TransactionState> | null;
  readonly producerIds: ReadonlySet<bigint>;
  /** Only transactions running longer than this; negative: no filter. */
  readonly durationMs: number;
  readonly pattern: RegExp | null;
}

/** Throws INVALID_REGULAR_EXPRESSION on a pattern that does not compile. */
export function parseListFilter(request: ListTransactionsRequestData): { filter: ListFilter; unknownStateFilters: string[] } {
  const states = new Set<TransactionState>();
  const unknownStateFilters: string[] = [];
  for (const name of new Set(request.stateFilters)) {
    const state = stateNamed(name);
    if (state === undefined) unknownStateFilters.push(name);
    else states.add(state);
  }
  let pattern: RegExp | null = null;
  if (request.transactionalIdPattern !== null && request.transactionalIdPattern !== '') {
    try {
      pattern = new RegExp(`^(?:${request.transactionalIdPattern})$`, 'u');
    } catch (err) {
      throw new KafkaError(
        ErrorCode.INVALID_REGULAR_EXPRESSION,
        `invalid transactional id pattern ${request.transactionalIdPattern}: ${String(err)}`,
      );
    }
  }
  return {
    filter: {
      states: request.stateFilters.length === 0 ? null : states,
      producerIds: new Set(request.producerIdFilters),
      durationMs: Number(request.durationFilter),
      pattern,
    },
    unknownStateFilters,
  };
}

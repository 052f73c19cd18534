/**
 * The states of a transactional id, with the ids `__transaction_state` stores them as and the names
 * DescribeTransactions and ListTransactions show, and Kafka's legal transitions between them.
 *
 * PrepareEpochFence is never stored: Kafka passes through it in memory while fencing an open
 * transaction, straight on to PrepareAbort; it is kept here so ids and names stay Kafka's. Dead is
 * the state an expiring id is tombstoned from.
 */
export const TransactionState = {
  Empty: 0,
  Ongoing: 1,
  PrepareCommit: 2,
  PrepareAbort: 3,
  CompleteCommit: 4,
  CompleteAbort: 5,
  Dead: 6,
  PrepareEpochFence: 7,
} as const;

export type TransactionState = (typeof TransactionState)[keyof typeof TransactionState];

const NAMES: ReadonlyMap<TransactionState, string> = new Map(Object.entries(TransactionState).map(([name, id]) => [id, name]));
const BY_NAME: ReadonlyMap<string, TransactionState> = new Map(Object.entries(TransactionState));

const { Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, Dead, PrepareEpochFence } = TransactionState;

const VALID_PREVIOUS: ReadonlyMap<TransactionState, ReadonlySet<TransactionState>> = new Map<
  TransactionState,
  ReadonlySet<TransactionState>
>([
  [Empty, new Set([Empty, CompleteCommit, CompleteAbort])],
  [Ongoing, new Set([Ongoing, Empty, CompleteCommit, CompleteAbort])],
  [PrepareCommit, new Set([Ongoing])],
  // Empty and Complete*: a TV2 producer may abort a transaction it never added a partition to.
  [PrepareAbort, new Set([Ongoing, PrepareEpochFence, Empty, CompleteCommit, CompleteAbort])],
  [CompleteCommit, new Set([PrepareCommit])],
  [CompleteAbort, new Set([PrepareAbort])],
  [Dead, new Set([Empty, CompleteCommit, CompleteAbort])],
  [PrepareEpochFence, new Set([Ongoing])],
]);

export function stateName(state: TransactionState): string {
  return NAMES.get(state)!;
}

/** The state a ListTransactions filter names (Kafka's names, case-sensitive), or undefined. */
export function stateNamed(name: string): TransactionState | undefined {
  return BY_NAME.get(name);
}

/** Throws on an id that is not a state: a corrupt `__transaction_state` record must stop loading. */
export function stateOfId(id: number): TransactionState {
  if (!NAMES.has(id as TransactionState)) throw new Error(`unknown transaction state id ${id}`);
  return id as TransactionState;
}

export function isLegalTransition(from: TransactionState, to: TransactionState): boolean {
  return VALID_PREVIOUS.get(to)!.has(from);
}

/** Prepare*: the decision is durable and markers are being written; Kafka holds a pending transition to Complete* all along. */
export function isPreparing(state: TransactionState): boolean {
  return state === PrepareCommit || state === PrepareAbort;
}

/** No transaction open: InitProducerId may bump the epoch, and the id may expire. */
export function isIdle(state: TransactionState): boolean {
  return state === Empty || state === CompleteCommit || state === CompleteAbort;
}

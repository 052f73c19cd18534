/**
 * Checks a concurrent transactional workload for Jepsen's anomaly classes (as its 2024 analyses of
 * Kafka-compatible queues define them), from what the producers say each transaction became and
 * what read_committed consumers read:
 *
 * - lost: a record of a committed transaction is not in the final read;
 * - abortedRead (G1a): a record of an aborted transaction was read;
 * - torn: a transaction whose outcome the producer could not learn left some of its records and
 *   not others;
 * - duplicated: a record is in the final read more than once;
 * - intermediateRead (G1b, for a log): a consumer's read of a partition, taken during the run, is
 *   not a prefix of the partition's final read — it saw records the log later did not hold there,
 *   or skipped some it holds;
 * - neverSent: a record in a read that no transaction wrote.
 */
export const TXN_ANOMALY_KINDS = ['lost', 'abortedRead', 'torn', 'duplicated', 'intermediateRead', 'neverSent'] as const;
export type TxnAnomalyKind = (typeof TXN_ANOMALY_KINDS)[number];

export interface TxnOutcome {
  readonly id: string;
  readonly outcome: 'committed' | 'aborted' | 'unknown';
  readonly values: readonly string[];
}

/** Values per partition, in offset order. */
export type PartitionReads = Readonly<Record<string, readonly string[]>>;

export interface TxnAnomaly {
  readonly kind: TxnAnomalyKind;
  readonly detail: string;
}

export interface TxnCheckResult {
  readonly counts: Readonly<Record<TxnAnomalyKind, number>>;
  readonly anomalies: readonly TxnAnomaly[];
  readonly transactions: Readonly<Record<TxnOutcome['outcome'], number>>;
}

export function checkTransactions(txns: readonly TxnOutcome[], final: PartitionReads, observed: readonly PartitionReads[]): TxnCheckResult {
  const anomalies: TxnAnomaly[] = [];
  const report = (kind: TxnAnomalyKind, detail: string): void => void anomalies.push({ kind, detail });
  const writer = new Map<string, TxnOutcome>();
  for (const t of txns) for (const v of t.values) writer.set(v, t);
  const finalCount = new Map<string, number>();
  for (const values of Object.values(final)) for (const v of values) finalCount.set(v, (finalCount.get(v) ?? 0) + 1);

  for (const [v, n] of finalCount) {
    if (n > 1) report('duplicated', `${v} read ${n} times`);
    const t = writer.get(v);
    if (t === undefined) report('neverSent', `${v} was read but never written`);
    else if (t.outcome === 'aborted') report('abortedRead', `${v} of aborted transaction ${t.id}`);
  }
  for (const t of txns) {
    const present = t.values.filter((v) => finalCount.has(v)).length;
    if (t.outcome === 'committed' && present < t.values.length)
      report('lost', `${t.values.length - present} of ${t.values.length} records of committed transaction ${t.id}`);
    if (t.outcome === 'unknown' && present > 0 && present < t.values.length)
      report('torn', `${present} of ${t.values.length} records of transaction ${t.id} (outcome unknown)`);
  }
  observed.forEach((reads, consumer) => {
    for (const [partition, values] of Object.entries(reads)) {
      const log = final[partition] ?? [];
      const diverges = values.findIndex((v, i) => log[i] !== v);
      if (diverges >= 0)
        report(
          'intermediateRead',
          `consumer ${consumer} read ${values[diverges]} at position ${diverges} of partition ${partition}, where the log holds ${log[diverges] ?? 'nothing'}`,
        );
      for (const v of values)
        if (writer.get(v)?.outcome === 'aborted')
          report('abortedRead', `consumer ${consumer} read ${v} of aborted transaction ${writer.get(v)!.id}`);
    }
  });

  const counts = Object.fromEntries(TXN_ANOMALY_KINDS.map((k) => [k, anomalies.filter((a) => a.kind === k).length])) as Record<
    TxnAnomalyKind,
    number
  >;
  const transactions = { committed: 0, aborted: 0, unknown: 0 };
  for (const t of txns) transactions[t.outcome]++;
  return { counts, anomalies, transactions };
}

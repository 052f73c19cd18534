/**
 * The differential harness: declarative scenarios (a setup, then request steps at chosen
 * versions) run alike against Apache Kafka (the pinned release, one KRaft node) and a Sluice
 * broker process, one of each per test file, and every answer compared field by field with
 * `responseDifferences` after each step's masks. Each scenario becomes one test listing all its
 * differences at once. Masks for intended differences cite docs/guides/compatibility.md.
 */
import { before } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { responseDifferences, type CompareOptions, type MaskRule } from './response-diff.js';
import { sideBySide } from './side-by-side.js';
import { wireCall } from './wire-call.js';

/** Values a scenario keeps from one answer for a later request on the same broker (ids, epochs). */
export type Vars = Map<string, unknown>;

/** Masks every API's answers get: fields that always differ between two brokers. */
export const COMMON_MASK: readonly MaskRule[] = [
  { path: '**.throttleTimeMs', treat: 'ignored', why: 'quota throttling is each broker’s own' },
  { path: '**.topicId', treat: 'kind', why: 'each broker gives a topic its own random id' },
  { path: '**.clusterId', treat: 'kind', why: 'each cluster has its own id' },
  { path: '**.port', treat: 'ignored', why: 'each broker listens on its own free port' },
  { path: '**.errorMessage', treat: 'ignored', why: 'free text for people; clients act on the error code, which is compared' },
  { path: '**.batchIndexErrorMessage', treat: 'kind', why: 'free text for people; the record error itself is compared' },
];

/** Masks for the intended differences, each explained under its heading in docs/guides/compatibility.md. */
export const INTENDED = {
  /** docs/guides/compatibility.md, "Config documentation". */
  configDocumentation: { path: '**.configs[].documentation', treat: 'kind', why: 'differences.md: Config documentation' },
  /** docs/guides/compatibility.md, "min.insync.replicas as a cluster default". */
  kraftMinInsyncReplicas: [
    {
      path: '**.configs[name=min.insync.replicas].configSource',
      treat: 'ignored',
      why: 'differences.md: min.insync.replicas as a cluster default',
    },
    {
      path: '**.configs[name=min.insync.replicas].synonyms',
      treat: 'ignored',
      why: 'differences.md: min.insync.replicas as a cluster default',
    },
  ],
  /** docs/guides/compatibility.md, "Features of KRaft and of what Sluice does not serve yet". */
  features: [
    ...['metadata.version', 'kraft.version', 'eligible.leader.replicas.version', 'streams.version'].flatMap((name) => [
      {
        path: `supportedFeatures[name=${name}]`,
        treat: 'ignored',
        why: 'differences.md: Features of KRaft and of what Sluice does not serve yet',
      } as const,
      {
        path: `finalizedFeatures[name=${name}]`,
        treat: 'ignored',
        why: 'differences.md: Features of KRaft and of what Sluice does not serve yet',
      } as const,
    ]),
    { path: 'finalizedFeaturesEpoch', treat: 'ignored', why: 'differences.md: Features of KRaft and of what Sluice does not serve yet' },
  ],
  /** docs/guides/compatibility.md, "Auto-created topics are answered at once". */
  autoCreatedAtOnce: [
    { path: 'topics[].errorCode', treat: 'ignored', why: 'differences.md: Auto-created topics are answered at once' },
    { path: 'topics[].topicId', treat: 'ignored', why: 'differences.md: Auto-created topics are answered at once' },
    { path: 'topics[].partitions', treat: 'ignored', why: 'differences.md: Auto-created topics are answered at once' },
  ],
  /** docs/guides/compatibility.md, "Consumer group epochs". */
  consumerGroupEpochs: [
    { path: '**.memberEpoch', treat: 'kind', why: 'differences.md: Consumer group epochs' },
    { path: '**.groupEpoch', treat: 'kind', why: 'differences.md: Consumer group epochs' },
    { path: '**.assignmentEpoch', treat: 'kind', why: 'differences.md: Consumer group epochs' },
  ],
} as const satisfies Record<string, MaskRule | readonly MaskRule[]>;

/**
 * Which versions a step is sent at: `spread` is the lowest, a middle and the highest version both
 * brokers serve (and the codec can write); or an explicit list.
 */
export type Versions = 'spread' | readonly number[];

export interface Step<In = unknown, Out = unknown> extends CompareOptions {
  readonly label: string;
  readonly request: MessageCodec<unknown, In>;
  readonly response: MessageCodec<Out, unknown>;
  readonly versions: Versions;
  /** The request at `version`, the `index`th of the step's versions (for per-version state in `vars`). */
  readonly body: (version: number, vars: Vars, index: number) => In;
  /**
   * For an answer that settles some time after the request that causes it (Kafka writes
   * transaction markers after answering EndTxn): the step is repeated on each broker until this
   * holds, for at most SETTLE_TIMEOUT_MS, and the last answer compared.
   */
  readonly settled?: (answer: Out) => boolean;
  /** Values to keep for later steps of the scenario, from this broker's answer to the `index`th version. */
  readonly keep?: (answer: Out, vars: Vars, index: number) => void;
}

/** A step with its codec types checked against its body and `keep`, then erased for the scenario list. */
export function step<In, Out>(s: Step<In, Out>): Step {
  return s as unknown as Step;
}

export interface Scenario {
  readonly name: string;
  /** Run on each broker before the steps, not compared (topics, groups, seed records). */
  readonly setup?: (bootstrap: string, vars: Vars) => Promise<unknown>;
  readonly steps: readonly Step[];
}

type Answer = { readonly ok: unknown } | { readonly failed: string };

interface Recorded {
  readonly label: string;
  /** The step answered; none for a setup that failed. */
  readonly step?: Step;
  readonly answer: Answer;
}

const SETTLE_TIMEOUT_MS = 15_000;

type Ranges = Map<number, { lo: number; hi: number }>;

async function advertised(bootstrap: string): Promise<Ranges> {
  const r = await wireCall(bootstrap, M.ApiVersionsRequest, M.ApiVersionsResponse, 3, {
    clientSoftwareName: 'sluice-compat',
    clientSoftwareVersion: '1',
  });
  assert.equal(r.errorCode, ErrorCode.NONE);
  return new Map(r.apiKeys.map((k) => [k.apiKey, { lo: k.minVersion, hi: k.maxVersion }]));
}

/** The versions both brokers serve and the codec writes, per API. */
async function commonRanges(a: string, b: string): Promise<Ranges> {
  const [x, y] = await Promise.all([advertised(a), advertised(b)]);
  const common: Ranges = new Map();
  for (const [key, r] of x) {
    const other = y.get(key);
    if (other !== undefined) common.set(key, { lo: Math.max(r.lo, other.lo), hi: Math.min(r.hi, other.hi) });
  }
  return common;
}

function versionsOf(s: Step, ranges: Ranges): number[] {
  if (Array.isArray(s.versions)) return [...(s.versions as readonly number[])];
  const apiKey = s.request.apiKey!;
  const served = ranges.get(apiKey);
  if (served === undefined) throw new Error(`${s.label}: API ${apiKey} is not served by both brokers`);
  const lo = Math.max(served.lo, s.request.validVersions.lo);
  const hi = Math.min(served.hi, s.request.validVersions.hi);
  return [...new Set([lo, Math.floor((lo + hi) / 2), hi])];
}

/** Every scenario's steps, in order, against one broker. */
async function runAll(bootstrap: string, scenarios: readonly Scenario[], ranges: Ranges): Promise<Map<string, Recorded[]>> {
  const out = new Map<string, Recorded[]>();
  for (const scenario of scenarios) {
    const vars: Vars = new Map();
    const recorded: Recorded[] = [];
    out.set(scenario.name, recorded);
    try {
      await scenario.setup?.(bootstrap, vars);
    } catch (e) {
      recorded.push({ label: 'setup', answer: { failed: (e as Error).message } });
      continue;
    }
    for (const s of scenario.steps) {
      for (const [index, version] of versionsOf(s, ranges).entries()) {
        let answer: Answer;
        try {
          const ask = () => wireCall(bootstrap, s.request, s.response, version, s.body(version, vars, index));
          let got = await ask();
          for (const deadline = Date.now() + SETTLE_TIMEOUT_MS; s.settled !== undefined && !s.settled(got) && Date.now() < deadline;) {
            await new Promise((r) => setTimeout(r, 100));
            got = await ask();
          }
          s.keep?.(got, vars, index);
          answer = { ok: got };
        } catch (e) {
          answer = { failed: (e as Error).message };
        }
        recorded.push({ label: `${s.label} (v${version})`, step: s, answer });
      }
    }
  }
  return out;
}

function differencesOf(kafka: Recorded, sluice: Recorded): string[] {
  if ('failed' in kafka.answer || 'failed' in sluice.answer) {
    const k = 'failed' in kafka.answer ? `failed: ${kafka.answer.failed}` : 'answered';
    const s = 'failed' in sluice.answer ? `failed: ${sluice.answer.failed}` : 'answered';
    return k === s ? [] : [`Sluice ${s}, Kafka ${k}`];
  }
  // A step's own masks come first: the first rule that matches a field applies.
  const options: CompareOptions = { mask: [...(kafka.step?.mask ?? []), ...COMMON_MASK], unordered: kafka.step?.unordered ?? [] };
  return responseDifferences(kafka.answer.ok, sluice.answer.ok, options);
}

/** What one scenario asked each broker, and every field where their answers differ. */
export interface ScenarioComparison {
  readonly sluiceAsked: readonly string[];
  readonly kafkaAsked: readonly string[];
  readonly differences: readonly string[];
}

/**
 * Kafka and Sluice started side by side for the enclosing `describe` block, and every scenario run
 * against both in its `before` hook (each broker in order, the two in parallel); `compare` gives
 * a scenario's differences for the test to assert on. SLUICE_COMPAT_PRINT=1 prints every answer pair.
 */
export function differentialRun(
  scenarios: readonly Scenario[],
  sluiceOverrides: Record<string, string> = {},
): { compare(scenario: Scenario): ScenarioComparison } {
  // Node 1 like the reference broker, so node ids compare. The scenarios' records carry a fixed
  // 2023 timestamp: neither broker may delete them by retention mid-run.
  // One __consumer_offsets partition, as the reference broker is started with, so that
  // transactions name the same offsets partition.
  const both = { 'log.retention.ms': '-1' };
  const brokers = sideBySide(
    { 'node.id': '1', 'group.initial.rebalance.delay.ms': '0', 'offsets.topic.num.partitions': '1', ...both, ...sluiceOverrides },
    both,
  );
  let ours: Map<string, Recorded[]>;
  let theirs: Map<string, Recorded[]>;

  before(async () => {
    const { sluice, kafka } = brokers();
    const ranges = await commonRanges(sluice.bootstrap, kafka.bootstrap);
    [ours, theirs] = await Promise.all([runAll(sluice.bootstrap, scenarios, ranges), runAll(kafka.bootstrap, scenarios, ranges)]);
    if (process.env['SLUICE_COMPAT_PRINT'] !== undefined) {
      const text = (a: Answer): string =>
        JSON.stringify('ok' in a ? a.ok : a, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
      for (const [name, recorded] of theirs) {
        recorded.forEach((r, i) => {
          const sluiceAnswer = ours.get(name)?.[i]?.answer;
          console.log(
            `${name} / ${r.label}\n  Kafka:  ${text(r.answer)}\n  Sluice: ${sluiceAnswer === undefined ? '<not asked>' : text(sluiceAnswer)}`,
          );
        });
      }
    }
  });

  return {
    compare(scenario) {
      const k = theirs.get(scenario.name) ?? [];
      const s = ours.get(scenario.name) ?? [];
      const differences = k.flatMap((r, i) => (s[i] === undefined ? [] : differencesOf(r, s[i]).map((d) => `${r.label}: ${d}`)));
      return { sluiceAsked: s.map((r) => r.label), kafkaAsked: k.map((r) => r.label), differences };
    },
  };
}

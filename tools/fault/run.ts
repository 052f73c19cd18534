/**
 * `npm run fault:cluster -- --faults N --seed S`: the long fault run (runner.ts), writing its
 * JSON and markdown summary to bench/results/<YYYY-MM-DD>-faults/. Exits 1 when it found an
 * anomaly or the run itself went wrong, keeping the run's folder (logs, full history).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../kafka/kafka-release.js';
import { randomSeed } from './prng.js';
import { clean, markdown, resultJson } from './report.js';
import { runFaults } from './runner.js';

const { values } = parseArgs({
  options: {
    faults: { type: 'string', default: '200' },
    seed: { type: 'string' },
    partitions: { type: 'string', default: '4' },
    out: { type: 'string' },
  },
});
const faults = Number(values.faults);
const seed = values.seed === undefined ? randomSeed() : Number(values.seed);
if (!Number.isInteger(faults) || faults < 1 || !Number.isInteger(seed)) {
  console.error('usage: npm run fault:cluster -- [--faults N] [--seed S] [--partitions P] [--out DIR]');
  process.exit(2);
}
const stamp = (line: string): void => console.error(`${new Date().toISOString()} ${line}`);
const result = await runFaults({ faults, seed, partitions: Number(values.partitions), log: stamp });
const out = values.out ?? join(repoRoot(), 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-faults`);
mkdirSync(out, { recursive: true });
const name = `faults-${faults}-seed-${seed}`;
writeFileSync(join(out, `${name}.json`), resultJson(result));
writeFileSync(join(out, `${name}.md`), markdown(result));
console.log(markdown(result));
console.log(`written to ${join(out, name)}.{json,md}${clean(result) ? '' : `; the run's folder is kept: ${result.dir}`}`);
process.exitCode = clean(result) ? 0 : 1;

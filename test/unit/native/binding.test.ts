import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

const BINDING = new URL('../../../src/native/binding.js', import.meta.url).href;

test('importing the binding does not load the addon; its first use does', () => {
  // A fresh process, since this one may have loaded the addon already: /proc/self/maps lists the shared objects mapped in.
  const script = `
    import { readFileSync } from 'node:fs';
    const mapped = () => readFileSync('/proc/self/maps', 'utf8').includes('sluice_native.node');
    const { native } = await import(${JSON.stringify(BINDING)});
    const before = mapped();
    const crc = native().crc32c(Buffer.from('123456789'));
    process.stdout.write(JSON.stringify({ before, after: mapped(), crc }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 })) as {
    before: boolean;
    after: boolean;
    crc: number;
  };
  assert.deepEqual(out, { before: false, after: true, crc: 0xe3069283 });
});

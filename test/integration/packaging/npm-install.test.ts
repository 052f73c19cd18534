/**
 * The npm package as a user gets it: `npm pack` (which builds the prebuilt addon), then
 * `npm install <tarball>` into an empty folder with a PATH of only node, npm and npx (no
 * compiler, make or python), then `npx sluice start` serving kcat in every codec. npm's cache is
 * the repository's .cache/npm and installs prefer it, so the third-party dependencies come from
 * the registry once; the @sluice packages are bundled in the tarball.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../../tools/codegen/main.js';
import { freePort, kcat, kcatRead } from '../../helpers/interop.js';
import { CODEC_ID, CODECS, codecsOnDisk } from '../../helpers/interop-records.js';
import { kcatSkip, prebuildSkip } from '../../helpers/requirements.js';
import { waitFor } from '../../helpers/wait-for.js';

const run = promisify(execFile);

const MAX_TARBALL_BYTES = 5 * 1024 * 1024;
/** Packing compiles the prebuild (about 20 s on an idle 2-core machine); the first install fetches the third-party dependencies. */
const PACK_TIMEOUT_MS = 300_000;
const INSTALL_TIMEOUT_MS = 300_000;
const START_TIMEOUT_MS = 60_000;
const RECORDS_PER_CODEC = 50;

interface PackedFile {
  readonly path: string;
  readonly size: number;
}
interface Packed {
  readonly filename: string;
  readonly size: number;
  readonly entryCount: number;
  readonly files: readonly PackedFile[];
}

/** A bin folder holding only node, npm and npx, linked to the ones running this test. */
function userBin(dir: string): string {
  const onPath = (name: string): string => {
    const found = (process.env['PATH'] ?? '').split(delimiter).find((d) => d !== '' && existsSync(join(d, name)));
    if (found === undefined) throw new Error(`${name} is not on PATH`);
    return realpathSync(join(found, name));
  };
  mkdirSync(dir);
  symlinkSync(process.execPath, join(dir, 'node'));
  for (const tool of ['npm', 'npx']) symlinkSync(onPath(tool), join(dir, tool));
  return dir;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the npm package, installed as a user installs it', { skip: prebuildSkip() }, () => {
  let work: string;
  let app: string;
  let userEnv: NodeJS.ProcessEnv;
  let packed: Packed;
  let installMs: number;

  before(
    async () => {
      work = mkdtempSync(join(tmpdir(), 'sluice-npm-install-'));
      const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], {
        cwd: REPO_ROOT,
        timeout: PACK_TIMEOUT_MS,
        maxBuffer: 64 * 1024 * 1024,
      });
      [packed] = JSON.parse(stdout) as [Packed];
      userEnv = {
        HOME: join(work, 'home'),
        PATH: userBin(join(work, 'bin')),
        npm_config_cache: join(REPO_ROOT, '.cache', 'npm'),
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
        // npm runs scripts with `sh` from PATH unless told where it is; this PATH holds only node, npm and npx.
        npm_config_script_shell: '/bin/sh',
      };
      app = join(work, 'app');
      mkdirSync(app);
      writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true }\n');
      const started = performance.now();
      await run('npm', ['install', join(work, packed.filename)], { cwd: app, env: userEnv, timeout: INSTALL_TIMEOUT_MS });
      installMs = performance.now() - started;
    },
    { timeout: PACK_TIMEOUT_MS + INSTALL_TIMEOUT_MS },
  );
  after(() => rmSync(work, { recursive: true, force: true }));

  test('the tarball is at most 5 MB and holds the runtime only', (t) => {
    t.diagnostic(`tarball ${packed.size} bytes, ${packed.entryCount} files; install ${Math.round(installMs)} ms`);
    assert.ok(packed.size <= MAX_TARBALL_BYTES, `${packed.size} bytes`);
    const paths = packed.files.map((f) => f.path);
    // Ours: the root's files and the bundled @sluice packages (node-forge, bundled with them, ships its own maps).
    const ours = paths.filter((p) => !p.startsWith('node_modules/') || p.startsWith('node_modules/@sluice/'));
    const stray = ours.filter((p) => /(^|\/)(test|bench)\/|(?<!\.d)\.ts$|\.map$/.test(p));
    assert.deepEqual(stray, []);
    for (const expected of [
      'dist/src/cli/sluice.js',
      'prebuilds/linux-x64/sluice.glibc.node',
      'binding.gyp',
      'config/server.properties',
      'README.md',
      'LICENSE',
      ...['protocol', 'client', 'tune', 'console', 'cli'].map((p) => `node_modules/@sluice/${p}/package.json`),
      // The console's page, bundled at build time: without it `sluice console` cannot start.
      'node_modules/@sluice/console/dist/assets/console.js',
    ])
      assert.ok(paths.includes(expected), expected);
  });

  test('the install compiles nothing and the prebuild needs no codec library', async () => {
    const installed = join(app, 'node_modules', 'sluice');
    assert.equal(existsSync(join(installed, 'build')), false, 'node-gyp ran');
    const dynamic = spawnSync('readelf', ['-d', join(installed, 'prebuilds', 'linux-x64', 'sluice.glibc.node')], { encoding: 'utf8' });
    assert.equal(dynamic.status, 0, dynamic.stderr);
    const needed = dynamic.stdout.split('\n').filter((l) => l.includes('(NEEDED)'));
    assert.ok(needed.length > 0, dynamic.stdout);
    assert.deepEqual(
      needed.filter((l) => /lib(z|snappy|lz4|zstd)\.so/.test(l)),
      [],
    );
    // The installed broker's own wrappers, loading the prebuild, round-trip every codec.
    const wrappers = pathToFileURL(join(installed, 'dist', 'src', 'native', 'index.js')).href;
    const roundTrips = `
      import { CompressionCodec, codecAvailable, compress, decompress } from ${JSON.stringify(wrappers)};
      const data = Buffer.from('sluice '.repeat(1000));
      for (const [name, codec] of Object.entries(CompressionCodec))
        if (!codecAvailable(codec) || !decompress(codec, compress(codec, data), data.length).equals(data)) throw new Error(name);`;
    await run('node', ['--input-type=module', '-e', roundTrips], { cwd: app, env: userEnv });
  });

  test('npx sluice --version names the packed version', async () => {
    const { stdout } = await run('npx', ['sluice', '--version'], { cwd: app, env: userEnv });
    assert.equal(stdout, `sluice ${/^sluice-(.+)\.tgz$/.exec(packed.filename)?.[1]}\n`);
  });

  test('npx sluice start serves kcat in every codec', { skip: kcatSkip(), timeout: 240_000 }, async (t) => {
    const logDir = join(work, 'data');
    const port = await freePort();
    const broker: ChildProcessByStdio<null, Readable, Readable> = spawn(
      'npx',
      ['sluice', 'start', '--override', `log.dirs=${logDir}`, '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`],
      { cwd: app, env: userEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    // 'close' comes once every process holding the pipes, the broker included, has exited.
    const closed = once(broker, 'close');
    let open = true;
    void closed.then(() => (open = false));
    let out = '';
    let err = '';
    broker.stdout.on('data', (d: Buffer) => (out += d.toString()));
    broker.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // npx and the broker it runs share the process group started here, whose id is npx's PID.
    t.after(() => {
      if (open) process.kill(-broker.pid!, 'SIGKILL');
    });
    const bootstrap = await waitFor(`sluice start: ${err}`, START_TIMEOUT_MS, () => {
      if (broker.exitCode !== null) throw new Error(`sluice exited with ${broker.exitCode}: ${err}`);
      return /accepting connections on (\S+)/.exec(out)?.[1];
    });
    assert.equal(bootstrap, `127.0.0.1:${port}`);

    for (const codec of CODECS) {
      const topic = `npm-${codec}`;
      const values = Array.from({ length: RECORDS_PER_CODEC }, (_, i) => `${codec} record ${i} `.repeat(40));
      await kcat(['-b', bootstrap, '-P', '-t', topic, '-z', codec, '-K', ':'], values.map((v, i) => `k${i}:${v}\n`).join(''));
      const read = await kcatRead(bootstrap, topic);
      assert.deepEqual(
        read.map((r) => Buffer.from(r.value ?? '', 'hex').toString()).sort(),
        [...values].sort(),
        `${codec}: values read back`,
      );
      assert.deepEqual(codecsOnDisk(logDir, topic), new Set([CODEC_ID[codec]]), `${codec}: batches on disk`);
    }

    // npx does not pass SIGTERM on to what it runs: the group gets it, as from a terminal's kill.
    process.kill(-broker.pid!, 'SIGTERM');
    await closed;
    assert.doesNotMatch(err, /shutdown failed/);
    assert.equal(await accepts(port), false, 'the broker still listens');
  });
});

// The arguments of `sluice cluster <subcommand>`, and what `status` prints for a cluster with a
// dead broker and an under-replicated partition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterCommandError, UsageError, parseClusterArgs } from '../../../src/cli/cluster/cluster-args.js';
import { controlSocketPath } from '../../../src/cli/cluster/cluster-state.js';
import { formatClusterStatus } from '../../../src/cli/cluster/cluster-status.js';

test('each subcommand takes its own arguments; the management commands need the --dir of the running cluster', () => {
  assert.deepEqual(parseClusterArgs(['up', '--brokers', '2', '--dir', '/tmp/c', '--override', 'a=1', '--override', 'b=2']), {
    command: 'up',
    brokers: 2,
    dir: '/tmp/c',
    overrides: ['a=1', 'b=2'],
  });
  assert.deepEqual(parseClusterArgs(['stop-broker', '2', '--kill', '--dir', '/tmp/c']), {
    command: 'stop-broker',
    dir: '/tmp/c',
    id: 2,
    kill: true,
  });
  assert.deepEqual(parseClusterArgs(['stop-broker', '--dir', '/tmp/c', '3']), {
    command: 'stop-broker',
    dir: '/tmp/c',
    id: 3,
    kill: false,
  });
  assert.deepEqual(parseClusterArgs(['start-broker', '1', '--dir', '/tmp/c']), { command: 'start-broker', dir: '/tmp/c', id: 1 });
  for (const command of ['status', 'add-broker', 'down'] as const) {
    assert.deepEqual(parseClusterArgs([command, '--dir', '/tmp/c']), { command, dir: '/tmp/c' });
  }
  for (const bad of [
    [],
    ['sideways'],
    ['status'],
    ['down', '--dir'],
    ['start-broker', '--dir', '/tmp/c'],
    ['start-broker', '0', '--dir', '/tmp/c'],
    ['start-broker', '1', '--kill', '--dir', '/tmp/c'],
    ['add-broker', '5', '--dir', '/tmp/c'],
    ['up', '--brokers', 'many'],
    ['up', '--override', 'novalue'],
  ]) {
    assert.throws(() => parseClusterArgs(bad), UsageError, bad.join(' '));
  }
});

test('a --dir too long for a Unix socket path is refused with the reason', () => {
  assert.equal(controlSocketPath('/tmp/c'), '/tmp/c/supervisor.sock');
  assert.throws(
    () => controlSocketPath(`/tmp/${'d'.repeat(120)}`),
    (e: unknown) => e instanceof ClusterCommandError && /too long for a Unix socket/.test(e.message),
  );
});

test('status: the processes, the controller, and each under-replicated partition', () => {
  const text = formatClusterStatus({
    supervisor: { pid: 10, alive: true },
    zookeeper: { connect: '127.0.0.1:2181', pid: 11, alive: true },
    brokers: [
      { id: 1, pid: 12, port: 9092, logDir: '/c/broker-1', alive: true },
      { id: 2, pid: null, port: 9094, logDir: '/c/broker-2', alive: false },
    ],
    metadata: { controller: 1, underReplicated: [{ topic: 't', partition: 0, leader: 1, replicas: [1, 2], isr: [1] }] },
  });
  assert.equal(
    text,
    [
      'supervisor: pid 10 running',
      'zookeeper: 127.0.0.1:2181 pid 11 alive',
      'controller: broker 1',
      'BROKER  PID  ADDRESS         STATE  LOG DIR',
      '1       12   127.0.0.1:9092  alive  /c/broker-1',
      '2       -    127.0.0.1:9094  dead   /c/broker-2',
      'under-replicated partitions: 1',
      '  t-0  leader 1  replicas 1,2  isr 1',
      '',
    ].join('\n'),
  );
  const blind = formatClusterStatus({
    supervisor: { pid: 10, alive: false },
    zookeeper: { connect: '127.0.0.1:2181', pid: 11, alive: false },
    brokers: [],
    metadata: { unavailable: 'no broker is running' },
  });
  assert.match(blind, /^supervisor: pid 10 not running$/m);
  assert.match(blind, /^controller: unknown \(no broker is running\)$/m);
  assert.match(blind, /^under-replicated partitions: unknown$/m);
});

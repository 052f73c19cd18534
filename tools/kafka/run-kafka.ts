// Command line front for kafka-process.ts: starts the reference broker and keeps it running until
// SIGINT/SIGTERM, then stops it cleanly.
// Usage: node dist/tools/kafka/run-kafka.js --port 19092 [--advertised-port P] [--controller-port C]
//          [--log-dir DIR] [--version 4.4.0]
import { parseArgs } from 'node:util';
import { startKafka } from './kafka-process.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '19092' },
    'advertised-port': { type: 'string' },
    'controller-port': { type: 'string' },
    'log-dir': { type: 'string', default: '.cache/kafka-run' },
    version: { type: 'string' },
  },
});

function portOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new RangeError(`not a port: ${text}`);
  return port;
}

const port = portOf(values.port);
if (port === undefined) throw new RangeError('--port is required');
const kafka = await startKafka({
  port,
  advertisedPort: portOf(values['advertised-port']),
  controllerPort: portOf(values['controller-port']),
  logDir: values['log-dir'],
  version: values.version,
});
console.log(`Kafka ready: bootstrap=${kafka.bootstrap} pid=${kafka.pid} log=${values['log-dir']}/kafka.log`);
const shutdown = (): void => {
  kafka.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);

/**
 * The driver of `sluice tune --client sluice`: Sluice's own `BatchingProducer`, run as its own
 * process like the Java and librdkafka drivers and speaking the same protocol
 * (`driver-protocol.ts`), so the sweep treats the three alike. Started as
 * `node dist/src/sluice-driver.js` in this package.
 */
import { createInterface } from 'node:readline';
import { loadAcceleratorsModule } from '@sluice/protocol/accelerators.js';
import { parseBootstrapServers } from '@sluice/client/broker-address.js';
import { KafkaCluster } from '@sluice/client/cluster.js';
import { runSluiceCell } from './cell-runner.js';
import type { DriverRun } from './driver-protocol.js';
import { sluiceConsumerConfig, sluiceProducerConfig } from './sluice-client-config.js';

function emit(message: object): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function setProperty(props: Map<string, string>, line: string): void {
  const eq = line.indexOf('=');
  if (eq < 0) throw new Error(`not key=value: ${line}`);
  props.set(line.slice(0, eq), line.slice(eq + 1));
}

async function main(): Promise<void> {
  // snappy, lz4 and zstd, and the native CRC32C, when started from the `sluice` command.
  await loadAcceleratorsModule();
  emit({ type: 'hello', client: 'sluice BatchingProducer' });
  let bootstrap = '';
  let topic = '';
  const producerProps = new Map<string, string>();
  const consumerProps = new Map<string, string>();
  let clusters: { producer: KafkaCluster; consumer: KafkaCluster } | null = null;
  try {
    for await (const line of createInterface({ input: process.stdin })) {
      if (line.trim() === '') continue;
      const space = line.indexOf(' ');
      const verb = space < 0 ? line : line.slice(0, space);
      const rest = space < 0 ? '' : line.slice(space + 1);
      if (verb === 'bootstrap') bootstrap = rest;
      else if (verb === 'topic') topic = rest;
      else if (verb === 'producer') setProperty(producerProps, rest);
      else if (verb === 'consumer') setProperty(consumerProps, rest);
      else if (verb === 'run') {
        const config = sluiceProducerConfig(producerProps);
        const consumerConfig = sluiceConsumerConfig(consumerProps);
        if (clusters === null) {
          if (config.ignored.length > 0)
            process.stderr.write(`sluice driver: ignoring producer properties it does not implement: ${config.ignored.join(', ')}\n`);
          if (consumerConfig.ignored.length > 0)
            process.stderr.write(
              `sluice driver: ignoring consumer properties it does not implement: ${consumerConfig.ignored.join(', ')}\n`,
            );
          const connect = { bootstrap: parseBootstrapServers(bootstrap), clientId: 'sluice-tune' };
          clusters = {
            producer: new KafkaCluster({ ...connect, ...config.security }),
            consumer: new KafkaCluster({ ...connect, ...consumerConfig.security }),
          };
        }
        const [id, seconds, rate, recordSize, endToEnd] = rest.split(' ').map(Number);
        const run: DriverRun = {
          id: id!,
          seconds: seconds!,
          targetRate: rate! > 0 ? rate! : null,
          recordSize: recordSize!,
          endToEnd: endToEnd === 1,
        };
        emit({
          type: 'result',
          ...(await runSluiceCell(
            {
              producerCluster: clusters.producer,
              consumerCluster: clusters.consumer,
              topic,
              producer: config.options,
              consumer: consumerConfig.options,
            },
            run,
          )),
        });
      } else throw new Error(`unknown line: ${line}`);
    }
  } catch (err) {
    emit({ type: 'error', message: err instanceof Error ? err.message : String(err) });
    process.exitCode = 1;
  } finally {
    clusters?.producer.close();
    clusters?.consumer.close();
  }
}

await main();

/**
 * What the SASL tests share: broker settings enabling PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 on
 * one SASL listener the way a Kafka server.properties does (listener- and mechanism-prefixed
 * JAAS entries), the users, and the Java program that drives kafka-clients over SASL. The
 * security protocol is a parameter, so the same tests run over SASL_SSL once TLS listeners exist.
 */
import { KafkaCluster } from '@sluice/client/cluster.js';
import type { KafkaConnection } from '@sluice/client/connection.js';
import { alterScramCredentials } from '@sluice/client/scram-credentials-admin.js';
import { MetadataRequest, MetadataResponse } from '@sluice/protocol/messages/index.js';
import { metricsUrl, type BrokerProcess } from './broker-process.js';
import { startJavaProgram } from '../integration/groups/group-helpers.js';
import type { JsonLine } from './interop.js';

export type SaslProtocol = 'SASL_PLAINTEXT' | 'SASL_SSL';
export type Mechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export interface User {
  readonly username: string;
  readonly password: string;
}

/** The PLAIN users of the JAAS entry; `admin` also creates the SCRAM users. */
export const ADMIN: User = { username: 'admin', password: 'admin-secret' };
export const PLAIN_USER: User = { username: 'alice', password: 'alice-secret' };
/** Created through AlterUserScramCredentials by the tests (SCRAM has no users until then). */
export const SCRAM_USERS: Readonly<Record<'SCRAM-SHA-256' | 'SCRAM-SHA-512', User>> = {
  'SCRAM-SHA-256': { username: 'scram', password: 'scram-secret' },
  'SCRAM-SHA-512': { username: 'scram-512', password: 'scram-secret' },
};

export function userFor(mechanism: Mechanism): User {
  return mechanism === 'PLAIN' ? PLAIN_USER : SCRAM_USERS[mechanism];
}

export function saslBrokerSettings(protocol: SaslProtocol, extra: Record<string, string> = {}): Record<string, string> {
  const prefix = `listener.name.${protocol.toLowerCase()}`;
  return {
    listeners: `${protocol}://127.0.0.1:0`,
    // As in Kafka, the inter-broker listener must be one of the listeners even on a single broker.
    'security.inter.broker.protocol': protocol,
    'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    [`${prefix}.plain.sasl.jaas.config`]: `org.apache.kafka.common.security.plain.PlainLoginModule required username="${ADMIN.username}" password="${ADMIN.password}" user_${ADMIN.username}="${ADMIN.password}" user_${PLAIN_USER.username}="${PLAIN_USER.password}";`,
    [`${prefix}.scram-sha-256.sasl.jaas.config`]: 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    [`${prefix}.scram-sha-512.sasl.jaas.config`]: 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'group.initial.rebalance.delay.ms': '0',
    ...extra,
  };
}

/** Runs one scenario of SaslClients.java as `user` with `mechanism`; resolves with its JSON lines. */
export async function runSaslJava(
  scenario: string,
  bootstrap: string,
  protocol: SaslProtocol,
  mechanism: Mechanism,
  user: User,
  ...args: string[]
): Promise<JsonLine[]> {
  const p = startJavaProgram('test/integration/security/SaslClients.java', `SaslClients ${scenario}`, [
    scenario,
    bootstrap,
    protocol,
    mechanism,
    user.username,
    user.password,
    ...args,
  ]);
  await p.succeeded(120_000);
  return p.json();
}

export function line(lines: readonly JsonLine[], type: string): JsonLine {
  const found = lines.find((l) => l['type'] === type);
  if (found === undefined) throw new Error(`no ${type} line in ${JSON.stringify(lines)}`);
  return found;
}

export function hostPort(bootstrap: string): { host: string; port: number } {
  const colon = bootstrap.lastIndexOf(':');
  return { host: bootstrap.slice(0, colon), port: Number(bootstrap.slice(colon + 1)) };
}

/** Sends Metadata on the connection; resolves with the number of brokers it lists. */
export async function brokerCount(connection: KafkaConnection): Promise<number> {
  const res = await connection.request(MetadataRequest, MetadataResponse, () => ({ topics: [], allowAutoTopicCreation: false }));
  return res.brokers.length;
}

/** Creates SCRAM_USERS over PLAIN as ADMIN with this repository's client (AlterUserScramCredentials). */
export async function createScramUsers(bootstrap: string): Promise<void> {
  const cluster = new KafkaCluster({ bootstrap: [hostPort(bootstrap)], sasl: { mechanism: 'PLAIN', ...ADMIN } });
  try {
    await alterScramCredentials(
      cluster,
      (['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const).map((mechanism) => ({
        user: SCRAM_USERS[mechanism].username,
        mechanism,
        upsert: { password: SCRAM_USERS[mechanism].password, iterations: 4096 },
      })),
    );
  } finally {
    cluster.close();
  }
}

/** The sum of a counter's series on the broker's /metrics whose labels contain every one of `labels`. */
export async function counterValue(broker: BrokerProcess, name: string, ...labels: string[]): Promise<number> {
  const text = await (await fetch(await metricsUrl(broker))).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && labels.every((label) => l.includes(label)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

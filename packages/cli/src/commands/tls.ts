/**
 * `sluice tls`: makes a test CA and broker and client certificates for a local TLS setup, and
 * prints the server.properties lines that use them and the commands making a Java truststore.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { integerOption, parseOptions, required, writeOut, type Command } from './command-support.js';

const USAGE = `usage: sluice tls --dir DIR [--host NAME_OR_IP]... [--password PASSWORD] [--days N]
  Writes a test CA (ca.crt, ca.key), a broker keystore (broker.pem, broker.p12) whose certificate
  names localhost, 127.0.0.1 and every --host, and a client keystore (client.pem, client.p12).
  The PKCS12 files and the encrypted PEM key use --password (a random one when absent).
`;

const OPTIONS = {
  dir: { type: 'string' },
  host: { type: 'string', multiple: true },
  password: { type: 'string' },
  days: { type: 'string' },
} as const;

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  const dir = resolve(required(o.dir, 'dir'));
  const password = o.password ?? randomBytes(12).toString('base64url');
  // Loaded here, not with the command list: node-forge would otherwise slow every `sluice start`.
  const { generateTlsFiles } = await import('../tls-certificates.js');
  const files = generateTlsFiles({ dir, hosts: o.host ?? [], password, validDays: integerOption(o.days, 'days', 1, 36500) });
  await writeOut(`Wrote a test CA and certificates to ${dir} (the CA key is there too: for testing only).

# server.properties: an SSL listener beside PLAINTEXT, PEM keystore and truststore
listeners=PLAINTEXT://127.0.0.1:9092,SSL://127.0.0.1:9093
ssl.keystore.type=PEM
ssl.keystore.location=${files.brokerPem}
ssl.truststore.type=PEM
ssl.truststore.location=${files.caCert}
# require client certificates; their principal is User:${files.clientSubject}
ssl.client.auth=required
# or the PKCS12 keystore instead:
#   ssl.keystore.type=PKCS12
#   ssl.keystore.location=${files.brokerP12}
#   ssl.keystore.password=${password}

# clients (Java, librdkafka 2.x and KafkaJS all read PEM)
security.protocol=SSL
ssl.truststore.type=PEM
ssl.truststore.location=${files.caCert}
ssl.keystore.type=PEM
ssl.keystore.location=${files.clientPem}

# a PKCS12 (or JKS) truststore for Java clients that want one
keytool -importcert -noprompt -alias sluice-ca -file ${files.caCert} -keystore ${dir}/truststore.p12 -storetype PKCS12 -storepass ${password}
keytool -importcert -noprompt -alias sluice-ca -file ${files.caCert} -keystore ${dir}/truststore.jks -storetype JKS -storepass ${password}
# the same with openssl (Java 18+ reads a certificate-only PKCS12 without a password)
openssl pkcs12 -export -nokeys -in ${files.caCert} -out ${dir}/truststore.p12 -passout pass:${password} -jdktrust anyExtendedKeyUsage
`);
}

export const tlsCommand: Command = { usage: USAGE, run };

/** One test CA and certificates per test process (RSA keys take a moment), in a temporary directory. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateTlsFiles, type TlsFiles } from '@sluice/cli/tls-certificates.js';

export const TLS_PASSWORD = 'test-secret';

let files: TlsFiles | null = null;

export function testTlsFiles(): TlsFiles {
  files ??= generateTlsFiles({ dir: mkdtempSync(join(tmpdir(), 'sluice-tls-')), password: TLS_PASSWORD });
  return files;
}

/** Broker keys for an SSL listener with the PEM keystore and truststore. */
export function pemListenerKeys(extra: Record<string, string> = {}): Record<string, string> {
  const f = testTlsFiles();
  return {
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': f.brokerPem,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': f.caCert,
    ...extra,
  };
}

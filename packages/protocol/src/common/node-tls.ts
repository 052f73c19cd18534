/**
 * node:tls for the modules a broker loads at start, required when the first TLS listener or
 * TLS configuration is built: a plaintext broker never needs it, and loading it (with the
 * crypto it pulls in) is a noticeable share of start-up CPU (docs/journal/performance.md).
 */
import { createRequire } from 'node:module';
import type * as Tls from 'node:tls';

export function nodeTls(): typeof Tls {
  return createRequire(import.meta.url)('node:tls') as typeof Tls;
}

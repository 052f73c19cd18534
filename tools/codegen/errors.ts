/**
 * Generates packages/protocol/src/errors.ts from tools/codegen/kafka-errors.json, the error table that
 * tools/golden's Java program reads out of Apache Kafka's own `Errors` enum (code, name,
 * retriable, default message), so the table is complete and exact rather than hand-copied.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_BANNER } from './emit.js';

export interface KafkaErrorEntry {
  readonly code: number;
  readonly name: string;
  readonly retriable: boolean;
  readonly message: string;
}

export function emitErrors(entries: readonly KafkaErrorEntry[]): string {
  const sorted = [...entries].sort((a, b) => a.code - b.code);
  const lines = [GENERATED_BANNER, '// Source: tools/codegen/kafka-errors.json (read from org.apache.kafka.common.protocol.Errors)', ''];
  lines.push('/** Every Kafka error code by name. */');
  lines.push('export const ErrorCode = {');
  for (const e of sorted) lines.push(`  ${e.name}: ${e.code},`);
  lines.push('} as const;\n');
  lines.push('export type ErrorCodeName = keyof typeof ErrorCode;\n');
  lines.push(
    'export interface ErrorInfo {\n  readonly code: number;\n  readonly name: ErrorCodeName;\n  readonly retriable: boolean;\n  readonly message: string;\n}\n',
  );
  lines.push("/** Name, retriable flag and Kafka's default message of every error code. */");
  lines.push('export const ERRORS: ReadonlyMap<number, ErrorInfo> = new Map<number, ErrorInfo>([');
  for (const e of sorted) {
    lines.push(`  [${e.code}, { code: ${e.code}, name: '${e.name}', retriable: ${e.retriable}, message: ${JSON.stringify(e.message)} }],`);
  }
  lines.push(']);\n');
  lines.push('export function errorName(code: number): string {\n  return ERRORS.get(code)?.name ?? `UNKNOWN_ERROR_CODE_${code}`;\n}\n');
  return lines.join('\n');
}

export function generateErrors(repoRoot: string, outFile = join(repoRoot, 'packages/protocol/src/errors.ts')): void {
  const entries = JSON.parse(readFileSync(join(repoRoot, 'tools/codegen/kafka-errors.json'), 'utf8')) as KafkaErrorEntry[];
  writeFileSync(outFile, emitErrors(entries));
}

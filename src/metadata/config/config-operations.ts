/**
 * IncrementalAlterConfigs' operations (KIP-339) applied to a resource's overrides: SET and
 * DELETE act on the override; APPEND and SUBTRACT edit the effective list value (defaults
 * included), and only list-typed keys accept them.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { splitList, type ConfigDefinition } from './config-definitions.js';
import type { AdminResult } from '../admin/topic-admin.js';

export const ConfigOperation = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
const OPERATION_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT'];

export interface ConfigAlteration {
  readonly name: string;
  readonly operation: number;
  readonly value: string | null;
}

export interface AlterationTarget {
  readonly overrides: ReadonlyMap<string, string>;
  definition(name: string): ConfigDefinition | undefined;
  /** The value in effect now, for APPEND/SUBTRACT. */
  effective(name: string): string | null;
}

/** The overrides after the alterations, or the Kafka error that refuses them. */
export function applyAlterations(target: AlterationTarget, alterations: readonly ConfigAlteration[]): Map<string, string> | AdminResult {
  const names = alterations.map((a) => a.name);
  if (new Set(names).size !== names.length)
    return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Error due to duplicate config keys' };
  const next = new Map(target.overrides);
  for (const a of alterations) {
    if (a.operation === ConfigOperation.DELETE) {
      next.delete(a.name);
      continue;
    }
    if (a.operation !== ConfigOperation.SET && a.operation !== ConfigOperation.APPEND && a.operation !== ConfigOperation.SUBTRACT) {
      return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown config operation ${a.operation} for ${a.name}` };
    }
    if (a.value === null) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Null value not supported for : ${a.name}` };
    if (a.operation === ConfigOperation.SET) {
      next.set(a.name, a.value);
      continue;
    }
    const def = target.definition(a.name);
    if (def !== undefined && def.type !== 'list') {
      return {
        errorCode: ErrorCode.INVALID_CONFIG,
        errorMessage: `Can't ${OPERATION_NAMES[a.operation]} to key ${a.name} because its type is not LIST.`,
      };
    }
    const current = splitList(next.get(a.name) ?? target.effective(a.name) ?? '');
    const items = splitList(a.value);
    const edited =
      a.operation === ConfigOperation.APPEND
        ? [...current, ...items.filter((i) => !current.includes(i))]
        : current.filter((i) => !items.includes(i));
    next.set(a.name, edited.join(','));
  }
  return next;
}

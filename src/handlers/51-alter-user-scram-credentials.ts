/**
 * AlterUserScramCredentials (key 51, KIP-554): deletes and upserts users' SCRAM credentials.
 * An upsertion carries the salt and the salted password the client computed; the broker keeps
 * only the stored key and server key derived from it. Validation and messages are Kafka 4.4's
 * (ScramControlManager): a user altered twice in one request is DUPLICATE_RESOURCE, an empty
 * name or iterations outside [4096, 16384] UNACCEPTABLE_CREDENTIAL, an unknown mechanism
 * UNSUPPORTED_SASL_MECHANISM, deleting a credential that does not exist RESOURCE_NOT_FOUND.
 * Results list the successful deletions, then the successful upsertions, then the failures.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse } from '@sluice/protocol/messages/index.js';
import {
  credentialFromSaltedPassword,
  formatCredential,
  MAX_SCRAM_ITERATIONS,
  scramMechanismOfType,
  type ScramMechanism,
} from '@sluice/protocol/sasl/scram-formatter.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { userCredentials } from './scram-credentials.js';

interface Failure {
  readonly errorCode: number;
  readonly errorMessage: string;
}

type Change =
  | { readonly kind: 'delete'; readonly mechanism: ScramMechanism }
  | { readonly kind: 'upsert'; readonly mechanism: ScramMechanism; readonly value: string };

function checkNameAndMechanism(name: string, mechanismType: number): Failure | ScramMechanism {
  if (name === '') return { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Username must not be empty' };
  return (
    scramMechanismOfType(mechanismType) ?? { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, errorMessage: 'Unknown SCRAM mechanism' }
  );
}

const TWICE: Failure = {
  errorCode: ErrorCode.DUPLICATE_RESOURCE,
  errorMessage: 'A user credential cannot be altered twice in the same request',
};

export const alterUserScramCredentialsHandler = defineHandler({
  request: AlterUserScramCredentialsRequest,
  response: AlterUserScramCredentialsResponse,
  async handle(request, ctx) {
    if (!authorizedOnCluster(ctx, AclOperation.ALTER)) {
      const users = [...new Set([...request.deletions, ...request.upsertions].map((c) => c.name))];
      return {
        throttleTimeMs: 0,
        results: users.map((user) => ({ user, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null })),
      };
    }
    const store = clusterOf(ctx).clientEntities;
    const failures = new Map<string, Failure>();
    const deletions = new Map<string, Change>();
    const upsertions = new Map<string, Change>();
    for (const d of request.deletions) {
      if (failures.has(d.name)) continue;
      if (deletions.delete(d.name)) {
        failures.set(d.name, TWICE);
        continue;
      }
      const checked = checkNameAndMechanism(d.name, d.mechanism);
      if ('errorCode' in checked) failures.set(d.name, checked);
      else if (!userCredentials(store, d.name).some((c) => c.mechanism === checked))
        failures.set(d.name, {
          errorCode: ErrorCode.RESOURCE_NOT_FOUND,
          errorMessage: 'Attempt to delete a user credential that does not exist',
        });
      else deletions.set(d.name, { kind: 'delete', mechanism: checked });
    }
    for (const u of request.upsertions) {
      if (failures.has(u.name)) continue;
      if (deletions.delete(u.name) || upsertions.delete(u.name)) {
        failures.set(u.name, TWICE);
        continue;
      }
      const checked = checkNameAndMechanism(u.name, u.mechanism);
      if ('errorCode' in checked) failures.set(u.name, checked);
      else if (u.iterations < checked.minIterations)
        failures.set(u.name, { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too few iterations' });
      else if (u.iterations > MAX_SCRAM_ITERATIONS)
        failures.set(u.name, { errorCode: ErrorCode.UNACCEPTABLE_CREDENTIAL, errorMessage: 'Too many iterations' });
      else
        upsertions.set(u.name, {
          kind: 'upsert',
          mechanism: checked,
          value: formatCredential(credentialFromSaltedPassword(checked, u.saltedPassword, u.salt, u.iterations)),
        });
    }
    const changes = [...deletions, ...upsertions];
    await Promise.all(
      changes.map(([user, change]) =>
        store.alter({ user }, (current) => {
          const next = new Map(current);
          if (change.kind === 'delete') next.delete(change.mechanism.name);
          else next.set(change.mechanism.name, change.value);
          return next;
        }),
      ),
    );
    return {
      throttleTimeMs: 0,
      results: [
        ...changes.map(([user]) => ({ user, errorCode: ErrorCode.NONE, errorMessage: null })),
        ...[...failures].map(([user, f]) => ({ user, errorCode: f.errorCode, errorMessage: f.errorMessage })),
      ],
    };
  },
});

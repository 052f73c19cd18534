/**
 * Users' SCRAM credentials over the wire (KIP-554), as Kafka's Admin client sends them: an
 * upsertion carries a fresh random salt and the salted password computed here, so the password
 * itself never reaches the broker. Behind `sluice configs --entity-type users`.
 */
import { randomBytes } from 'node:crypto';
import {
  AlterUserScramCredentialsRequest,
  AlterUserScramCredentialsResponse,
  DescribeUserScramCredentialsRequest,
  DescribeUserScramCredentialsResponse,
} from '@sluice/protocol/messages/index.js';
import {
  saltedPassword,
  scramMechanism,
  scramMechanismOfType,
  type ScramMechanism,
  type ScramMechanismName,
} from '@sluice/protocol/sasl/scram-formatter.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { throwIfError } from './client-errors.js';
import type { KafkaCluster } from './cluster.js';

export interface ScramCredentialChange {
  readonly user: string;
  readonly mechanism: ScramMechanismName;
  /** Absent: delete the credential. */
  readonly upsert?: { readonly password: string; readonly iterations: number };
}

export interface UserScramCredentials {
  readonly user: string;
  readonly credentials: readonly { readonly mechanism: ScramMechanismName; readonly iterations: number }[];
}

function mechanismOf(name: string): ScramMechanism {
  const m = scramMechanism(name);
  if (m === undefined) throw new KafkaError(ErrorCode.UNSUPPORTED_SASL_MECHANISM, `unknown SCRAM mechanism ${name}`);
  return m;
}

/** Applies the changes in one request; the first per-user failure is thrown with the broker's message. */
export async function alterScramCredentials(cluster: KafkaCluster, changes: readonly ScramCredentialChange[]): Promise<void> {
  const connection = await cluster.anyConnection();
  const res = await connection.request(AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, () => ({
    deletions: changes.filter((c) => c.upsert === undefined).map((c) => ({ name: c.user, mechanism: mechanismOf(c.mechanism).wireType })),
    upsertions: changes.flatMap((c) => {
      if (c.upsert === undefined) return [];
      const m = mechanismOf(c.mechanism);
      const salt = randomBytes(m.keyLength);
      return [
        {
          name: c.user,
          mechanism: m.wireType,
          iterations: c.upsert.iterations,
          salt,
          saltedPassword: saltedPassword(m, c.upsert.password, salt, c.upsert.iterations),
        },
      ];
    }),
  }));
  for (const r of res.results) throwIfError(r.errorCode, r.errorMessage, `cannot alter the SCRAM credentials of user '${r.user}'`);
}

/** The users' credentials (every user with one when `users` is empty); a user without any is an error. */
export async function describeScramCredentials(cluster: KafkaCluster, users: readonly string[]): Promise<UserScramCredentials[]> {
  const connection = await cluster.anyConnection();
  const res = await connection.request(DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse, () => ({
    users: users.map((name) => ({ name })),
  }));
  throwIfError(res.errorCode, res.errorMessage, 'cannot describe SCRAM credentials');
  return res.results.map((r) => {
    throwIfError(r.errorCode, r.errorMessage, `cannot describe the SCRAM credentials of user '${r.user}'`);
    return {
      user: r.user,
      credentials: r.credentialInfos.flatMap((i) => {
        const m = scramMechanismOfType(i.mechanism);
        return m === undefined ? [] : [{ mechanism: m.name, iterations: i.iterations }];
      }),
    };
  });
}

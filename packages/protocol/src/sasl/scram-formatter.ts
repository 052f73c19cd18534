/**
 * The SCRAM arithmetic of RFC 5802 for SHA-256 and SHA-512 (RFC 7677), shared by the broker's
 * server side, its client side and the tools that make credentials: Hi() (PBKDF2), the derived
 * keys, proofs and signatures, and Kafka's text form of a stored credential
 * (`salt=…,stored_key=…,server_key=…,iterations=…`, the value of the `SCRAM-SHA-*` config of a
 * user entity in ZooKeeper).
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export type ScramMechanismName = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export interface ScramMechanism {
  readonly name: ScramMechanismName;
  /** The mechanism's number in DescribeUserScramCredentials / AlterUserScramCredentials. */
  readonly wireType: number;
  readonly hash: 'sha256' | 'sha512';
  readonly keyLength: number;
  /** Kafka refuses credentials with fewer iterations, at authentication and when they are altered. */
  readonly minIterations: number;
}

export const SCRAM_MECHANISMS: readonly ScramMechanism[] = [
  { name: 'SCRAM-SHA-256', wireType: 1, hash: 'sha256', keyLength: 32, minIterations: 4096 },
  { name: 'SCRAM-SHA-512', wireType: 2, hash: 'sha512', keyLength: 64, minIterations: 4096 },
];

/** Kafka's upper bound on the iterations of a credential altered through the API. */
export const MAX_SCRAM_ITERATIONS = 16384;

export function scramMechanism(name: string): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.name === name);
}

export function scramMechanismOfType(wireType: number): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.wireType === wireType);
}

export interface ScramCredential {
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
  readonly iterations: number;
}

export function hmac(m: ScramMechanism, key: Buffer, text: string | Buffer): Buffer {
  return createHmac(m.hash, key).update(text).digest();
}

export function digest(m: ScramMechanism, data: Buffer): Buffer {
  return createHash(m.hash).update(data).digest();
}

/** Hi(password, salt, i): PBKDF2 with the mechanism's HMAC, one block long. */
export function saltedPassword(m: ScramMechanism, password: string, salt: Buffer, iterations: number): Buffer {
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, m.keyLength, m.hash);
}

export function clientKey(m: ScramMechanism, salted: Buffer): Buffer {
  return hmac(m, salted, 'Client Key');
}

export function serverKey(m: ScramMechanism, salted: Buffer): Buffer {
  return hmac(m, salted, 'Server Key');
}

export function xor(a: Buffer, b: Buffer): Buffer {
  if (a.length !== b.length) throw new RangeError(`xor of ${a.length} and ${b.length} bytes`);
  const out = Buffer.allocUnsafe(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

/** What the broker keeps of a password: never the password, nor the salted password. */
export function credentialFromSaltedPassword(m: ScramMechanism, salted: Buffer, salt: Buffer, iterations: number): ScramCredential {
  return { salt, storedKey: digest(m, clientKey(m, salted)), serverKey: serverKey(m, salted), iterations };
}

export function credentialFromPassword(
  m: ScramMechanism,
  password: string,
  iterations: number,
  salt: Buffer = randomBytes(m.keyLength),
): ScramCredential {
  return credentialFromSaltedPassword(m, saltedPassword(m, password, salt, iterations), salt, iterations);
}

/** The client's proof checked against a stored key: H(proof XOR HMAC(storedKey, authMessage)) == storedKey. */
export function verifyClientProof(m: ScramMechanism, credential: ScramCredential, authMessage: string, proof: Buffer): boolean {
  const signature = hmac(m, credential.storedKey, authMessage);
  if (proof.length !== signature.length) return false;
  return timingSafeEqual(digest(m, xor(proof, signature)), credential.storedKey);
}

export function serverSignature(m: ScramMechanism, key: Buffer, authMessage: string): Buffer {
  return hmac(m, key, authMessage);
}

/** Kafka's `salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<n>`. */
export function formatCredential(c: ScramCredential): string {
  return `salt=${c.salt.toString('base64')},stored_key=${c.storedKey.toString('base64')},server_key=${c.serverKey.toString('base64')},iterations=${c.iterations}`;
}

/** Reads Kafka's text form; undefined for anything else (a corrupt value authenticates nobody). */
export function parseCredential(text: string): ScramCredential | undefined {
  const fields = new Map<string, string>();
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const salt = fields.get('salt');
  const storedKey = fields.get('stored_key');
  const key = fields.get('server_key');
  const iterations = Number(fields.get('iterations'));
  if (salt === undefined || storedKey === undefined || key === undefined || !Number.isInteger(iterations) || iterations <= 0)
    return undefined;
  return {
    salt: Buffer.from(salt, 'base64'),
    storedKey: Buffer.from(storedKey, 'base64'),
    serverKey: Buffer.from(key, 'base64'),
    iterations,
  };
}

/** A nonce of printable characters without ',' (RFC 5802), as long as Kafka's. */
export function randomNonce(): string {
  return randomBytes(18).toString('base64url');
}

/** RFC 5802 saslname: ',' and '=' are escaped as '=2C' and '=3D'. */
export function escapeSaslName(name: string): string {
  return name.replace(/=/g, '=3D').replace(/,/g, '=2C');
}

/** The inverse of `escapeSaslName`; undefined when a '=' starts no valid escape. */
export function unescapeSaslName(saslName: string): string | undefined {
  if (/=(?!2C|3D)/.test(saslName)) return undefined;
  return saslName.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

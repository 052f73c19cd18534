/**
 * SASL/PLAIN (RFC 4616) against the `user_<name>="<password>"` options of the listener's
 * PlainLoginModule JAAS entry, as Kafka's PlainSaslServer and its default callback handler.
 */
import { timingSafeEqual } from 'node:crypto';
import { InvalidSaslCredentials, SaslAuthenticationError, type SaslServerMechanism } from './mechanism.js';

export class PlainServer implements SaslServerMechanism {
  readonly mechanism = 'PLAIN';
  private user: string | null = null;

  /** `users`: user name to password. */
  constructor(private readonly users: ReadonlyMap<string, string>) {}

  get complete(): boolean {
    return this.user !== null;
  }

  get authorizationId(): string {
    if (this.user === null) throw new Error('the PLAIN exchange has not completed');
    return this.user;
  }

  evaluate(token: Buffer): Buffer {
    const parts = splitThree(token.toString('utf8'));
    if (parts === undefined)
      throw new InvalidSaslCredentials(
        `Invalid SASL/PLAIN response: expected 3 tokens, got ${token.toString('utf8').split('\u0000').length}`,
      );
    const [authorizationId, user, password] = parts;
    if (user === '') throw new InvalidSaslCredentials('Authentication failed: username not specified');
    if (password === '') throw new InvalidSaslCredentials('Authentication failed: password not specified');
    const expected = this.users.get(user);
    if (expected === undefined || !samePassword(expected, password))
      throw new SaslAuthenticationError('Authentication failed: Invalid username or password');
    if (authorizationId !== '' && authorizationId !== user) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    this.user = user;
    return Buffer.alloc(0);
  }
}

/** `[authzid] NUL authcid NUL passwd`: exactly three parts (a NUL inside the password is a fourth). */
function splitThree(text: string): [string, string, string] | undefined {
  const parts = text.split('\u0000');
  return parts.length === 3 ? [parts[0]!, parts[1]!, parts[2]!] : undefined;
}

function samePassword(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

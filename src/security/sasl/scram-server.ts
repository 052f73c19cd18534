/**
 * The server side of SCRAM-SHA-256/512 (RFC 5802, RFC 7677) as Kafka's ScramSaslServer: the
 * client-first message names the user, whose stored credential (salt, stored key, server key,
 * iterations) comes from `credentials`; the client-final message must echo the combined nonce
 * and the gs2 header as channel binding (none is supported), and its proof must match the
 * stored key. Delegation tokens (the `tokenauth` extension) are not served, so such a client is
 * refused as with an unknown token.
 */
import { InvalidSaslCredentials, SaslAuthenticationError, type SaslServerMechanism } from './mechanism.js';
import {
  authMessage,
  formatServerFirst,
  parseClientFinal,
  parseClientFirst,
  type ClientFirstMessage,
} from '@sluice/protocol/sasl/scram-messages.js';
import {
  randomNonce,
  serverSignature,
  unescapeSaslName,
  verifyClientProof,
  type ScramCredential,
  type ScramMechanism,
} from '@sluice/protocol/sasl/scram-formatter.js';

/** Looks up a user's credential for a mechanism; undefined when the user has none. */
export type ScramCredentialLookup = (user: string, mechanism: ScramMechanism) => ScramCredential | undefined;

type State =
  | { readonly step: 'first' }
  | {
      readonly step: 'final';
      readonly user: string;
      readonly credential: ScramCredential;
      readonly clientFirst: ClientFirstMessage;
      readonly serverFirst: string;
      readonly nonce: string;
    }
  | { readonly step: 'complete'; readonly user: string }
  | { readonly step: 'failed' };

export class ScramServer implements SaslServerMechanism {
  private state: State = { step: 'first' };

  constructor(
    private readonly scram: ScramMechanism,
    private readonly credentials: ScramCredentialLookup,
    private readonly serverNonce: () => string = randomNonce,
  ) {}

  get mechanism(): string {
    return this.scram.name;
  }

  get complete(): boolean {
    return this.state.step === 'complete';
  }

  get authorizationId(): string {
    if (this.state.step !== 'complete') throw new Error(`the ${this.scram.name} exchange has not completed`);
    return this.state.user;
  }

  evaluate(token: Buffer): Buffer {
    try {
      return Buffer.from(this.step(token.toString('utf8')), 'utf8');
    } catch (err) {
      this.state = { step: 'failed' };
      throw err;
    }
  }

  private step(text: string): string {
    const state = this.state;
    switch (state.step) {
      case 'first':
        return this.first(text);
      case 'final':
        return this.final(text, state);
      default:
        throw new InvalidSaslCredentials(`unexpected ${this.scram.name} message in state ${state.step}`);
    }
  }

  private first(text: string): string {
    const clientFirst = parseClientFirst(text);
    if (clientFirst === undefined) throw new InvalidSaslCredentials(`Invalid SCRAM client first message format: ${text}`);
    if (clientFirst.extensions.get('tokenauth')?.toLowerCase() === 'true')
      throw new InvalidSaslCredentials('Token Authentication failed: delegation tokens are not served');
    const user = unescapeSaslName(clientFirst.saslName);
    if (user === undefined) throw new InvalidSaslCredentials(`Invalid SCRAM saslname ${clientFirst.saslName}`);
    const credential = this.credentials(user, this.scram);
    if (credential === undefined) throw new InvalidSaslCredentials('Authentication failed: Invalid user credentials');
    if (clientFirst.authorizationId !== '' && unescapeSaslName(clientFirst.authorizationId) !== user) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    if (credential.iterations < this.scram.minIterations) {
      throw new InvalidSaslCredentials(
        `Iterations ${credential.iterations} is less than the minimum ${this.scram.minIterations} for ${this.scram.name}`,
      );
    }
    const nonce = clientFirst.nonce + this.serverNonce();
    const serverFirst = formatServerFirst({ nonce, salt: credential.salt, iterations: credential.iterations });
    this.state = { step: 'final', user, credential, clientFirst, serverFirst, nonce };
    return serverFirst;
  }

  private final(text: string, state: Extract<State, { step: 'final' }>): string {
    const clientFinal = parseClientFinal(text);
    if (clientFinal === undefined) throw new InvalidSaslCredentials('Invalid SCRAM client final message format');
    if (clientFinal.nonce !== state.nonce) throw new InvalidSaslCredentials('Invalid client nonce in the final client message.');
    if (!clientFinal.channelBinding.equals(Buffer.from(state.clientFirst.gs2Header, 'utf8')))
      throw new InvalidSaslCredentials('Invalid channel binding in the final client message.');
    const message = authMessage(state.clientFirst.bare, state.serverFirst, clientFinal.withoutProof);
    if (!verifyClientProof(this.scram, state.credential, message, clientFinal.proof))
      throw new InvalidSaslCredentials('Invalid client credentials');
    const signature = serverSignature(this.scram, state.credential.serverKey, message);
    this.state = { step: 'complete', user: state.user };
    return `v=${signature.toString('base64')}`;
  }
}

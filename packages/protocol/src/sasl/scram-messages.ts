/**
 * The four SCRAM messages of RFC 5802 in the forms Kafka accepts: a gs2 header of 'n' (no
 * channel binding) with an optional authzid, an optional reserved 'm=' attribute, ASCII
 * saslnames, printable nonces, and `,key=value` extensions after the nonce (KIP-84's
 * `tokenauth`). Parsers return undefined for anything else.
 */
const SASLNAME = '(?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+';
const VALUE_SAFE = '[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]+';
const PRINTABLE = '[\\x21-\\x2B\\x2D-\\x7E]+';
const BASE64 = '(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?';
const EXTENSIONS = `(?:,[A-Za-z]+=${VALUE_SAFE})*`;

const CLIENT_FIRST = new RegExp(
  `^n,(?:a=(?<authzid>${SASLNAME}))?,(?:m=${VALUE_SAFE},)?n=(?<saslname>${SASLNAME}),r=(?<nonce>${PRINTABLE})(?<extensions>${EXTENSIONS})$`,
);
const CLIENT_FINAL = new RegExp(`^c=(?<channel>${BASE64}),r=(?<nonce>${PRINTABLE})(?<extensions>${EXTENSIONS}),p=(?<proof>${BASE64})$`);
const SERVER_FIRST = new RegExp(
  `^(?:m=${VALUE_SAFE},)?r=(?<nonce>${PRINTABLE}),s=(?<salt>${BASE64}),i=(?<iterations>[0-9]+)${EXTENSIONS}$`,
);
const SERVER_FINAL = new RegExp(`^(?:e=(?<error>${VALUE_SAFE})|v=(?<signature>${BASE64}))${EXTENSIONS}$`);

export interface ClientFirstMessage {
  /** The gs2 header ('n,,' or 'n,a=<authzid>,'), which the final message's channel binding repeats. */
  readonly gs2Header: string;
  /** The authzid as sent (escaped), '' when none. */
  readonly authorizationId: string;
  readonly saslName: string;
  readonly nonce: string;
  readonly extensions: ReadonlyMap<string, string>;
  /** The message without its gs2 header, which the AuthMessage starts with. */
  readonly bare: string;
}

export interface ClientFinalMessage {
  readonly channelBinding: Buffer;
  readonly nonce: string;
  readonly proof: Buffer;
  /** The message without its proof, which the AuthMessage ends with. */
  readonly withoutProof: string;
}

export interface ServerFirstMessage {
  readonly nonce: string;
  readonly salt: Buffer;
  readonly iterations: number;
}

function extensionsOf(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of text.split(',').filter((p) => p !== '')) {
    const eq = pair.indexOf('=');
    out.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return out;
}

export function parseClientFirst(text: string): ClientFirstMessage | undefined {
  const g = CLIENT_FIRST.exec(text)?.groups;
  if (g === undefined) return undefined;
  const authorizationId = g['authzid'] ?? '';
  const gs2Header = `n,${authorizationId === '' ? '' : `a=${authorizationId}`},`;
  return {
    gs2Header,
    authorizationId,
    saslName: g['saslname']!,
    nonce: g['nonce']!,
    extensions: extensionsOf(g['extensions']!),
    bare: text.slice(gs2Header.length),
  };
}

export function parseClientFinal(text: string): ClientFinalMessage | undefined {
  const g = CLIENT_FINAL.exec(text)?.groups;
  if (g === undefined) return undefined;
  return {
    channelBinding: Buffer.from(g['channel']!, 'base64'),
    nonce: g['nonce']!,
    proof: Buffer.from(g['proof']!, 'base64'),
    withoutProof: text.slice(0, text.lastIndexOf(',p=')),
  };
}

export function parseServerFirst(text: string): ServerFirstMessage | undefined {
  const g = SERVER_FIRST.exec(text)?.groups;
  if (g === undefined) return undefined;
  return { nonce: g['nonce']!, salt: Buffer.from(g['salt']!, 'base64'), iterations: Number(g['iterations']) };
}

export function parseServerFinal(text: string): { readonly error: string } | { readonly signature: Buffer } | undefined {
  const g = SERVER_FINAL.exec(text)?.groups;
  if (g === undefined) return undefined;
  return g['error'] !== undefined ? { error: g['error'] } : { signature: Buffer.from(g['signature']!, 'base64') };
}

export function formatServerFirst(m: ServerFirstMessage): string {
  return `r=${m.nonce},s=${m.salt.toString('base64')},i=${m.iterations}`;
}

export function authMessage(clientFirstBare: string, serverFirst: string, clientFinalWithoutProof: string): string {
  return `${clientFirstBare},${serverFirst},${clientFinalWithoutProof}`;
}

/**
 * Kafka's `sasl.jaas.config` syntax: one login module, `<class> <flag> key=value … ;`, where a
 * value is a bare word or a double-quoted string (backslash escapes the next character) and
 * `//` or `/* … *\/` comments may appear between tokens, e.g.
 * `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="s" user_admin="s";`.
 */
export interface JaasEntry {
  readonly loginModule: string;
  readonly flag: 'required' | 'requisite' | 'sufficient' | 'optional';
  readonly options: ReadonlyMap<string, string>;
}

export class JaasConfigError extends Error {
  constructor(message: string) {
    super(`Invalid JAAS config: ${message}`);
    this.name = 'JaasConfigError';
  }
}

export const PLAIN_LOGIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
export const SCRAM_LOGIN_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';

type Token = { readonly kind: 'word' | 'quoted'; readonly text: string } | { readonly kind: '=' | ';' };

const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional']);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new JaasConfigError('unterminated comment');
      i = end + 2;
    } else if (c === '=' || c === ';') {
      tokens.push({ kind: c });
      i++;
    } else if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new JaasConfigError('unterminated quoted value');
        const q = text[i]!;
        if (q === '"') break;
        if (q === '\\' && i + 1 < text.length) {
          value += text[i + 1];
          i += 2;
        } else {
          value += q;
          i++;
        }
      }
      i++;
      tokens.push({ kind: 'quoted', text: value });
    } else {
      const m = /^[^\s=;"]+/.exec(text.slice(i))!;
      tokens.push({ kind: 'word', text: m[0] });
      i += m[0].length;
    }
  }
  return tokens;
}

/** Parses a `sasl.jaas.config` value, which Kafka requires to hold exactly one login module. */
export function parseJaasConfig(text: string): JaasEntry {
  const tokens = tokenize(text);
  const entries: JaasEntry[] = [];
  let i = 0;
  const next = (): Token | undefined => tokens[i++];
  while (i < tokens.length) {
    const module = next();
    if (module?.kind !== 'word') throw new JaasConfigError('expected a login module class name');
    const flag = next();
    if (flag?.kind !== 'word' || !FLAGS.has(flag.text.toLowerCase()))
      throw new JaasConfigError(`login module control flag not specified or invalid for ${module.text}`);
    const options = new Map<string, string>();
    for (;;) {
      const t = next();
      if (t === undefined) throw new JaasConfigError(`the entry of ${module.text} does not end with ';'`);
      if (t.kind === ';') break;
      if (t.kind !== 'word') throw new JaasConfigError(`expected an option name in the entry of ${module.text}`);
      if (next()?.kind !== '=') throw new JaasConfigError(`option ${t.text} has no '=' in the entry of ${module.text}`);
      const value = next();
      if (value === undefined || (value.kind !== 'word' && value.kind !== 'quoted'))
        throw new JaasConfigError(`option ${t.text} has no value`);
      options.set(t.text, value.text);
    }
    entries.push({ loginModule: module.text, flag: flag.text.toLowerCase() as JaasEntry['flag'], options });
  }
  if (entries.length !== 1) throw new JaasConfigError(`the value contains ${entries.length} login modules, should be 1 module`);
  return entries[0]!;
}

/** The users of a PlainLoginModule entry: each `user_<name>` option is a user and its password. */
export function plainUsers(entry: JaasEntry): Map<string, string> {
  const users = new Map<string, string>();
  for (const [key, value] of entry.options) if (key.startsWith('user_')) users.set(key.slice('user_'.length), value);
  return users;
}

/**
 * Kafka's `ssl.principal.mapping.rules` (SslPrincipalMapper): an ordered list of
 * `RULE:pattern/replacement/[LU]` and `DEFAULT` entries deciding the principal name of a client
 * certificate from its RFC 2253 distinguished name. The first rule whose pattern matches the whole
 * name wins; `DEFAULT` keeps the name as it is. A name no rule matches fails the authentication.
 */

/** A rule list that cannot be parsed; the broker refuses to start on it. */
export class PrincipalMappingRulesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrincipalMappingRulesError';
  }
}

/** No rule matched the certificate's name: the connection is not authenticated. */
export class NoMatchingRuleError extends Error {
  constructor(distinguishedName: string) {
    super(`no ssl.principal.mapping.rules rule matches ${distinguishedName}`);
    this.name = 'NoMatchingRuleError';
  }
}

interface Rule {
  /** Null for DEFAULT. `whole` tests the name (Java's `matches()`); `each` replaces as `replaceAll` does. */
  readonly pattern: { readonly whole: RegExp; readonly each: RegExp } | null;
  readonly replacement: string;
  readonly toCase: '' | 'L' | 'U';
}

/** One entry: DEFAULT, or RULE: with '/'-delimited pattern and replacement where '\' escapes. */
const RULE_PATTERN = /^\s*(?:(DEFAULT)|RULE:((?:\\.|[^\\/])*)\/((?:\\.|[^\\/])*)\/([LU]?))\s*(?:,|$)/;

export class SslPrincipalMapper {
  private constructor(private readonly rules: readonly Rule[]) {}

  static parse(rules: string): SslPrincipalMapper {
    const parsed: Rule[] = [];
    let rest = rules.trim();
    if (rest === '') throw new PrincipalMappingRulesError('ssl.principal.mapping.rules is empty');
    while (rest !== '') {
      const m = RULE_PATTERN.exec(rest);
      if (m === null) throw new PrincipalMappingRulesError(`invalid rule: ${rest}`);
      if (m[1] !== undefined) parsed.push({ pattern: null, replacement: '', toCase: '' });
      else parsed.push({ pattern: compile(m[2]!), replacement: javaReplacement(m[3]!), toCase: m[4] as '' | 'L' | 'U' });
      rest = rest.slice(m[0].length).trim();
    }
    return new SslPrincipalMapper(parsed);
  }

  /** The principal name (without `User:`) of a certificate with this RFC 2253 name. */
  nameOf(distinguishedName: string): string {
    for (const rule of this.rules) {
      if (rule.pattern === null) return distinguishedName;
      if (!rule.pattern.whole.test(distinguishedName)) continue;
      const mapped = distinguishedName.replace(rule.pattern.each, rule.replacement);
      return rule.toCase === 'L' ? mapped.toLowerCase() : rule.toCase === 'U' ? mapped.toUpperCase() : mapped;
    }
    throw new NoMatchingRuleError(distinguishedName);
  }
}

function compile(pattern: string): { whole: RegExp; each: RegExp } {
  try {
    return { whole: new RegExp(`^(?:${pattern})$`), each: new RegExp(pattern, 'g') };
  } catch (err) {
    throw new PrincipalMappingRulesError(`invalid pattern ${pattern}: ${(err as Error).message}`);
  }
}

/** Java's replacement escapes a character with '\'; JavaScript's `$` groups are the same. */
function javaReplacement(replacement: string): string {
  return replacement.replace(/\\(.)/g, (_, c: string) => (c === '$' ? '$$' : c));
}

/**
 * The RFC 2253 form of a subject as Node's `X509Certificate.subject` prints it: one attribute per
 * line, in certificate order, values already escaped by RFC 2253's rules. RFC 2253 lists them
 * from the last to the first, as Java's `X500Principal.getName()` does.
 */
export function rfc2253Name(subject: string): string {
  return subject
    .split('\n')
    .filter((line) => line !== '')
    .reverse()
    .join(',');
}

/**
 * Header names: the canonical spelling we serialise, the lower-case key we look headers up by,
 * and the compact forms of RFC 3261 §7.3.3 (plus the compact forms registered later: `o` Event
 * RFC 6665, `u` Allow-Events RFC 6665, `r` Refer-To RFC 3515, `b` Referred-By RFC 3892,
 * `x` Session-Expires RFC 4028).
 */

/** Canonical spellings of the headers this stack reads or writes, keyed by lower-case long name. */
const CANONICAL: Record<string, string> = {
  accept: 'Accept',
  'accept-encoding': 'Accept-Encoding',
  'accept-language': 'Accept-Language',
  'alert-info': 'Alert-Info',
  allow: 'Allow',
  'allow-events': 'Allow-Events',
  'authentication-info': 'Authentication-Info',
  authorization: 'Authorization',
  'call-id': 'Call-ID',
  'call-info': 'Call-Info',
  contact: 'Contact',
  'content-disposition': 'Content-Disposition',
  'content-encoding': 'Content-Encoding',
  'content-language': 'Content-Language',
  'content-length': 'Content-Length',
  'content-type': 'Content-Type',
  cseq: 'CSeq',
  date: 'Date',
  event: 'Event',
  expires: 'Expires',
  from: 'From',
  'max-forwards': 'Max-Forwards',
  'min-expires': 'Min-Expires',
  'p-asserted-identity': 'P-Asserted-Identity',
  'proxy-authenticate': 'Proxy-Authenticate',
  'proxy-authorization': 'Proxy-Authorization',
  'proxy-require': 'Proxy-Require',
  rack: 'RAck',
  reason: 'Reason',
  'record-route': 'Record-Route',
  'refer-to': 'Refer-To',
  'referred-by': 'Referred-By',
  require: 'Require',
  'retry-after': 'Retry-After',
  route: 'Route',
  rseq: 'RSeq',
  server: 'Server',
  'session-expires': 'Session-Expires',
  subject: 'Subject',
  'subscription-state': 'Subscription-State',
  supported: 'Supported',
  timestamp: 'Timestamp',
  to: 'To',
  unsupported: 'Unsupported',
  'user-agent': 'User-Agent',
  via: 'Via',
  warning: 'Warning',
  'www-authenticate': 'WWW-Authenticate',
};

/** Compact forms (RFC 3261 §7.3.3 and later extensions) to lower-case long names. */
const COMPACT: Record<string, string> = {
  i: 'call-id',
  f: 'from',
  t: 'to',
  v: 'via',
  m: 'contact',
  l: 'content-length',
  c: 'content-type',
  k: 'supported',
  s: 'subject',
  e: 'content-encoding',
  o: 'event',
  u: 'allow-events',
  r: 'refer-to',
  b: 'referred-by',
  x: 'session-expires',
};

export interface HeaderName {
  /** Lower-case long form, used for every lookup. */
  key: string;
  /** Spelling used when the message is serialised. */
  display: string;
}

/**
 * Exact spellings seen on the wire most of the time, resolved without lower-casing: the parser
 * calls `resolveHeaderName` once per header line, so this keeps the common path to one map hit.
 */
const exact = new Map<string, HeaderName>();
const byKey = new Map<string, HeaderName>();

for (const [key, display] of Object.entries(CANONICAL)) {
  const name = { key, display };
  byKey.set(key, name);
  exact.set(display, name);
  exact.set(key, name);
}
for (const [compact, key] of Object.entries(COMPACT)) {
  const name = byKey.get(key);
  if (name === undefined) throw new Error(`compact form ${compact} names unknown header ${key}`);
  exact.set(compact, name);
  exact.set(compact.toUpperCase(), name);
  byKey.set(compact, name);
}

/** Resolves a header name as written (any case, compact or long) to its key and display form. */
export function resolveHeaderName(raw: string): HeaderName {
  const hit = exact.get(raw);
  if (hit !== undefined) return hit;
  const lower = raw.toLowerCase();
  const known = byKey.get(lower);
  if (known !== undefined) return known;
  return { key: lower, display: raw };
}

/** The lower-case long key of a header name (accepts compact forms). */
export function headerKey(raw: string): string {
  return resolveHeaderName(raw).key;
}

/**
 * Headers whose values are comma-separated lists that may be split or combined (RFC 3261 §7.3.1).
 * Authentication headers, Date and the like contain commas of their own and are never split.
 */
export const LIST_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'alert-info',
  'allow',
  'allow-events',
  'call-info',
  'contact',
  'content-encoding',
  'content-language',
  'error-info',
  'in-reply-to',
  'p-asserted-identity',
  'proxy-require',
  'reason',
  'record-route',
  'require',
  'route',
  'supported',
  'unsupported',
  'via',
  'warning',
]);

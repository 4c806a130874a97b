/**
 * HTTP Digest for SIP (RFC 3261 §22.4, with RFC 7616 and RFC 8760 for SHA-256 and `qop=auth`):
 * the pure pieces — parsing an Authorization header, computing the response — and the nonce
 * book-keeping a server needs (RFC 7616 §3.3, §5.4: nonces that expire and cannot be replayed).
 *
 * Nonces are self-validating: `base64url(issued-at ‖ random ‖ HMAC-SHA-256(secret, issued-at ‖ random))`.
 * A nonce we did not issue fails the HMAC check; a nonce older than its lifetime is stale, and
 * RFC 7616 §3.3 says a correct response with a stale nonce gets a new challenge with `stale=true`
 * (the client retries without asking its user). Replays are refused by keeping, per live nonce,
 * the highest nonce-count seen (RFC 7616 §3.4: nc must grow); a nonce used without qop may be
 * used once.
 */
import { createHmac, hash as oneShotHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { readQuotedString, skipWhitespace } from '../../message/grammar.js';
import { fillRandom } from '../../message/ids.js';

/** The algorithms this server verifies (RFC 8760 §2: SHA-256, and MD5 for older phones). */
export type DigestAlgorithm = 'MD5' | 'SHA-256';

/** The parameters of a `Digest` Authorization / Proxy-Authorization header (RFC 3261 §25.1 `digest-response`). */
export interface DigestCredentials {
  username: string;
  realm: string;
  nonce: string;
  uri: string;
  response: string;
  algorithm: DigestAlgorithm;
  /** Set when the client used `qop=auth`; then `nc` and `cnonce` are set too. */
  qop?: 'auth';
  nc?: number;
  cnonce?: string;
  opaque?: string;
}

/** The largest header value we try to read as credentials; anything longer is refused unread. */
const MAX_CREDENTIALS_LENGTH = 4096;

/**
 * Reads `Digest k=v, k="v", ...`. Returns undefined for another scheme, a malformed header, a
 * missing mandatory parameter, an algorithm we do not offer (`-sess` variants included), or a
 * qop other than `auth` (RFC 7616 §3.4: `auth-int` is not offered).
 */
export function parseDigestCredentials(header: string): DigestCredentials | undefined {
  if (header.length > MAX_CREDENTIALS_LENGTH) return undefined;
  const match = /^\s*digest\s+/i.exec(header);
  if (match === null) return undefined;
  const params = parseAuthParams(header, match[0].length);
  if (params === undefined) return undefined;
  const username = params.get('username');
  const realm = params.get('realm');
  const nonce = params.get('nonce');
  const uri = params.get('uri');
  const response = params.get('response');
  if (username === undefined || realm === undefined || nonce === undefined || uri === undefined || response === undefined) {
    return undefined;
  }
  const algorithmText = (params.get('algorithm') ?? 'MD5').toUpperCase();
  if (algorithmText !== 'MD5' && algorithmText !== 'SHA-256') return undefined;
  const algorithm: DigestAlgorithm = algorithmText;
  const credentials: DigestCredentials = { username, realm, nonce, uri, response: response.toLowerCase(), algorithm };
  const opaque = params.get('opaque');
  if (opaque !== undefined) credentials.opaque = opaque;
  const qop = params.get('qop');
  if (qop !== undefined) {
    if (qop.toLowerCase() !== 'auth') return undefined;
    const nc = params.get('nc');
    const cnonce = params.get('cnonce');
    // RFC 7616 §3.4: nc is exactly 8 hex digits.
    if (nc === undefined || cnonce === undefined || !/^[0-9a-fA-F]{8}$/.test(nc)) return undefined;
    credentials.qop = 'auth';
    credentials.nc = Number.parseInt(nc, 16);
    credentials.cnonce = cnonce;
  }
  return credentials;
}

/** `auth-param *(COMMA auth-param)`; values are tokens or quoted strings. Undefined on any syntax error. */
function parseAuthParams(text: string, start: number): Map<string, string> | undefined {
  const params = new Map<string, string>();
  let pos = start;
  for (;;) {
    pos = skipWhitespace(text, pos);
    if (pos >= text.length) break;
    const eq = text.indexOf('=', pos);
    if (eq === -1) return undefined;
    const name = text.slice(pos, eq).trim().toLowerCase();
    if (!/^[a-z0-9_-]+$/.test(name)) return undefined;
    pos = skipWhitespace(text, eq + 1);
    let value: string;
    if (text[pos] === '"') {
      try {
        const quoted = readQuotedString(text, pos);
        value = quoted.value;
        pos = quoted.end;
      } catch {
        return undefined;
      }
    } else {
      const end = text.indexOf(',', pos);
      value = (end === -1 ? text.slice(pos) : text.slice(pos, end)).trim();
      pos = end === -1 ? text.length : end;
    }
    // A repeated parameter is ambiguous input; refuse it rather than guess which one counts.
    if (params.has(name)) return undefined;
    params.set(name, value);
    pos = skipWhitespace(text, pos);
    if (pos >= text.length) break;
    if (text[pos] !== ',') return undefined;
    pos++;
  }
  return params;
}

function hash(algorithm: DigestAlgorithm, text: string): string {
  // The one-shot form: no Hash object per digest (three per checked request).
  return oneShotHash(algorithm === 'MD5' ? 'md5' : 'sha256', text, 'hex');
}

export interface DigestInput {
  algorithm: DigestAlgorithm;
  username: string;
  realm: string;
  password: string;
  method: string;
  uri: string;
  nonce: string;
  qop?: 'auth' | undefined;
  nc?: number | undefined;
  cnonce?: string | undefined;
}

/** The 8-hex-digit form of a nonce-count (RFC 7616 §3.4). */
export function formatNonceCount(nc: number): string {
  return nc.toString(16).padStart(8, '0');
}

/**
 * request-digest (RFC 7616 §3.4.1; RFC 2617 §3.2.2.1 without qop):
 * KD(H(A1), nonce ":" nc ":" cnonce ":" qop ":" H(A2)) with A1 = user:realm:password, A2 = method:uri.
 */
export function computeDigestResponse(input: DigestInput): string {
  const ha1 = hash(input.algorithm, `${input.username}:${input.realm}:${input.password}`);
  const ha2 = hash(input.algorithm, `${input.method}:${input.uri}`);
  if (input.qop === 'auth') {
    if (input.nc === undefined || input.cnonce === undefined) throw new Error('qop=auth needs nc and cnonce');
    return hash(input.algorithm, `${ha1}:${input.nonce}:${formatNonceCount(input.nc)}:${input.cnonce}:auth:${ha2}`);
  }
  return hash(input.algorithm, `${ha1}:${input.nonce}:${ha2}`);
}

/** Compares two hex digests in time independent of where they differ. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}

/** Quotes a value for an auth-param (RFC 3261 §25.1 quoted-string; CR/LF never reach here). */
function quoteParam(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A `WWW-Authenticate` value (RFC 3261 §20.44, RFC 7616 §3.3). */
export function formatChallenge(options: {
  realm: string;
  nonce: string;
  algorithm: DigestAlgorithm;
  opaque?: string;
  stale?: boolean;
}): string {
  const parts = [`realm=${quoteParam(options.realm)}`, `nonce=${quoteParam(options.nonce)}`];
  if (options.opaque !== undefined) parts.push(`opaque=${quoteParam(options.opaque)}`);
  parts.push(`algorithm=${options.algorithm}`, 'qop="auth"');
  if (options.stale === true) parts.push('stale=true');
  return `Digest ${parts.join(', ')}`;
}

/**
 * The client side: an Authorization value answering `challenge` (used for outbound requests a
 * trunk challenges, and by the tests). Returns undefined when the challenge cannot be answered.
 */
export function answerChallenge(
  challenge: string,
  request: { method: string; uri: string },
  credentials: { username: string; password: string },
  nc = 1,
  cnonce = randomBytes(8).toString('hex'),
): string | undefined {
  const match = /^\s*digest\s+/i.exec(challenge);
  if (match === null) return undefined;
  const params = parseAuthParams(challenge, match[0].length);
  const realm = params?.get('realm');
  const nonce = params?.get('nonce');
  if (params === undefined || realm === undefined || nonce === undefined) return undefined;
  const algorithmText = (params.get('algorithm') ?? 'MD5').toUpperCase();
  if (algorithmText !== 'MD5' && algorithmText !== 'SHA-256') return undefined;
  const algorithm: DigestAlgorithm = algorithmText;
  const qops = (params.get('qop') ?? '').split(',').map((q) => q.trim().toLowerCase());
  const qop = qops.includes('auth') ? 'auth' : undefined;
  const response = computeDigestResponse({ algorithm, ...credentials, realm, nonce, ...request, qop, nc, cnonce });
  const parts = [
    `username=${quoteParam(credentials.username)}`,
    `realm=${quoteParam(realm)}`,
    `nonce=${quoteParam(nonce)}`,
    `uri=${quoteParam(request.uri)}`,
    `response=${quoteParam(response)}`,
    `algorithm=${algorithm}`,
  ];
  const opaque = params.get('opaque');
  if (opaque !== undefined) parts.push(`opaque=${quoteParam(opaque)}`);
  if (qop !== undefined) parts.push('qop=auth', `nc=${formatNonceCount(nc)}`, `cnonce=${quoteParam(cnonce)}`);
  return `Digest ${parts.join(', ')}`;
}

/** The parameters of a `Digest` challenge (names lower-cased); undefined for another scheme or bad syntax. */
export function readChallengeParams(challenge: string): Map<string, string> | undefined {
  const match = /^\s*digest\s+/i.exec(challenge);
  if (match === null) return undefined;
  return parseAuthParams(challenge, match[0].length);
}

export type NonceCheck =
  /** Ours, fresh, and this nonce-count was not seen before. */
  | 'valid'
  /** Ours but older than the lifetime: challenge again with stale=true. */
  | 'stale'
  /** Ours and fresh, but the nonce-count did not grow (or a qop-less nonce was used twice). */
  | 'replayed'
  /** Not a nonce we issued. */
  | 'invalid';

export interface NonceOptions {
  now(): number;
  /** How long a nonce may be used (ms). */
  lifetimeMs: number;
  /** Server secret for the HMAC; random per process when absent (nonces then die with the process). */
  secret?: Buffer;
  /**
   * The secret is shared by the nodes of a cluster (clusterNonceSecret): an authentic, fresh nonce
   * this process has no record of was issued by another node (a 401 from node A answered on node
   * B), and is accepted, its nonce-count recorded here from then on. Replays are then refused per
   * node only: a request captured on one node could be played once more to another within the
   * nonce's lifetime.
   */
  shared?: boolean;
  /** At most this many nonces are tracked for replay; the oldest are forgotten (and then refused as stale). */
  maxTracked?: number;
}

interface TrackedNonce {
  readonly issuedAt: number;
  /** The highest nonce-count used so far; MAX_SAFE_INTEGER once a qop-less nonce was used. */
  nc: number;
}

const ISSUED_AT_BYTES = 8;
const RANDOM_BYTES = 12;
const MAC_BYTES = 16;

/** The HKDF label of the nonce secret, so no other use of the cluster secret yields the same key. */
const CLUSTER_NONCE_LABEL = 'switchboard sip digest nonce';

/**
 * The nonce secret every node of a cluster derives alike from its shared `[cluster] secret`
 * (HKDF-SHA-256, RFC 5869, with a label of its own): a nonce one node issued verifies on another.
 */
export function clusterNonceSecret(clusterSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', clusterSecret, Buffer.alloc(0), CLUSTER_NONCE_LABEL, 32));
}

export class NonceManager {
  readonly #now: () => number;
  readonly #lifetimeMs: number;
  readonly #secret: Buffer;
  readonly #maxTracked: number;
  readonly #shared: boolean;
  /**
   * Live nonces: when each was issued and the highest nonce-count used with it (0: not used yet).
   * Insertion order = age. Only authentic nonces are ever keys, so a nonce found here needs no MAC
   * check, and the table is pruned by the issue time it keeps.
   */
  readonly #seen = new Map<string, TrackedNonce>();

  constructor(options: NonceOptions) {
    this.#now = options.now;
    this.#lifetimeMs = options.lifetimeMs;
    this.#secret = options.secret ?? randomBytes(32);
    this.#maxTracked = options.maxTracked ?? 50_000;
    this.#shared = options.shared === true;
  }

  issue(): string {
    const issuedAt = Math.max(0, Math.floor(this.#now()));
    const body = Buffer.alloc(ISSUED_AT_BYTES + RANDOM_BYTES);
    body.writeBigUInt64BE(BigInt(issuedAt), 0);
    fillRandom(body, ISSUED_AT_BYTES, RANDOM_BYTES);
    const mac = createHmac('sha256', this.#secret).update(body).digest().subarray(0, MAC_BYTES);
    const nonce = Buffer.concat([body, mac]).toString('base64url');
    this.#track(nonce, issuedAt);
    return nonce;
  }

  /** Starts the replay record of a nonce (nonce-count 0: not used yet), within the table's bound. */
  #track(nonce: string, issuedAt: number): void {
    this.#prune();
    this.#seen.set(nonce, { issuedAt, nc: 0 });
    while (this.#seen.size > this.#maxTracked) {
      const oldest = this.#seen.keys().next().value;
      if (oldest === undefined) break;
      this.#seen.delete(oldest);
    }
  }

  /**
   * Checks a nonce and, when it is valid, records the nonce-count as used. Call only after the
   * response digest was verified, so that a wrong password does not burn the nonce.
   */
  use(nonce: string, nc: number | undefined): NonceCheck {
    const issuedAt = this.#verify(nonce);
    if (issuedAt === undefined) return 'invalid';
    if (this.#now() - issuedAt > this.#lifetimeMs) return 'stale';
    let record = this.#seen.get(nonce);
    if (record === undefined && this.#shared) {
      // Issued by another node of the cluster: its replay record starts here.
      this.#track(nonce, issuedAt);
      record = this.#seen.get(nonce);
    }
    // Authentic and fresh but forgotten (the table overflowed, or the process restarted with a
    // configured secret): no replay record exists, so ask for a new nonce.
    if (record === undefined) return 'stale';
    if (nc === undefined) {
      // RFC 2617 §3.2.2 without qop there is no counter; one use per nonce stops replays.
      if (record.nc !== 0) return 'replayed';
      record.nc = Number.MAX_SAFE_INTEGER;
      return 'valid';
    }
    if (nc <= record.nc) return 'replayed';
    record.nc = nc;
    return 'valid';
  }

  /** Whether this is a nonce we issued (authentic, whatever its age). */
  isOurs(nonce: string): boolean {
    return this.#verify(nonce) !== undefined;
  }

  /** When a nonce of ours was issued; undefined when we did not issue it. */
  #verify(nonce: string): number | undefined {
    const tracked = this.#seen.get(nonce);
    if (tracked !== undefined) return tracked.issuedAt;
    if (nonce.length > 64) return undefined;
    const raw = Buffer.from(nonce, 'base64url');
    if (raw.length !== ISSUED_AT_BYTES + RANDOM_BYTES + MAC_BYTES || raw.toString('base64url') !== nonce) return undefined;
    const body = raw.subarray(0, ISSUED_AT_BYTES + RANDOM_BYTES);
    const mac = createHmac('sha256', this.#secret).update(body).digest().subarray(0, MAC_BYTES);
    if (!timingSafeEqual(mac, raw.subarray(ISSUED_AT_BYTES + RANDOM_BYTES))) return undefined;
    return Number(raw.readBigUInt64BE(0));
  }

  /** Forgets nonces past their lifetime: they are refused as stale by the timestamp alone. */
  #prune(): void {
    const horizon = this.#now() - this.#lifetimeMs;
    for (const [nonce, record] of this.#seen) {
      if (record.issuedAt >= horizon) break;
      this.#seen.delete(nonce);
    }
  }
}

/**
 * Digest authentication of requests from endpoints with `auth=` (RFC 3261 §22.2, §22.4; RFC 7616;
 * RFC 8760), as an `InboundAuthenticator` in the driver's chain (after identification by address).
 *
 * Which endpoint a request claims to be is read from the From user (REGISTER: the To user names the
 * AOR, the From user the endpoint, and phones put the same name in both): the endpoint of that name,
 * else the endpoint whose auth has that username. The digest must then be computed with that auth's
 * username and password. Every way of failing — unknown user, wrong password, foreign nonce, wrong
 * username for the endpoint — gets the same fresh 401 challenge, so the answer never tells whether a
 * user exists. A correct response with an expired nonce gets `stale=true` (RFC 7616 §3.3).
 *
 * Failures are counted per source address; past the limit the address is refused with 403 for a
 * cool-off, and each failure is logged as a security event.
 */
import type { Clock, Logger, SipAuthConfig, SipEndpointConfig } from '@switchboard/core';
import { SipParseError } from '../../errors.js';
import type { SipRequest } from '../../message/sip-message.js';
import { parseUri } from '../../message/uri.js';
import type { PeerAddress } from '../../transport/transport.js';
import {
  computeDigestResponse,
  type DigestAlgorithm,
  type DigestCredentials,
  digestsEqual,
  formatChallenge,
  NonceManager,
  parseDigestCredentials,
} from './digest.js';
import type { AuthOutcome, InboundAuthenticator } from './identify.js';

export interface AuthFailureLimits {
  /** Failures from one address within `windowMs` that start a cool-off. Default 10. */
  maxFailures: number;
  /** Default 60 s. */
  windowMs: number;
  /** How long the address is refused. Default 5 min. */
  blockMs: number;
  /** Addresses tracked at most (oldest forgotten first), so a spray of sources cannot grow memory. Default 10,000. */
  maxTrackedAddresses: number;
}

export const DEFAULT_AUTH_FAILURE_LIMITS: Readonly<AuthFailureLimits> = Object.freeze({
  maxFailures: 10,
  windowMs: 60_000,
  blockMs: 300_000,
  maxTrackedAddresses: 10_000,
});

/** Counts failed authentications per source address in a sliding window. */
export class AuthFailureLimiter {
  readonly #limits: AuthFailureLimits;
  readonly #now: () => number;
  /** Failure times per address (oldest first), and until when an address is blocked. */
  readonly #failures = new Map<string, number[]>();
  readonly #blockedUntil = new Map<string, number>();

  constructor(now: () => number, limits: Partial<AuthFailureLimits> = {}) {
    this.#now = now;
    this.#limits = { ...DEFAULT_AUTH_FAILURE_LIMITS, ...limits };
  }

  isBlocked(address: string): boolean {
    const until = this.#blockedUntil.get(address);
    if (until === undefined) return false;
    if (this.#now() < until) return true;
    this.#blockedUntil.delete(address);
    return false;
  }

  /** Records a failure; returns true when this failure started a cool-off. */
  recordFailure(address: string): boolean {
    const now = this.#now();
    const horizon = now - this.#limits.windowMs;
    const times = (this.#failures.get(address) ?? []).filter((t) => t > horizon);
    times.push(now);
    // Re-inserting keeps the map in least-recently-failed order for the bound below.
    this.#failures.delete(address);
    this.#failures.set(address, times);
    while (this.#failures.size > this.#limits.maxTrackedAddresses) {
      const oldest = this.#failures.keys().next().value;
      if (oldest === undefined) break;
      this.#failures.delete(oldest);
    }
    if (times.length < this.#limits.maxFailures) return false;
    this.#failures.delete(address);
    this.#blockedUntil.set(address, now + this.#limits.blockMs);
    while (this.#blockedUntil.size > this.#limits.maxTrackedAddresses) {
      const oldest = this.#blockedUntil.keys().next().value;
      if (oldest === undefined) break;
      this.#blockedUntil.delete(oldest);
    }
    return true;
  }
}

export interface DigestAuthenticatorOptions {
  endpoints: readonly SipEndpointConfig[];
  auths: readonly SipAuthConfig[];
  clock: Clock;
  logger: Logger;
  /** Realm for auths without their own `realm` and for unknown users. Default `switchboard`. */
  realm?: string;
  /** How long a nonce may be used. Default 30 s (Asterisk's nonce_lifetime is 32 s). */
  nonceLifetimeMs?: number;
  /** Methods that are challenged; others pass to the next authenticator. Default INVITE, REGISTER, MESSAGE, SUBSCRIBE, REFER. */
  methods?: readonly string[];
  limits?: Partial<AuthFailureLimits>;
  /** HMAC secret for nonces (random per process when absent). */
  nonceSecret?: Buffer;
  /**
   * Challenges sent, one WWW-Authenticate each, in this order. Default MD5 then SHA-256: RFC 8760
   * §2.4 wants the preferred one first, but many deployed phones (and sipp) read only the first
   * challenge and know only MD5, so SHA-256 first would lock them out. Put SHA-256 first (or alone)
   * when every phone supports it.
   */
  algorithms?: readonly DigestAlgorithm[];
}

interface Candidate {
  endpoint: SipEndpointConfig;
  auth: SipAuthConfig;
  realm: string;
}

/**
 * The digest-uri names the Request-URI: equal as written, or (as several clients write it, sipp
 * among them) the same SIP host and port without the user part. Anything else is refused: the
 * credentials were computed for another target.
 */
export function digestUriMatches(digestUri: string, request: SipRequest): boolean {
  if (digestUri === request.requestUri) return true;
  let written: ReturnType<typeof parseUri>;
  let target: ReturnType<typeof parseUri>;
  try {
    written = parseUri(digestUri);
    target = request.uri;
  } catch (err) {
    if (err instanceof SipParseError) return false;
    throw err;
  }
  if (written.kind !== 'sip' || target.kind !== 'sip') return false;
  if (written.user !== undefined && written.user !== target.user) return false;
  return written.scheme === target.scheme && written.host === target.host && (written.port ?? 5060) === (target.port ?? 5060);
}

const DEFAULT_METHODS = ['INVITE', 'REGISTER', 'MESSAGE', 'SUBSCRIBE', 'REFER'];
const DEFAULT_ALGORITHMS: readonly DigestAlgorithm[] = ['MD5', 'SHA-256'];

export class DigestAuthenticator implements InboundAuthenticator {
  readonly #byEndpoint = new Map<string, Candidate>();
  readonly #byUsername = new Map<string, Candidate>();
  readonly #realm: string;
  readonly #nonces: NonceManager;
  readonly #limiter: AuthFailureLimiter;
  readonly #methods: ReadonlySet<string>;
  readonly #log: Logger;
  readonly #algorithms: readonly DigestAlgorithm[];

  constructor(options: DigestAuthenticatorOptions) {
    this.#realm = options.realm ?? 'switchboard';
    this.#algorithms = options.algorithms !== undefined && options.algorithms.length > 0 ? options.algorithms : DEFAULT_ALGORITHMS;
    this.#log = options.logger;
    this.#methods = new Set(options.methods ?? DEFAULT_METHODS);
    const clock = options.clock;
    this.#nonces = new NonceManager({
      now: () => clock.now(),
      lifetimeMs: options.nonceLifetimeMs ?? 30_000,
      ...(options.nonceSecret !== undefined ? { secret: options.nonceSecret } : {}),
    });
    this.#limiter = new AuthFailureLimiter(() => clock.now(), options.limits);
    const auths = new Map(options.auths.map((auth) => [auth.name, auth]));
    for (const endpoint of options.endpoints) {
      if (endpoint.auth === undefined) continue;
      const auth = auths.get(endpoint.auth);
      if (auth === undefined) {
        options.logger.warn({ endpoint: endpoint.name, auth: endpoint.auth }, 'endpoint names an auth that is not configured');
        continue;
      }
      const candidate = { endpoint, auth, realm: auth.realm ?? this.#realm };
      this.#byEndpoint.set(endpoint.name, candidate);
      if (!this.#byUsername.has(auth.username)) this.#byUsername.set(auth.username, candidate);
    }
  }

  get limiter(): AuthFailureLimiter {
    return this.#limiter;
  }

  /** Whether this endpoint has an auth to check (an endpoint without one is accepted as identified). */
  hasAuth(endpoint: SipEndpointConfig): boolean {
    return this.#byEndpoint.has(endpoint.name);
  }

  /** The endpoint whose auth has this username (identify_by = auth_username). */
  endpointForUsername(username: string): SipEndpointConfig | undefined {
    return this.#byUsername.get(username)?.endpoint;
  }

  /**
   * Checks the request's credentials. `as` is the endpoint an identifier already chose (its auth
   * is checked); `null` means no endpoint was identified (every answer is a challenge or a
   * failure); absent, the From user names the endpoint.
   */
  authenticate(request: SipRequest, source: PeerAddress, as?: SipEndpointConfig | null): AuthOutcome {
    if (!this.#methods.has(request.method)) return { kind: 'continue' };
    const address = source.address;
    if (this.#limiter.isBlocked(address)) {
      this.#log.debug({ securityEvent: 'auth_blocked', address, method: request.method }, 'request from a blocked address refused');
      return { kind: 'reject', status: 403 };
    }
    const claimed = as === null ? this.#claimedUser(request) : (as?.name ?? this.#claimedUser(request));
    const candidate =
      as === null
        ? undefined
        : as !== undefined
          ? this.#byEndpoint.get(as.name)
          : claimed === undefined
            ? undefined
            : (this.#byEndpoint.get(claimed) ?? this.#byUsername.get(claimed));
    const realm = candidate?.realm ?? this.#realm;

    const credentials = this.#credentialsFor(request, realm);
    if (credentials === undefined) return this.#challenge(realm, false);

    // Only an algorithm we offered counts: a client may not fall back to one the operator left out.
    if (
      candidate === undefined ||
      credentials.username !== candidate.auth.username ||
      !this.#algorithms.includes(credentials.algorithm) ||
      !this.#nonces.isOurs(credentials.nonce)
    ) {
      return this.#fail(request, source, claimed, realm);
    }
    // RFC 7616 §3.4.6: the digest-uri must name the resource of the request.
    if (!digestUriMatches(credentials.uri, request)) {
      this.#log.info({ address, uri: credentials.uri, requestUri: request.requestUri }, 'digest uri does not match the Request-URI');
      return { kind: 'reject', status: 400, reason: 'Bad Request' };
    }
    const expected = computeDigestResponse({
      algorithm: credentials.algorithm,
      username: candidate.auth.username,
      realm,
      password: candidate.auth.password,
      method: request.method,
      uri: credentials.uri,
      nonce: credentials.nonce,
      qop: credentials.qop,
      nc: credentials.nc,
      cnonce: credentials.cnonce,
    });
    if (!digestsEqual(expected, credentials.response)) return this.#fail(request, source, claimed, realm);

    switch (this.#nonces.use(credentials.nonce, credentials.nc)) {
      case 'valid':
        return { kind: 'accept', endpoint: candidate.endpoint };
      case 'stale':
        // The client knew the password: only the nonce is old, so it may retry silently.
        return this.#challenge(realm, true);
      case 'replayed':
        this.#log.warn(
          { securityEvent: 'auth_replay', address, endpoint: candidate.endpoint.name, method: request.method },
          'digest nonce-count replayed',
        );
        return this.#fail(request, source, claimed, realm);
      case 'invalid':
        return this.#fail(request, source, claimed, realm);
    }
  }

  /** The From user (the endpoint the request claims to come from). */
  #claimedUser(request: SipRequest): string | undefined {
    const uri = request.from.uri;
    return uri.kind === 'sip' ? uri.user : undefined;
  }

  /** The Authorization value for our realm (RFC 3261 §22.4: a request may carry one per realm). */
  #credentialsFor(request: SipRequest, realm: string): DigestCredentials | undefined {
    for (const value of request.getHeaderFields('Authorization')) {
      const credentials = parseDigestCredentials(value);
      if (credentials !== undefined && credentials.realm === realm) return credentials;
    }
    return undefined;
  }

  #fail(request: SipRequest, source: PeerAddress, claimed: string | undefined, realm: string): AuthOutcome {
    const address = source.address;
    this.#log.warn(
      { securityEvent: 'auth_failed', address, port: source.port, method: request.method, username: claimed },
      'authentication failed',
    );
    if (this.#limiter.recordFailure(address)) {
      this.#log.warn({ securityEvent: 'auth_blocked', address }, 'too many failed authentications; address refused for a cool-off');
      return { kind: 'reject', status: 403 };
    }
    return this.#challenge(realm, false);
  }

  /** 401 with one WWW-Authenticate per algorithm, sharing one nonce (RFC 8760 §2.4). */
  #challenge(realm: string, stale: boolean): AuthOutcome {
    const nonce = this.#nonces.issue();
    return {
      kind: 'reject',
      status: 401,
      headers: this.#algorithms.map((algorithm) => ['WWW-Authenticate', formatChallenge({ realm, nonce, algorithm, stale })] as const),
    };
  }
}

/**
 * Who is calling (reference README §4, SPEC §5): HTTP Basic first; without a Basic header, the
 * `api_key=user:password` query parameter. The same check guards REST, api-docs and the events
 * WebSocket upgrade. Users come from ari.conf and are read per request, so a reload takes effect.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiDialect, AriUser } from '@switchboard/core';
import { ApiError } from './api-error.js';

export const AUTH_REALM = 'Switchboard';

export interface Credentials {
  readonly user: string;
  readonly password: string;
}

export interface AuthenticatedUser {
  readonly name: string;
  readonly readOnly: boolean;
  /** The naming the user's requests and events are served in (ari.conf `dialect`). */
  readonly dialect: ApiDialect;
}

export const authenticationRequired = () =>
  new ApiError(401, 'Authentication required', { 'WWW-Authenticate': `Basic realm="${AUTH_REALM}"` });

export const writeAccessDenied = () => new ApiError(403, 'Write access denied');

/** Methods a read-only user may use. */
const READ_METHODS = new Set(['GET', 'OPTIONS']);

export function credentialsFrom(authorization: string | undefined, apiKey: string | undefined): Credentials | undefined {
  const basic = /^Basic\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (basic) return splitPair(Buffer.from(basic[1] as string, 'base64').toString('utf8'));
  return apiKey === undefined ? undefined : splitPair(apiKey);
}

/** `user:password`, split at the first colon; an empty password is not a credential. */
function splitPair(pair: string): Credentials | undefined {
  const colon = pair.indexOf(':');
  if (colon < 0) return undefined;
  const credentials = { user: pair.slice(0, colon), password: pair.slice(colon + 1) };
  return credentials.password === '' ? undefined : credentials;
}

/**
 * Returns the user or throws 401. Passwords are compared through fixed-length digests in constant
 * time so neither their content nor their length shows in the response time. Users configured
 * with `crypt` passwords cannot log in (that format is not supported; the server warns at start).
 */
export function authenticate(users: readonly AriUser[], credentials: Credentials | undefined): AuthenticatedUser {
  if (!credentials) throw authenticationRequired();
  const found = users.find((u) => u.name === credentials.user);
  const user = found?.passwordFormat === 'plain' ? found : undefined;
  const matches = timingSafeEqual(digest(user?.password ?? ''), digest(credentials.password));
  if (!user || !matches) throw authenticationRequired();
  return { name: user.name, readOnly: user.readOnly, dialect: user.dialect };
}

export function authorize(user: AuthenticatedUser, method: string): void {
  if (user.readOnly && !READ_METHODS.has(method)) throw writeAccessDenied();
}

/**
 * An events connection registers its applications, replacing any other connection serving them
 * (ApplicationReplaced): that is control, not reading, so a read-only user may not open one.
 */
export function authorizeEventsConnection(user: AuthenticatedUser): void {
  if (user.readOnly) throw new ApiError(403, 'Read-only users may not register applications');
}

/** The cluster's shared secret as shown by a node, compared in constant time (digests of equal length). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The name failed node-to-node logins are logged under. */
export const CLUSTER_PEER_USER = 'cluster-peer';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

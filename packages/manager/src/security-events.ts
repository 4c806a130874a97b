/**
 * Security events of the original (read class `security`) for manager logins: who tried, from
 * where, and why it failed. Addresses take the original's `IPV4/TCP/127.0.0.1/5038` form.
 */
import { isIP } from 'node:net';
import { normalizeAddress } from './acl.js';
import type { ManagerEvent } from './fields.js';
import type { ManagerSession } from './session.js';
import type { Field } from './wire.js';

export type SecurityEventName = 'InvalidAccountID' | 'InvalidPassword' | 'ChallengeResponseFailed' | 'FailedACL' | 'SuccessfulAuth';

function address(session: ManagerSession, local: boolean): string {
  const ip = normalizeAddress(local ? session.localAddress : session.remoteAddress);
  const family = isIP(ip) === 6 ? 'IPV6' : 'IPV4';
  return `${family}/${session.tls ? 'TLS' : 'TCP'}/${ip}/${local ? session.localPort : session.remotePort}`;
}

function tv(ms: number): string {
  return new Date(ms).toISOString();
}

export function securityEvent(name: SecurityEventName, session: ManagerSession, accountId: string, extra: Field[] = []): ManagerEvent {
  return {
    name,
    classes: ['security'],
    fields: [
      ['EventTV', tv(Date.now())],
      ['Severity', name === 'SuccessfulAuth' ? 'Informational' : 'Error'],
      ['Service', 'AMI'],
      ['EventVersion', '1'],
      ['AccountID', accountId],
      ['SessionID', session.id],
      ['LocalAddress', address(session, true)],
      ['RemoteAddress', address(session, false)],
      ['SessionTV', tv(session.connectedAt)],
      ...extra,
    ],
  };
}

/**
 * Security events in the text the original writes to its `security` log channel, so that
 * fail2ban's stock `asterisk` filter bans the addresses without a custom filter:
 *
 *   [2026-11-24 03:50:00] SECURITY[4242] res_pjsip: Request 'REGISTER' from '<sip:alice@192.0.2.7>'
 *     failed for '192.0.2.7:5060' (callid: ) - Failed to authenticate          (one line)
 *   … - No matching endpoint found            (the user named no endpoint or auth of ours)
 *   [..] SECURITY[4242] res_security_log: SecurityEvent="FailedACL",…,RemoteAddress="IPV4/UDP/192.0.2.7/5060",ACLName="auth_failure_lockout"
 *
 * The signalling layer logs each event with a `securityEvent` field (auth_failed, auth_replay,
 * auth_blocked); this module turns such a record into its line.
 */
import { isIP } from 'node:net';

export interface SecurityRecord {
  securityEvent: string;
  address?: string;
  port?: number;
  method?: string;
  username?: string;
  callId?: string;
  time?: number;
}

/** `[%F %T]` in local time: the timestamp fail2ban's default date pattern reads. */
export function logTimestamp(time: Date): string {
  const pad = (v: number) => String(v).padStart(2, '0');
  return `[${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())} ${pad(time.getHours())}:${pad(time.getMinutes())}:${pad(time.getSeconds())}]`;
}

export function isSecurityRecord(record: Record<string, unknown>): record is Record<string, unknown> & SecurityRecord {
  return typeof record.securityEvent === 'string';
}

/**
 * The line for one security record, or undefined for an event kind fail2ban has no use for.
 * `knownUser` tells whether a From user names one of our endpoints or auth usernames.
 */
export function formatSecurityLine(record: SecurityRecord, knownUser: (name: string) => boolean, pid = process.pid): string | undefined {
  const address = record.address;
  if (address === undefined || isIP(address) === 0) return undefined;
  const stamp = logTimestamp(new Date(record.time ?? Date.now()));
  const port = record.port ?? 0;
  const user = record.username ?? '';
  const family = isIP(address) === 6 ? 'IPV6' : 'IPV4';
  switch (record.securityEvent) {
    case 'auth_failed':
    case 'auth_replay': {
      const reason = user !== '' && !knownUser(user) ? 'No matching endpoint found' : 'Failed to authenticate';
      const host = family === 'IPV6' ? `[${address}]` : address;
      return `${stamp} SECURITY[${pid}] res_pjsip: Request '${record.method ?? 'UNKNOWN'}' from '<sip:${user}@${host}>' failed for '${host}:${port}' (callid: ${record.callId ?? ''}) - ${reason}\n`;
    }
    case 'auth_blocked': {
      const tv = new Date(record.time ?? Date.now()).toISOString();
      return `${stamp} SECURITY[${pid}] res_security_log: SecurityEvent="FailedACL",EventTV="${tv}",Severity="Error",Service="PJSIP",EventVersion="1",AccountID="${user}",SessionID="",LocalAddress="${family}/UDP/0.0.0.0/0",RemoteAddress="${family}/UDP/${address}/${port}",ACLName="auth_failure_lockout"\n`;
    }
    default:
      return undefined;
  }
}

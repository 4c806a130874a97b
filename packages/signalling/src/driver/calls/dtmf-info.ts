/**
 * DTMF carried in SIP INFO requests inside a call's dialog (RFC 6086 INFO framework, with the two
 * de-facto body formats phones send instead of, or besides, RFC 4733 events):
 *
 *   application/dtmf-relay   Signal=5\r\nDuration=160       (Cisco/Asterisk style, key=value lines)
 *   application/dtmf         5                              (the digit alone)
 *
 * The body is hostile input: it is capped in size, only the 16 DTMF symbols are accepted, and a
 * duration outside 1..10000 ms falls back to the default. Signal=16 is the hook-flash event of the
 * RFC 4733 §3.2 table; it is not a digit and is ignored.
 */
import { createResponse } from '../../message/builders.js';
import type { SipRequest } from '../../message/sip-message.js';
import type { NonInviteServerTransaction } from '../../transaction/non-invite-server.js';

/** RFC 4733 event codes 0–15 as digits. */
const EVENT_DIGITS = '0123456789*#ABCD';
const DEFAULT_DURATION_MS = 100;
const MAX_INFO_BODY = 1024;

export interface InfoDigit {
  digit: string;
  durationMs: number;
}

/**
 * Reads a DTMF INFO body. Returns undefined for a body that is not DTMF (another INFO package);
 * `null` for a DTMF body that carries no usable digit.
 */
export function parseDtmfInfo(contentType: string | undefined, body: string): InfoDigit | null | undefined {
  const type = contentType?.toLowerCase();
  if (type !== 'application/dtmf-relay' && type !== 'application/dtmf') return undefined;
  if (body.length > MAX_INFO_BODY) return null;
  if (type === 'application/dtmf') return digitFrom(body.trim(), undefined);
  let signal: string | undefined;
  let duration: string | undefined;
  for (const line of body.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq === -1) continue;
    const key = line.slice(0, eq).trim().toLowerCase();
    const value = line.slice(eq + 1).trim();
    if (key === 'signal') signal = value;
    else if (key === 'duration') duration = value;
  }
  return signal === undefined ? null : digitFrom(signal, duration);
}

function digitFrom(signal: string, duration: string | undefined): InfoDigit | null {
  let digit: string | undefined;
  if (signal.length === 1 && EVENT_DIGITS.includes(signal.toUpperCase())) digit = signal.toUpperCase();
  else if (/^\d{1,2}$/.test(signal) && Number(signal) < 16) digit = EVENT_DIGITS[Number(signal)];
  if (digit === undefined) return null;
  const ms = duration !== undefined && /^\d{1,5}$/.test(duration) ? Number(duration) : Number.NaN;
  return { digit, durationMs: ms >= 1 && ms <= 10_000 ? ms : DEFAULT_DURATION_MS };
}

/**
 * Answers an INFO inside a call: 200 and the digit reported for a DTMF body; 415 for a body of a
 * type we do not read (RFC 6086 §4.2.2 would have the Info-Package decide; legacy INFO carries
 * none, so the Content-Type is all there is). An empty INFO is a keep-alive and gets 200.
 */
export function answerInfo(
  request: SipRequest,
  transaction: NonInviteServerTransaction,
  userAgent: string,
  onDigit: (digit: InfoDigit) => void,
): void {
  const respond = (status: number, headers: ReadonlyArray<readonly [string, string]> = []) =>
    transaction.respond(createResponse(request, status, { headers: [...headers, ['Server', userAgent]] }));
  if (request.body.length === 0) {
    respond(200);
    return;
  }
  const parsed = parseDtmfInfo(request.contentType, request.bodyText);
  if (parsed === undefined) {
    respond(415, [['Accept', 'application/dtmf-relay, application/dtmf']]);
    return;
  }
  respond(200);
  if (parsed !== null) onDigit(parsed);
}

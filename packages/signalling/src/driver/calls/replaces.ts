/**
 * The Replaces header (RFC 3891): which dialog a new call takes the place of. It arrives in an
 * INVITE (§3), or inside a REFER's Refer-To URI as an escaped header (`?Replaces=...`, RFC 3891
 * §4, RFC 5589 §7) when a phone asks for an attended transfer.
 *
 *   Replaces = callid *(SEMI replaces-param)
 *   replaces-param = to-tag / from-tag / early-flag / generic-param     (§6.1)
 *
 * The tags are seen from the side that receives the Replaces: `to-tag` is its local tag and
 * `from-tag` the remote one (§3).
 */
import type { SipUri } from '../../message/uri.js';

export interface ReplacesTarget {
  callId: string;
  toTag: string;
  fromTag: string;
  /** `early-only`: replace the dialog only while it is still early (§6.1). */
  earlyOnly: boolean;
}

/** The identity of one of our dialogs, as we see it. */
export interface DialogIdentity {
  callId: string;
  localTag: string;
  remoteTag: string;
}

/** Parses a Replaces header value; undefined when it lacks the Call-ID or one of the tags (§6.1). */
export function parseReplaces(value: string): ReplacesTarget | undefined {
  const parts = value.split(';').map((part) => part.trim());
  const callId = parts[0];
  if (callId === undefined || callId === '' || /\s/.test(callId)) return undefined;
  let toTag: string | undefined;
  let fromTag: string | undefined;
  let earlyOnly = false;
  for (const part of parts.slice(1)) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    const raw = eq === -1 ? undefined : part.slice(eq + 1).trim();
    if (name === 'to-tag') toTag = raw;
    else if (name === 'from-tag') fromTag = raw;
    else if (name === 'early-only') earlyOnly = true;
  }
  if (toTag === undefined || toTag === '' || fromTag === undefined || fromTag === '') return undefined;
  return { callId, toTag, fromTag, earlyOnly };
}

/** What the `Replaces` header of a Refer-To URI asks: none, one (parsed), or an unusable one. */
export type ReferToReplaces = { kind: 'none' } | { kind: 'replaces'; target: ReplacesTarget } | { kind: 'malformed' };

/**
 * Reads the `Replaces` header of a Refer-To URI (`sip:bob@host?Replaces=id%3Bto-tag%3Da%3Bfrom-tag%3Db`).
 * URI headers are `hname=hvalue` pairs joined by `&`, each percent-escaped (RFC 3261 §19.1.1).
 */
export function replacesFromUri(uri: SipUri): ReferToReplaces {
  if (uri.headers === undefined) return { kind: 'none' };
  for (const pair of uri.headers.split('&')) {
    const eq = pair.indexOf('=');
    if (eq === -1) continue;
    if (safeDecode(pair.slice(0, eq))?.toLowerCase() !== 'replaces') continue;
    const value = safeDecode(pair.slice(eq + 1));
    const target = value === undefined ? undefined : parseReplaces(value);
    return target === undefined ? { kind: 'malformed' } : { kind: 'replaces', target };
  }
  return { kind: 'none' };
}

/** §3: the Call-ID and both tags must match, the to-tag being our local tag. */
export function replacesMatches(target: ReplacesTarget, dialog: DialogIdentity): boolean {
  return target.callId === dialog.callId && target.toTag === dialog.localTag && target.fromTag === dialog.remoteTag;
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** What an INVITE's Replaces headers lead to (RFC 3891 §3). */
export type ReplacesCheck<T> = { kind: 'none' } | { kind: 'replace'; call: T } | { kind: 'refuse'; status: number; reason: string };

/**
 * RFC 3891 §3 for an incoming INVITE: more than one Replaces or a malformed one → 400; no
 * confirmed dialog of ours matches → 481 (early dialogs are not taken over: no call pickup);
 * `early-only` naming a confirmed dialog → 486.
 */
export function checkReplaces<T>(values: readonly string[], findConfirmed: (target: ReplacesTarget) => T | undefined): ReplacesCheck<T> {
  if (values.length === 0) return { kind: 'none' };
  const target = values.length === 1 && values[0] !== undefined ? parseReplaces(values[0]) : undefined;
  if (target === undefined) return { kind: 'refuse', status: 400, reason: 'Bad Replaces' };
  const call = findConfirmed(target);
  if (call === undefined) return { kind: 'refuse', status: 481, reason: 'Call/Transaction Does Not Exist' };
  if (target.earlyOnly) return { kind: 'refuse', status: 486, reason: 'Busy Here' };
  return { kind: 'replace', call };
}

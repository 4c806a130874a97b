/**
 * Session timers for calls we place (RFC 4028, the UAC side), after the endpoint's `timers`,
 * `timers_min_se` and `timers_sess_expires`:
 *
 * - the INVITE says `Supported: timer` and proposes `Session-Expires` (no refresher: the UAS picks,
 *   §7.1) with our `Min-SE`; `required` adds `Require: timer` (a callee without timers refuses
 *   with 420);
 * - a 422 names the smallest interval the far end takes (its Min-SE): the INVITE is sent again with
 *   that interval, once (§7.4);
 * - the 2xx says who refreshes (§7.2): `refresher=uac` is us (re-INVITE or UPDATE at half the
 *   interval, session-timer.ts), `uas` the callee (the call ends if no refresh arrives in time). A 2xx
 *   without Session-Expires means the callee does not do timers: none run, except with `always`,
 *   where we refresh ourselves.
 */
import type { SipEndpointConfig } from '@switchboard/core';
import type { SipRequest, SipResponse } from '../../message/sip-message.js';
import { MIN_SE } from './session-timer.js';

export const DEFAULT_SESSION_EXPIRES = 1800;

export interface TimerPolicy {
  mode: 'no' | 'yes' | 'required' | 'always';
  minSe: number;
  sessionExpires: number;
}

export interface AgreedTimer {
  interval: number;
  localRefresher: boolean;
}

export function timerPolicy(endpoint: SipEndpointConfig): TimerPolicy {
  const minSe = Math.max(MIN_SE, endpoint.timersMinSe ?? MIN_SE);
  return {
    mode: endpoint.timers ?? 'yes',
    minSe,
    sessionExpires: Math.max(minSe, endpoint.timersSessExpires ?? DEFAULT_SESSION_EXPIRES),
  };
}

/** The session timer headers of an initial INVITE proposing `interval` seconds (§7.1). */
export function inviteTimerHeaders(policy: TimerPolicy, interval: number): Array<[string, string]> {
  if (policy.mode === 'no') return [];
  const headers: Array<[string, string]> = [
    ['Supported', 'timer'],
    ['Session-Expires', String(interval)],
    ['Min-SE', String(policy.minSe)],
  ];
  if (policy.mode === 'required') headers.push(['Require', 'timer']);
  return headers;
}

/** The interval a 422 asks for (its Min-SE), if it is larger than what we proposed (§7.4). */
export function intervalAfter422(response: SipResponse, proposed: number): number | undefined {
  const value = response.getHeader('Min-SE')?.split(';')[0]?.trim();
  if (value === undefined || !/^\d{1,9}$/.test(value)) return undefined;
  const minSe = Number(value);
  return minSe > proposed ? minSe : undefined;
}

/** Sets the Session-Expires and Min-SE of an INVITE being sent again after a 422. */
export function applyInterval(request: SipRequest, interval: number): void {
  request.setHeader('Session-Expires', String(interval));
  request.setHeader('Min-SE', String(interval));
}

/** What the 2xx to our INVITE agreed (§7.2); undefined: no session timer runs. */
export function readTimerAnswer(response: SipResponse, policy: TimerPolicy, proposed: number): AgreedTimer | undefined {
  if (policy.mode === 'no') return undefined;
  const value = response.getHeader('Session-Expires');
  if (value === undefined) return policy.mode === 'always' ? { interval: proposed, localRefresher: true } : undefined;
  const [delta = '', ...params] = value.split(';').map((p) => p.trim());
  if (!/^\d{1,9}$/.test(delta)) return policy.mode === 'always' ? { interval: proposed, localRefresher: true } : undefined;
  // A UAS may lower the interval, never below our Min-SE (§9); a smaller one is raised to it.
  const interval = Math.max(policy.minSe, Number(delta));
  const refresher = params
    .find((p) => p.toLowerCase().startsWith('refresher='))
    ?.slice('refresher='.length)
    .toLowerCase();
  return { interval, localRefresher: refresher !== 'uas' };
}

/** The headers of a refresh we send as the UAC of the dialog (§7.4: the same refresher, us). */
export function refreshHeaders(policy: TimerPolicy, interval: number): Array<[string, string]> {
  return [
    ['Session-Expires', `${interval};refresher=uac`],
    ['Min-SE', String(policy.minSe)],
    ['Supported', 'timer'],
  ];
}

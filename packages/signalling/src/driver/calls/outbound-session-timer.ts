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
import { MIN_SE, readSessionTimer, type SessionTimer } from './session-timer.js';

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

/**
 * The session timer of one call we place: the policy (its Min-SE raised by a 422), the interval we
 * propose, and what the callee's 2xx agreed. The timer itself (session-timer.ts) is the call core's.
 */
export class OutboundSessionTimer {
  readonly #timer: SessionTimer;
  #policy: TimerPolicy;
  #proposed: number;
  /** The callee's 2xx listed UPDATE in Allow: refreshes go as UPDATE, else as re-INVITE. */
  #peerAllowsUpdate = false;

  constructor(endpoint: SipEndpointConfig, timer: SessionTimer) {
    this.#timer = timer;
    this.#policy = timerPolicy(endpoint);
    this.#proposed = this.#policy.sessionExpires;
  }

  get peerAllowsUpdate(): boolean {
    return this.#peerAllowsUpdate;
  }

  /** The session timer headers of our INVITE (§7.1). */
  inviteHeaders(): Array<[string, string]> {
    return inviteTimerHeaders(this.#policy, this.#proposed);
  }

  /**
   * §7.4: a 422 names the far end's Min-SE. Returns the interval to send the INVITE again with, and
   * makes it the floor from now on (our refreshes say so too); undefined when it cannot be heeded.
   */
  heed422(invite: SipRequest, response: SipResponse): number | undefined {
    if (this.#policy.mode === 'no') return undefined;
    const proposed = Number(invite.getHeader('Session-Expires') ?? this.#proposed);
    const interval = intervalAfter422(response, proposed);
    if (interval === undefined) return undefined;
    this.#proposed = Math.max(this.#proposed, interval);
    this.#policy = { ...this.#policy, minSe: Math.max(this.#policy.minSe, interval) };
    return interval;
  }

  /** §7.2: the 2xx says the interval and who refreshes; the timer runs if one was agreed. */
  answered(response: SipResponse): AgreedTimer | undefined {
    this.#peerAllowsUpdate = response.getHeaderList('Allow').some((method) => method.trim().toUpperCase() === 'UPDATE');
    const agreed = readTimerAnswer(response, this.#policy, this.#proposed);
    if (agreed !== undefined) this.#timer.run(agreed.interval, agreed.localRefresher);
    return agreed;
  }

  /** The headers of our refresh (§7.4). */
  refreshHeaders(interval: number): Array<[string, string]> {
    return refreshHeaders(this.#policy, interval);
  }

  /**
   * A re-INVITE or UPDATE from the callee refreshes the session (§7.4, §9): the timer restarts, and
   * our 2xx repeats the Session-Expires with the refresher it proposed (or theirs).
   */
  refreshedBy(request: SipRequest): Array<[string, string]> {
    const timer = this.#timer;
    if (!timer.running) return [];
    const offer = readSessionTimer(request);
    const current = timer.interval ?? this.#proposed;
    const interval = offer.kind === 'ok' ? Math.max(this.#policy.minSe, offer.interval) : current;
    // In-dialog, the callee is the UAC of its refresh: `refresher=uac` there means the callee.
    const theyRefresh = offer.kind !== 'ok' || offer.refresher === 'uac';
    timer.run(interval, !theyRefresh);
    const headers: Array<[string, string]> = [['Session-Expires', `${interval};refresher=${theyRefresh ? 'uac' : 'uas'}`]];
    // §9: Require: timer only towards a UAC that said it supports timers.
    if (offer.kind === 'ok' && offer.uacSupportsTimer) headers.push(['Require', 'timer']);
    return headers;
  }
}

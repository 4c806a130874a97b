/**
 * Session timers for calls we answer (RFC 4028), the UAS side. The caller's INVITE proposes an
 * interval (Session-Expires) and maybe a refresher; we take it if it is at least MIN_SE (else 422
 * with Min-SE, §9), choose the refresher it did not (`uac` when it supports timers, else `uas`),
 * and say so in the 2xx (with `Require: timer` when it supports them, §9).
 *
 * Then, on the injected clock:
 * - refresher `uas` (us): a refresh every interval/2 — an UPDATE without a body (§7.4 allows an
 *   offerless refresh), or a re-INVITE with the unchanged session for a phone that does not take
 *   UPDATE (inbound-call.ts); a refresh answered 408 or 481, or not at all, ends the call (§10).
 *   Any other refusal stops the refreshes without hanging up a working call.
 * - refresher `uac` (the phone): if no re-INVITE or UPDATE arrives before the interval minus
 *   min(32 s, interval/3) has passed, the session has expired and the call ends with a BYE (§10).
 * Every re-INVITE or UPDATE from the phone is a refresh: the timer restarts with the interval it
 * proposes (or the current one).
 *
 *   idle ──2xx sent──> running ──refresh──> running
 *                         │ expiry / failed refresh → ended (BYE); stop() → idle
 */
import type { Clock } from '@switchboard/core';
import type { SipRequest } from '../../message/sip-message.js';

/** The smallest interval we accept (RFC 4028 §4: Min-SE is at least 90 s). */
export const MIN_SE = 90;

export type Refresher = 'uac' | 'uas';

export type SessionTimerOffer =
  | { kind: 'none' }
  | { kind: 'malformed' }
  | { kind: 'too-small'; minSe: number }
  | { kind: 'ok'; interval: number; refresher: Refresher; uacSupportsTimer: boolean };

/**
 * Reads the Session-Expires, Min-SE and Supported of an INVITE or UPDATE (RFC 4028 §9); `ourMinSe`
 * is the endpoint's `timers_min_se` (never below MIN_SE).
 */
export function readSessionTimer(request: SipRequest, ourMinSe = MIN_SE): SessionTimerOffer {
  const value = request.getHeader('Session-Expires');
  if (value === undefined) return { kind: 'none' };
  const [delta = '', ...params] = value.split(';').map((p) => p.trim());
  if (!/^\d{1,9}$/.test(delta)) return { kind: 'malformed' };
  const interval = Number(delta);
  const minSeHeader = request.getHeader('Min-SE')?.split(';')[0]?.trim();
  const requestedMin = minSeHeader !== undefined && /^\d{1,9}$/.test(minSeHeader) ? Number(minSeHeader) : 0;
  const minSe = Math.max(MIN_SE, ourMinSe, requestedMin);
  if (interval < minSe) return { kind: 'too-small', minSe };
  const uacSupportsTimer = request
    .getHeaderList('Supported')
    .concat(request.getHeaderList('Require'))
    .some((tag) => tag.trim().toLowerCase() === 'timer');
  const param = params
    .find((p) => p.toLowerCase().startsWith('refresher='))
    ?.slice('refresher='.length)
    .toLowerCase();
  // §9: the UAS picks the refresher the UAC left open; only a UAC that supports timers can refresh.
  const refresher: Refresher = param === 'uac' && uacSupportsTimer ? 'uac' : param === 'uas' ? 'uas' : uacSupportsTimer ? 'uac' : 'uas';
  return { kind: 'ok', interval, refresher, uacSupportsTimer };
}

/** The headers of our 2xx for an accepted offer (§9). */
export function sessionTimerHeaders(offer: Extract<SessionTimerOffer, { kind: 'ok' }>): Array<[string, string]> {
  const headers: Array<[string, string]> = [['Session-Expires', `${offer.interval};refresher=${offer.refresher}`]];
  if (offer.uacSupportsTimer) headers.push(['Require', 'timer']);
  return headers;
}

export interface SessionTimerActions {
  /** Sends the refresh (an UPDATE or re-INVITE carrying Session-Expires); resolves with its final status (0: none came). */
  refresh(interval: number): Promise<number>;
  /** The session expired or could not be refreshed: end the call. */
  expired(): void;
}

/** A running timer: the interval, and whether we are the refresher. */
interface Running {
  interval: number;
  localRefresher: boolean;
}

export class SessionTimer {
  readonly #clock: Clock;
  readonly #actions: SessionTimerActions;
  #timer: unknown;
  #running: Running | undefined;
  #generation = 0;

  constructor(clock: Clock, actions: SessionTimerActions) {
    this.#clock = clock;
    this.#actions = actions;
  }

  get running(): boolean {
    return this.#running !== undefined;
  }

  /** The interval in force (seconds), if running. */
  get interval(): number | undefined {
    return this.#running?.interval;
  }

  /** Starts (or restarts, after a refresh from the phone) with the interval agreed as UAS. */
  start(offer: Extract<SessionTimerOffer, { kind: 'ok' }>): void {
    this.run(offer.interval, offer.refresher === 'uas');
  }

  /**
   * Starts (or restarts) with an interval and the refresher role: as refresher we refresh at half
   * the interval (§10); otherwise the session expires at interval − min(32, interval/3) unless the
   * far end refreshes it first.
   */
  run(interval: number, localRefresher: boolean): void {
    this.stop();
    this.#running = { interval, localRefresher };
    const generation = ++this.#generation;
    if (localRefresher) {
      this.#timer = this.#clock.setTimeout(() => void this.#refresh(generation), (interval * 1000) / 2);
    } else {
      const expiresMs = (interval - Math.min(32, interval / 3)) * 1000;
      this.#timer = this.#clock.setTimeout(() => this.#expire(generation), expiresMs);
    }
  }

  /** A refresh from the phone: same interval unless it proposed another. */
  refreshed(offer?: Extract<SessionTimerOffer, { kind: 'ok' }>): void {
    if (offer !== undefined) this.start(offer);
    else if (this.#running !== undefined) this.run(this.#running.interval, this.#running.localRefresher);
  }

  stop(): void {
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#running = undefined;
    this.#generation++;
  }

  async #refresh(generation: number): Promise<void> {
    const running = this.#running;
    if (running === undefined || generation !== this.#generation) return;
    const status = await this.#actions.refresh(running.interval);
    if (generation !== this.#generation) return;
    if (status >= 200 && status < 300) {
      this.run(running.interval, running.localRefresher);
      return;
    }
    if (status === 0 || status === 408 || status === 481) {
      // §10: no answer, 408 or 481 means the session is gone.
      this.#expire(generation);
      return;
    }
    // Any other failure (405/501 from a peer without UPDATE, 491, 5xx): the session stands, but we
    // cannot refresh it this way, so we stop trying rather than hang up a working call.
    this.stop();
  }

  #expire(generation: number): void {
    if (generation !== this.#generation) return;
    this.stop();
    this.#actions.expired();
  }
}

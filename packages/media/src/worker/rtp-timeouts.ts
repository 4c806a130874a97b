/**
 * The RTP timeouts of one worker's legs (pjsip.conf `rtp_timeout` and `rtp_timeout_hold`): a leg
 * armed with `setLegRtpTimeout` whose peer has sent nothing for that long is reported once with
 * `legRtpTimeout`, and the signalling hangs its call up.
 *
 * Nothing happens per packet for it: a leg counts what it receives anyway (RtpLeg.packetsHeard),
 * and a coarse timer compares that count with the one it saw at its last check. So a timeout is
 * noticed between `seconds` and `seconds` + one check interval after the last packet, which is
 * what once-a-second precision is worth for a call whose phone vanished.
 *
 * The count starts when the timeout is armed, and again whenever the leg's remote is set (the
 * first check that sees a new remote starts it): a call answered before the far end's media address
 * is known (an offer in the ACK) is not timed from its answer, and media moved by a re-INVITE gets
 * the whole timeout to arrive.
 */
import type { WorkerNotification } from '../protocol.js';

/** How often the armed legs are looked at. */
export const RTP_TIMEOUT_CHECK_MS = 1000;

/** The largest timeout accepted (a year, in seconds), as pjsip.conf accepts it. */
export const MAX_RTP_TIMEOUT_SECONDS = 31_536_000;

/** What the watch reads of a leg. */
export interface WatchedLeg {
  readonly id: string;
  /** Grows with every packet received from the peer. */
  readonly packetsHeard: number;
  /** Null until the leg knows where the peer's media is; a new object each time it is set. */
  readonly remote: object | null;
}

interface Watch {
  leg: WatchedLeg;
  limitMs: number;
  /** `packetsHeard` at the last check. */
  heard: number;
  /** The leg's remote at the last check: a new one (the media moved, or became known) restarts the count. */
  remote: object | null;
  /** When the count last moved (or the watch began, or the remote was still unknown). */
  quietSince: number;
}

export class RtpTimeouts {
  readonly #notify: (notification: WorkerNotification) => void;
  readonly #now: () => number;
  readonly #checkMs: number;
  readonly #watches = new Map<string, Watch>();
  #timer: NodeJS.Timeout | null = null;

  constructor(notify: (notification: WorkerNotification) => void, now: () => number, checkMs = RTP_TIMEOUT_CHECK_MS) {
    this.#notify = notify;
    this.#now = now;
    this.#checkMs = checkMs;
  }

  /** Arms the leg's timeout (the count starts now), or disarms it with 0. */
  set(leg: WatchedLeg, seconds: number): void {
    if (seconds === 0) {
      this.forget(leg.id);
      return;
    }
    this.#watches.set(leg.id, { leg, limitMs: seconds * 1000, heard: leg.packetsHeard, remote: leg.remote, quietSince: this.#now() });
    if (this.#timer === null) {
      this.#timer = setInterval(() => this.check(), this.#checkMs);
      // The worker's life is ended by `close`, never held up by this timer.
      this.#timer.unref();
    }
  }

  /** The leg is gone (or disarmed): nothing is reported for it. */
  forget(legId: string): void {
    this.#watches.delete(legId);
    if (this.#watches.size === 0) this.#stop();
  }

  get armed(): number {
    return this.#watches.size;
  }

  close(): void {
    this.#watches.clear();
    this.#stop();
  }

  /** One look at every armed leg (the timer's job; tests call it on their own clock). */
  check(): void {
    const now = this.#now();
    for (const [legId, watch] of this.#watches) {
      const { packetsHeard, remote } = watch.leg;
      // Something was heard, or the remote is still unknown or was just set: the count starts again.
      if (packetsHeard !== watch.heard || remote !== watch.remote || remote === null) {
        watch.heard = packetsHeard;
        watch.remote = remote;
        watch.quietSince = now;
        continue;
      }
      const quietMs = now - watch.quietSince;
      if (quietMs < watch.limitMs) continue;
      // Once: the signalling ends the call; a call that stays up must arm the timeout again.
      this.#watches.delete(legId);
      this.#notify({ type: 'legRtpTimeout', legId, seconds: Math.floor(quietMs / 1000) });
    }
    if (this.#watches.size === 0) this.#stop();
  }

  #stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}

/**
 * The early-media path of a Dial(): when a callee sends early media (183 Session Progress, or 180,
 * with SDP: RFC 3261 §13.2.1 allows the answer in a reliable or unreliable provisional response, and
 * RFC 3960 §3 describes gateway-model early media), the caller gets a 183 with our SDP and hears
 * the callee before anyone answers. Both media legs join a mixing bridge at once; on answer that
 * bridge simply becomes the call's bridge.
 *
 * As Asterisk's Dial does, the first callee with early media owns the path; later ones are not
 * heard. If another callee answers, the owner's leg leaves and the winner's joins the same bridge.
 * If the owner fails while others still ring, the path is free again for the next one.
 *
 *   idle ──open(owner)──> open ──handOver(winner)──> call bridge (caller owns it now)
 *                          │ ownerGone() → idle (bridge kept, caller still in it)
 *                          │ close() → destroyed
 */
import { randomUUID } from 'node:crypto';
import type { Channel, ChannelTechnology, Logger, MediaEngine } from '@switchboard/core';

/** A channel technology that can tell whether its far end sent early media (SDP in a 18x). */
export interface EarlyMediaSource {
  readonly hasEarlyMedia: boolean;
}

export function hasEarlyMedia(tech: ChannelTechnology): boolean {
  return (tech as Partial<EarlyMediaSource>).hasEarlyMedia === true;
}

export type EarlyMediaEngine = Pick<MediaEngine, 'createBridge' | 'joinBridge' | 'leaveBridge' | 'destroyBridge'>;

export class EarlyMediaPath {
  readonly #media: EarlyMediaEngine;
  readonly #log: Pick<Logger, 'debug' | 'error'>;
  readonly bridgeId = `dial-${randomUUID()}`;
  #created = false;
  #callerLeg: string | undefined;
  #owner: Channel | undefined;
  #ownerLeg: string | undefined;
  /** Bridge operations run one after another, so that an answer cannot overtake an open. */
  #chain: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(media: EarlyMediaEngine, log: Pick<Logger, 'debug' | 'error'>) {
    this.#media = media;
    this.#log = log;
  }

  /** The callee whose early media the caller hears, if any. */
  get owner(): Channel | undefined {
    return this.#owner;
  }

  /** Whether the caller's leg is in the bridge (early media flowed at some point). */
  get created(): boolean {
    return this.#created;
  }

  /**
   * The callee sent early media: if nobody owns the path yet, it takes it and both legs join.
   * Returns false when another callee already owns it (or a leg has no media).
   */
  open(caller: Channel, callee: Channel): boolean {
    if (this.#closed || this.#owner !== undefined) return false;
    const callerLeg = caller.tech.mediaLegId;
    const calleeLeg = callee.tech.mediaLegId;
    if (callerLeg === undefined || calleeLeg === undefined) return false;
    this.#owner = callee;
    this.#ownerLeg = calleeLeg;
    this.#enqueue(async () => {
      if (!this.#created) {
        await this.#media.createBridge({ bridgeId: this.bridgeId, kind: 'mixing' });
        this.#created = true;
      }
      if (this.#callerLeg === undefined) {
        await this.#media.joinBridge(this.bridgeId, callerLeg);
        this.#callerLeg = callerLeg;
      }
      await this.#media.joinBridge(this.bridgeId, calleeLeg);
    }, 'early media could not be bridged');
    return true;
  }

  /** The owner failed before answering: its leg leaves, and another callee may take the path. */
  ownerGone(callee: Channel): void {
    // After the hand-over the bridge is the answered call's, which cleans up after itself.
    if (this.#closed || this.#owner !== callee) return;
    const leg = this.#ownerLeg;
    this.#owner = undefined;
    this.#ownerLeg = undefined;
    // The failed callee's leg is usually destroyed already (which takes it out of the bridge).
    if (leg !== undefined) this.#enqueue(() => this.#media.leaveBridge(this.bridgeId, leg), 'early media leg already gone', 'debug');
  }

  /**
   * A callee answered: the bridge becomes the call's bridge with the caller and the winner in it.
   * Resolves with the bridge id, or undefined when no early media ever flowed (the caller then
   * builds its bridge as usual).
   */
  async handOver(winner: Channel): Promise<string | undefined> {
    await this.#chain;
    if (!this.#created || this.#closed) return undefined;
    const winnerLeg = winner.tech.mediaLegId;
    if (this.#owner !== winner) {
      const leg = this.#ownerLeg;
      if (leg !== undefined) await this.#media.leaveBridge(this.bridgeId, leg).catch(() => undefined);
      if (winnerLeg !== undefined) await this.#media.joinBridge(this.bridgeId, winnerLeg);
      this.#owner = winner;
      this.#ownerLeg = winnerLeg;
    }
    // From here the caller's Dial owns the bridge and destroys it when the call ends.
    this.#closed = true;
    return this.bridgeId;
  }

  /** Nobody answered: the bridge goes (its legs stay alive). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#chain;
    if (!this.#created) return;
    await this.#media.destroyBridge(this.bridgeId).catch((err: unknown) => this.#log.debug({ err }, 'early media bridge already gone'));
  }

  #enqueue(step: () => Promise<void>, failure: string, level: 'debug' | 'error' = 'error'): void {
    this.#chain = this.#chain.then(step).catch((err: unknown) => this.#log[level]({ err, bridgeId: this.bridgeId }, failure));
  }
}

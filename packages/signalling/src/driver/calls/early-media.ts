/**
 * The early-media path of a Dial(): when a callee sends early media (183 Session Progress, or 180,
 * with SDP: RFC 3261 §13.2.1 allows the answer in a reliable or unreliable provisional response, and
 * RFC 3960 §3 describes gateway-model early media), the caller gets a 183 with our SDP and hears
 * the callee before anyone answers. Both channels enter a Dial bridge (dial-bridges.ts) at once;
 * on answer that bridge simply becomes the call's bridge.
 *
 * As Asterisk's Dial does, the first callee with early media owns the path; later ones are not
 * heard. If another callee answers, the owner's leg leaves and the winner's joins the same bridge.
 * If the owner fails while others still ring, the path is free again for the next one.
 *
 *   idle ──open(owner)──> open ──handOver(winner)──> call bridge (caller owns it now)
 *                          │ ownerGone() → idle (bridge kept, caller still in it)
 *                          │ close() → destroyed
 */
import type { Channel, ChannelTechnology, Logger } from '@switchboard/core';
import type { DialBridges } from './dial-bridges.js';

/** A channel technology that can tell whether its far end sent early media (SDP in a 18x). */
export interface EarlyMediaSource {
  readonly hasEarlyMedia: boolean;
}

export function hasEarlyMedia(tech: ChannelTechnology): boolean {
  return (tech as Partial<EarlyMediaSource>).hasEarlyMedia === true;
}

export class EarlyMediaPath {
  readonly #bridges: DialBridges;
  readonly #log: Pick<Logger, 'debug' | 'error'>;
  /** Set once the bridge exists. */
  #bridgeId: string | undefined;
  #callerIn = false;
  #owner: Channel | undefined;
  /** Bridge operations run one after another, so that an answer cannot overtake an open. */
  #chain: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(bridges: DialBridges, log: Pick<Logger, 'debug' | 'error'>) {
    this.#bridges = bridges;
    this.#log = log;
  }

  /** The callee whose early media the caller hears, if any. */
  get owner(): Channel | undefined {
    return this.#owner;
  }

  /** Whether the caller's leg is in the bridge (early media flowed at some point). */
  get created(): boolean {
    return this.#bridgeId !== undefined;
  }

  /**
   * The callee sent early media: if nobody owns the path yet, it takes it and both legs join.
   * Returns false when another callee already owns it (or a leg has no media).
   */
  open(caller: Channel, callee: Channel): boolean {
    if (this.#closed || this.#owner !== undefined) return false;
    if (caller.tech.mediaLegId === undefined || callee.tech.mediaLegId === undefined) return false;
    this.#owner = callee;
    this.#enqueue(async () => {
      if (this.#bridgeId === undefined) this.#bridgeId = await this.#bridges.create();
      // The owner may have failed while the bridge was being made; only the caller enters then.
      const entering = this.#callerIn ? [] : [caller];
      if (this.#owner === callee && !callee.isDestroyed) entering.push(callee);
      await this.#bridges.add(this.#bridgeId, entering, { earlyMedia: true });
      this.#callerIn = true;
    }, 'early media could not be bridged');
    return true;
  }

  /** The owner failed before answering: its leg leaves, and another callee may take the path. */
  ownerGone(callee: Channel): void {
    // After the hand-over the bridge is the answered call's, which cleans up after itself.
    if (this.#closed || this.#owner !== callee) return;
    this.#owner = undefined;
    // A failed callee has usually hung up already, which took it out of the bridge.
    this.#enqueue(
      async () => {
        if (this.#bridgeId !== undefined) await this.#bridges.remove(this.#bridgeId, [callee]);
      },
      'early media callee could not leave the bridge',
      'debug',
    );
  }

  /**
   * A callee answered: the bridge becomes the call's bridge with the caller and the winner in it.
   * Resolves with the bridge id, or undefined when no early media ever flowed (the caller then
   * builds its bridge as usual).
   */
  async handOver(winner: Channel): Promise<string | undefined> {
    await this.#chain;
    const bridgeId = this.#bridgeId;
    if (bridgeId === undefined || this.#closed) return undefined;
    // From here the caller's Dial owns the bridge and destroys it when the call ends.
    this.#closed = true;
    const owner = this.#owner;
    if (owner !== winner) {
      if (owner !== undefined) await this.#bridges.remove(bridgeId, [owner]).catch(() => undefined);
      this.#owner = winner;
      try {
        await this.#bridges.add(bridgeId, [winner]);
      } catch (err) {
        // The caller's Dial makes a bridge of its own; this one must not linger.
        await this.#bridges.destroy(bridgeId).catch(() => undefined);
        throw err;
      }
    }
    return bridgeId;
  }

  /** Nobody answered: the bridge goes (its legs stay alive). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#chain;
    if (this.#bridgeId === undefined) return;
    await this.#bridges.destroy(this.#bridgeId).catch((err: unknown) => this.#log.debug({ err }, 'early media bridge already gone'));
  }

  #enqueue(step: () => Promise<void>, failure: string, level: 'debug' | 'error' = 'error'): void {
    this.#chain = this.#chain.then(step).catch((err: unknown) => this.#log[level]({ err, bridgeId: this.#bridgeId }, failure));
  }
}

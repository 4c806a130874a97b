/**
 * RFC 3711 §3.3.2 replay protection: a packet whose index is older than the window, or that was
 * already accepted inside it, is dropped. The window holds the last `size` indices; each slot
 * remembers which index last used it, so "seen" is one comparison. Updated only after the packet
 * authenticated, so a forged packet cannot move the window.
 */
export class ReplayWindow {
  readonly #seen: Float64Array;
  #highest = -1;

  /** RFC 3711 §3.3.2: at least 64 (SRTP_WINDOW_SIZE); 128 absorbs more reordering at no cost. */
  constructor(readonly size = 128) {
    this.#seen = new Float64Array(size).fill(-1);
  }

  /** Whether a packet with `index` may be accepted (neither too old nor already seen). */
  check(index: number): boolean {
    if (index > this.#highest) return true;
    if (this.#highest - index >= this.size) return false;
    return this.#seen[index % this.size] !== index;
  }

  accept(index: number): void {
    this.#seen[index % this.size] = index;
    if (index > this.#highest) this.#highest = index;
  }
}

/**
 * RFC 3711 §3.3.1 and Appendix A: the receiver's guess of a packet's 48-bit index from its 16-bit
 * sequence number, the highest sequence number seen (s_l) and the rollover counter.
 */
export function estimateIndex(sequence: number, highestSequence: number, rolloverCounter: number): number {
  let v = rolloverCounter;
  if (highestSequence < 0x8000) {
    if (sequence - highestSequence > 0x8000) v = rolloverCounter - 1;
  } else if (highestSequence - 0x8000 > sequence) {
    v = rolloverCounter + 1;
  }
  // Before the first wrap a late packet from the previous cycle cannot exist: clamp at zero.
  if (v < 0) v = 0;
  return (v >>> 0) * 0x10000 + sequence;
}

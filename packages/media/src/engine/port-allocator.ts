/**
 * Hands out even RTP ports from the configured range (RFC 3550 §11: RTP on an even port, RTCP on
 * the next odd one). The cursor keeps moving forward and wraps, so a port just released is the
 * last to be reused and stray packets of an ended call do not land in a new one.
 * Only ports held by our own legs are tracked; a port bound by another program is discovered when
 * the bind fails, and the engine then asks for the next one.
 */
export class PortAllocator {
  /** Lowest and highest even port of the range. */
  readonly first: number;
  readonly last: number;
  readonly #inUse = new Set<number>();
  #cursor: number;

  constructor(rtpStart: number, rtpEnd: number) {
    if (!Number.isInteger(rtpStart) || !Number.isInteger(rtpEnd) || rtpStart < 1 || rtpEnd > 65535 || rtpStart > rtpEnd) {
      throw new RangeError(`RTP port range ${rtpStart}-${rtpEnd} is invalid: need integers with 1 <= rtpStart <= rtpEnd <= 65535`);
    }
    this.first = rtpStart + (rtpStart % 2);
    this.last = rtpEnd - (rtpEnd % 2);
    if (this.first > this.last) throw new RangeError(`RTP port range ${rtpStart}-${rtpEnd} holds no even port`);
    this.#cursor = this.first;
  }

  /** How many even ports the range holds. */
  get capacity(): number {
    return (this.last - this.first) / 2 + 1;
  }

  get inUse(): number {
    return this.#inUse.size;
  }

  /**
   * Reserves the next free even port at or after the cursor, skipping `exclude` (ports that just
   * failed to bind). Returns null when every port is taken or excluded.
   */
  acquire(exclude: ReadonlySet<number> = new Set()): number | null {
    let port = this.#cursor;
    for (let step = 0; step < this.capacity; step += 1) {
      const candidate = port;
      port = port + 2 > this.last ? this.first : port + 2;
      if (!this.#inUse.has(candidate) && !exclude.has(candidate)) {
        this.#inUse.add(candidate);
        this.#cursor = port;
        return candidate;
      }
    }
    return null;
  }

  release(port: number): void {
    this.#inUse.delete(port);
  }
}

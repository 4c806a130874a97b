/**
 * Header rewriting for a two-party relay: packets one leg receives are sent on by the other leg
 * without decoding, inside the sending leg's own RTP stream. RFC 3550 §7.1 allows a translator to
 * do this as long as each outgoing stream stays consistent, so the far end sees one continuous
 * stream (one SSRC; sequence numbers and timestamps that carry on from the frames it got before)
 * even when the bridge switches between relaying and mixing or a party's source changes SSRC.
 *
 * On the first packet of a source SSRC the rewriter anchors: offsets map the source's sequence
 * number and timestamp onto where the outgoing stream stands, and that packet carries a marker.
 * Later packets keep the source's own gaps (loss, silence suppression), shifted by the offsets.
 */

export interface SourceHeader {
  ssrc: number;
  sequenceNumber: number;
  timestamp: number;
  marker: boolean;
}

export interface StreamPosition {
  nextSequence: number;
  nextTimestamp: number;
}

export interface RewrittenHeader {
  sequenceNumber: number;
  timestamp: number;
  marker: boolean;
}

export class RelayRewriter {
  #ssrc: number | null = null;
  #sequenceOffset = 0;
  #timestampOffset = 0;
  /**
   * The result of `rewriteAt`, overwritten by the next call: the relay runs once per packet, and a
   * fresh object per packet is garbage the worker would collect while packets wait in the socket.
   */
  readonly #result: RewrittenHeader = { sequenceNumber: 0, timestamp: 0, marker: false };

  /** Forget the anchor: the next packet re-anchors on the outgoing stream (relay restarts). */
  reset(): void {
    this.#ssrc = null;
  }

  rewrite(source: SourceHeader, out: StreamPosition): RewrittenHeader {
    return { ...this.rewriteAt(source, out.nextSequence, out.nextTimestamp) };
  }

  /**
   * `rewrite` for the packet path: the outgoing stream's position as two numbers, and the result in
   * an object this rewriter reuses (valid until its next call).
   */
  rewriteAt(source: SourceHeader, nextSequence: number, nextTimestamp: number): RewrittenHeader {
    let marker = source.marker;
    if (this.#ssrc !== source.ssrc) {
      this.#ssrc = source.ssrc;
      this.#sequenceOffset = (nextSequence - source.sequenceNumber) & 0xffff;
      this.#timestampOffset = (nextTimestamp - source.timestamp) >>> 0;
      marker = true; // a new talkspurt from the receiver's point of view (RFC 3551 §4.1)
    }
    const result = this.#result;
    result.sequenceNumber = (source.sequenceNumber + this.#sequenceOffset) & 0xffff;
    result.timestamp = (source.timestamp + this.#timestampOffset) >>> 0;
    result.marker = marker;
    return result;
  }
}

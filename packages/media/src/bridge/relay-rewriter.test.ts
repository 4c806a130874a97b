import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RelayRewriter } from './relay-rewriter.js';

describe('RelayRewriter', () => {
  it('anchors the first packet on the outgoing stream, with a marker', () => {
    const rewriter = new RelayRewriter();
    const out = rewriter.rewrite(
      { ssrc: 1, sequenceNumber: 5000, timestamp: 123456, marker: false },
      { nextSequence: 17, nextTimestamp: 8000 },
    );
    assert.deepEqual(out, { sequenceNumber: 17, timestamp: 8000, marker: true });
  });

  it('keeps the source gaps (loss and silence) after the anchor, wrapping 16/32 bits', () => {
    const rewriter = new RelayRewriter();
    rewriter.rewrite({ ssrc: 1, sequenceNumber: 65535, timestamp: 0xffffff00, marker: true }, { nextSequence: 100, nextTimestamp: 10 });
    const next = rewriter.rewrite(
      { ssrc: 1, sequenceNumber: 1, timestamp: 0xffffff00 + 480, marker: false },
      { nextSequence: 999, nextTimestamp: 999 },
    );
    assert.deepEqual(next, { sequenceNumber: 102, timestamp: 490, marker: false });
  });

  it('re-anchors on a new source SSRC and after reset', () => {
    const rewriter = new RelayRewriter();
    rewriter.rewrite({ ssrc: 1, sequenceNumber: 10, timestamp: 1000, marker: false }, { nextSequence: 0, nextTimestamp: 0 });
    const switched = rewriter.rewrite(
      { ssrc: 2, sequenceNumber: 900, timestamp: 7, marker: false },
      { nextSequence: 1, nextTimestamp: 160 },
    );
    assert.deepEqual(switched, { sequenceNumber: 1, timestamp: 160, marker: true });
    rewriter.reset();
    const again = rewriter.rewrite(
      { ssrc: 2, sequenceNumber: 901, timestamp: 167, marker: false },
      { nextSequence: 50, nextTimestamp: 5000 },
    );
    assert.deepEqual(again, { sequenceNumber: 50, timestamp: 5000, marker: true });
  });
});

describe('RelayRewriter.rewriteAt (the packet path)', () => {
  it('computes what rewrite computes, in one reused result object', () => {
    const a = new RelayRewriter();
    const b = new RelayRewriter();
    const first = b.rewriteAt({ ssrc: 9, sequenceNumber: 300, timestamp: 4000, marker: false }, 10, 20);
    assert.deepEqual(
      { ...first },
      a.rewrite({ ssrc: 9, sequenceNumber: 300, timestamp: 4000, marker: false }, { nextSequence: 10, nextTimestamp: 20 }),
    );
    const second = b.rewriteAt({ ssrc: 9, sequenceNumber: 301, timestamp: 4160, marker: false }, 0, 0);
    assert.equal(second, first, 'the same object, overwritten');
    assert.deepEqual({ ...second }, { sequenceNumber: 11, timestamp: 180, marker: false });
  });

  it('marks the first packet of a new source SSRC and continues the outgoing numbering from there', () => {
    const rewriter = new RelayRewriter();
    rewriter.rewriteAt({ ssrc: 1, sequenceNumber: 10, timestamp: 1000, marker: false }, 500, 8000);
    const last = { ...rewriter.rewriteAt({ ssrc: 1, sequenceNumber: 11, timestamp: 1160, marker: false }, 0, 0) };
    assert.deepEqual(last, { sequenceNumber: 501, timestamp: 8160, marker: false });
    // The source changes SSRC (a transfer, a re-INVITE): anchored on where the stream stands now.
    const switched = rewriter.rewriteAt({ ssrc: 2, sequenceNumber: 40000, timestamp: 9, marker: false }, 502, 8320);
    assert.deepEqual({ ...switched }, { sequenceNumber: 502, timestamp: 8320, marker: true });
    const after = rewriter.rewriteAt({ ssrc: 2, sequenceNumber: 40001, timestamp: 169, marker: false }, 0, 0);
    assert.deepEqual({ ...after }, { sequenceNumber: 503, timestamp: 8480, marker: false });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DtmfEndDetector, type TelephoneEvent, dtmfDigitForEvent, parseTelephoneEvent, writeTelephoneEvent } from './telephone-event.js';

const event = (code: number, end: boolean, duration: number): TelephoneEvent => ({ event: code, end, volume: 10, duration });

describe('telephone-event payload (RFC 4733 §2.3)', () => {
  it('writes and parses event, E bit, volume and duration', () => {
    const bytes = new Uint8Array(4);
    writeTelephoneEvent(bytes, { event: 11, end: true, volume: 63, duration: 0x1234 });
    assert.deepEqual([...bytes], [11, 0xbf, 0x12, 0x34]);
    assert.deepEqual(parseTelephoneEvent(bytes), { event: 11, end: true, volume: 63, duration: 0x1234 });
  });

  it('ignores the reserved bit and rejects a payload shorter than one event', () => {
    assert.deepEqual(parseTelephoneEvent(new Uint8Array([5, 0x4a, 0, 160])), { event: 5, end: false, volume: 10, duration: 160 });
    assert.equal(parseTelephoneEvent(new Uint8Array([5, 0x80, 0])), null);
  });

  it('maps event codes to DTMF digits (RFC 4733 §3.2)', () => {
    const digits = Array.from({ length: 16 }, (_, code) => dtmfDigitForEvent(code)).join('');
    assert.equal(digits, '0123456789*#ABCD');
    assert.equal(dtmfDigitForEvent(16), null); // flash
    assert.equal(dtmfDigitForEvent(255), null);
  });
});

describe('DtmfEndDetector', () => {
  it('reports an event once, on its first end packet, ignoring the redundant end packets', () => {
    const detector = new DtmfEndDetector();
    const ssrc = 0x1111;
    const results = [
      detector.push(ssrc, 1000, event(5, false, 160), 8000),
      detector.push(ssrc, 1000, event(5, false, 320), 8000),
      detector.push(ssrc, 1000, event(5, true, 800), 8000),
      detector.push(ssrc, 1000, event(5, true, 800), 8000),
      detector.push(ssrc, 1000, event(5, true, 800), 8000),
    ];
    assert.deepEqual(results, [null, null, { digit: '5', durationMs: 100 }, null, null]);
  });

  it('reports the same digit pressed twice, since each press has its own timestamp', () => {
    const detector = new DtmfEndDetector();
    assert.deepEqual(detector.push(1, 1000, event(1, true, 400), 8000), { digit: '1', durationMs: 50 });
    assert.equal(detector.push(1, 1000, event(1, true, 400), 8000), null);
    assert.deepEqual(detector.push(1, 3000, event(1, true, 400), 8000), { digit: '1', durationMs: 50 });
  });

  it('tells two sources apart and ignores a late repeat of an earlier event', () => {
    const detector = new DtmfEndDetector();
    assert.ok(detector.push(1, 1000, event(2, true, 800), 8000));
    assert.ok(detector.push(2, 1000, event(2, true, 800), 8000));
    assert.ok(detector.push(1, 2000, event(3, true, 800), 8000));
    assert.equal(detector.push(1, 1000, event(2, true, 800), 8000), null);
  });

  it('reports nothing for events that are not digits', () => {
    const detector = new DtmfEndDetector();
    assert.equal(detector.push(1, 1000, event(16, true, 800), 8000), null);
  });

  it('converts the duration with the clock rate', () => {
    const detector = new DtmfEndDetector();
    assert.deepEqual(detector.push(1, 0, event(10, true, 1600), 16000), { digit: '*', durationMs: 100 });
  });
});

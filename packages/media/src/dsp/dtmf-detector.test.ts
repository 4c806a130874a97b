import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DtmfDetector, type InbandDigit } from './dtmf-detector.js';

const PAIRS: Record<string, [number, number]> = {
  '1': [697, 1209],
  '5': [770, 1336],
  '9': [852, 1477],
  '#': [941, 1477],
  D: [941, 1633],
  '0': [941, 1336],
};

let seed = 99;
function noise(): number {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return (seed / 4294967296) * 2 - 1;
}

function signal(parts: Array<{ digit?: string; ms: number; level?: number }>, noiseLevel = 0): Int16Array {
  const total = parts.reduce((n, p) => n + p.ms * 8, 0);
  const out = new Int16Array(total);
  let at = 0;
  for (const part of parts) {
    const n = part.ms * 8;
    for (let i = 0; i < n; i += 1) {
      let v = noiseLevel * noise();
      if (part.digit !== undefined) {
        const [low, high] = PAIRS[part.digit];
        const level = part.level ?? 6000;
        v += level * Math.sin((2 * Math.PI * low * (at + i)) / 8000) + level * Math.sin((2 * Math.PI * high * (at + i)) / 8000);
      }
      out[at + i] = Math.max(-32768, Math.min(32767, Math.round(v)));
    }
    at += n;
  }
  return out;
}

function detect(samples: Int16Array): InbandDigit[] {
  const detector = new DtmfDetector();
  const found: InbandDigit[] = [];
  for (let i = 0; i < samples.length; i += 160) found.push(...detector.process(samples.subarray(i, i + 160)));
  return found;
}

describe('DtmfDetector', () => {
  it('detects a sequence of digits with their durations', () => {
    const found = detect(
      signal([{ ms: 40 }, { digit: '1', ms: 100 }, { ms: 60 }, { digit: '#', ms: 200 }, { ms: 60 }, { digit: 'D', ms: 60 }, { ms: 100 }]),
    );
    assert.deepEqual(
      found.map((d) => d.digit),
      ['1', '#', 'D'],
    );
    assert.ok(Math.abs(found[1].durationMs - 200) <= 40, `duration ${found[1].durationMs}`);
  });

  it('is idle only while nothing is heard, no digit is ending and no block is partly filled', () => {
    const detector = new DtmfDetector();
    assert.equal(detector.idle, true);
    const tone = signal([{ digit: '5', ms: 60 }]);
    detector.process(tone.subarray(0, 160));
    assert.equal(detector.idle, false, 'a candidate digit');
    detector.process(tone.subarray(160, 480));
    assert.equal(detector.idle, false, 'a digit under way');
    const silence = new Int16Array(160);
    assert.deepEqual(detector.process(silence), []);
    assert.equal(detector.idle, false, 'one block of silence does not end the digit');
    assert.deepEqual(
      detector.process(silence).map((d) => d.digit),
      ['5'],
    );
    assert.equal(detector.idle, true);
    detector.process(silence.subarray(0, 80));
    assert.equal(detector.idle, false, 'half a block waiting');
  });

  it('works in noise at 20 dB SNR and at uneven frame sizes', () => {
    const samples = signal([{ ms: 100 }, { digit: '5', ms: 80 }, { ms: 100 }, { digit: '9', ms: 80, level: 2000 }, { ms: 100 }], 600);
    const detector = new DtmfDetector();
    const found: InbandDigit[] = [];
    for (let i = 0; i < samples.length; i += 97) found.push(...detector.process(samples.subarray(i, i + 97)));
    assert.deepEqual(
      found.map((d) => d.digit),
      ['5', '9'],
    );
  });

  it('ignores a tone shorter than 40 ms, a single frequency, excessive twist and plain noise', () => {
    assert.deepEqual(detect(signal([{ digit: '0', ms: 20 }, { ms: 200 }])), []);
    const single = new Int16Array(8000).map((_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 941 * i) / 8000)));
    assert.deepEqual(detect(single), []);
    const twisted = new Int16Array(8000).map((_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 770 * i) / 8000) + 1500 * Math.sin((2 * Math.PI * 1336 * i) / 8000)),
    );
    assert.deepEqual(detect(twisted), []);
    assert.deepEqual(detect(signal([{ ms: 2000 }], 8000)), []);
  });

  it('does not talk off on speech-like signals (voiced harmonics with a moving pitch and formants)', () => {
    const samples = new Int16Array(8000 * 5);
    let phase = 0;
    for (let i = 0; i < samples.length; i += 1) {
      const t = i / 8000;
      const pitch = 110 + 40 * Math.sin(2 * Math.PI * 1.3 * t); // intonation
      phase += pitch / 8000;
      let v = 0;
      for (let h = 1; h * pitch < 3800; h += 1) {
        const f = h * pitch;
        // Two formants that move like vowels change (near 700 and 1200 Hz: the DTMF region).
        const f1 = 650 + 150 * Math.sin(2 * Math.PI * 0.7 * t);
        const f2 = 1250 + 250 * Math.sin(2 * Math.PI * 0.45 * t);
        const gain = 1 / (1 + ((f - f1) / 120) ** 2) + 0.8 / (1 + ((f - f2) / 150) ** 2) + 0.05;
        v += gain * Math.sin(2 * Math.PI * h * phase);
      }
      const syllable = 0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t);
      samples[i] = Math.round(4000 * v * syllable + 200 * noise());
    }
    assert.deepEqual(detect(samples), []);
  });
});

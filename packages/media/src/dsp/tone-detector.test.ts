import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToneDetector } from './tone-detector.js';

const RATE = 8000;
const FRAME = 160;

function sine(frequency: number, amplitude: number, frameIndex: number): Int16Array {
  const frame = new Int16Array(FRAME);
  for (let i = 0; i < FRAME; i += 1)
    frame[i] = Math.round(amplitude * Math.sin((2 * Math.PI * frequency * (frameIndex * FRAME + i)) / RATE));
  return frame;
}

function feed(detector: ToneDetector, frames: Int16Array[]): number[] {
  const hits: number[] = [];
  frames.forEach((frame, i) => {
    if (detector.process(frame)) hits.push(i);
  });
  return hits;
}

describe('ToneDetector', () => {
  it('reports a tone once after it lasted the duration, and again after a break', () => {
    const detector = new ToneDetector({ frequencyHz: 1000, durationMs: 200 }, RATE);
    const tone = Array.from({ length: 20 }, (_, i) => sine(1000, 8000, i));
    const silence = Array.from({ length: 5 }, () => new Int16Array(FRAME));
    // 200 ms = 10 frames: the tenth frame completes it.
    assert.deepEqual(feed(detector, [...tone, ...silence, ...tone]), [9, 34]);
  });

  it('ignores other frequencies, speech-like mixtures and quiet tones', () => {
    const detector = new ToneDetector({ frequencyHz: 1000, durationMs: 100 }, RATE);
    const other = Array.from({ length: 20 }, (_, i) => sine(1400, 8000, i));
    const mixed = Array.from({ length: 20 }, (_, i) => {
      const a = sine(1000, 4000, i);
      const b = sine(400, 6000, i);
      return a.map((v, j) => v + (b[j] as number)) as Int16Array;
    });
    const quiet = Array.from({ length: 20 }, (_, i) => sine(1000, 50, i));
    assert.deepEqual(feed(detector, [...other, ...mixed, ...quiet]), []);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TalkDetector, type TalkEvent } from './talk-detector.js';

function frame(level: number): Int16Array {
  return new Int16Array(160).map((_, i) => (i % 2 === 0 ? level : -level));
}

function run(detector: TalkDetector, pattern: Array<[number, number]>): Array<[number, TalkEvent]> {
  const events: Array<[number, TalkEvent]> = [];
  let index = 0;
  for (const [level, frames] of pattern) {
    for (let f = 0; f < frames; f += 1, index += 1) {
      const event = detector.process(frame(level));
      if (event !== null) events.push([index, event]);
    }
  }
  return events;
}

describe('TalkDetector', () => {
  it('starts after talkMs of energy and finishes after silenceMs, reporting the talk duration', () => {
    const detector = new TalkDetector({ energyThreshold: 256, talkMs: 100, silenceMs: 200 }, 8000);
    const events = run(detector, [
      [0, 10],
      [2000, 50], // 1 s of talk
      [0, 20],
    ]);
    assert.deepEqual(events, [
      [14, { type: 'talkingStarted' }],
      [69, { type: 'talkingFinished', durationMs: 1000 }],
    ]);
  });

  it('ignores bursts shorter than talkMs and pauses shorter than silenceMs', () => {
    const detector = new TalkDetector({ energyThreshold: 256, talkMs: 100, silenceMs: 200 }, 8000);
    assert.deepEqual(
      run(detector, [
        [2000, 4],
        [0, 5],
      ]),
      [],
    );
    const events = run(detector, [
      [2000, 10],
      [0, 5],
      [2000, 10],
      [0, 10],
    ]);
    assert.deepEqual(
      events.map(([, e]) => e.type),
      ['talkingStarted', 'talkingFinished'],
    );
    assert.equal(detector.talking, false);
  });
});

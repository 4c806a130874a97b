import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCodec } from '../codecs/index.js';
import type { InbandDigit } from '../dsp/dtmf-detector.js';
import { toneAmplitude } from '../dsp/goertzel.js';
import type { TalkEvent } from '../dsp/talk-detector.js';
import { sine } from '../test-support/audio-fixtures.js';
import { LegAudio } from './leg-audio.js';

function recorder(): { digits: InbandDigit[]; talk: TalkEvent[]; events: { digit(d: InbandDigit): void; talk(e: TalkEvent): void } } {
  const digits: InbandDigit[] = [];
  const talk: TalkEvent[] = [];
  return { digits, talk, events: { digit: (d) => digits.push(d), talk: (e) => talk.push(e) } };
}

describe('LegAudio', () => {
  it('decodes G.722 packets through the jitter buffer to 8 kHz frames, in order', () => {
    const { events } = recorder();
    const audio = new LegAudio('G722', events);
    const sender = createCodec('G722');
    const input = sine(1000, 16000, 400, 8000);
    // One arrival group per tick: packets 1 and 2, 4 and 5 arrive swapped.
    const groups = [[0], [2, 1], [], [3], [5, 4], [], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15], [16], [17], [18], [19]];
    const payloads = Array.from({ length: 20 }, (_, i) => sender.encode(input.subarray(i * 320, (i + 1) * 320)));
    const out: number[] = [];
    groups.forEach((group, tick) => {
      for (const i of group) {
        audio.receive({ sequenceNumber: 100 + i, timestamp: 1000 + i * 160, ssrc: 5, marker: i === 0 }, payloads[i], tick * 20);
      }
      const frame = audio.readFrame(8000);
      if (frame !== null) {
        assert.equal(frame.length, 160);
        out.push(...frame);
      }
    });
    const pcm = Int16Array.from(out);
    assert.ok(toneAmplitude(pcm, 1000, 8000, 800, 1600) > 6000, `level ${toneAmplitude(pcm, 1000, 8000, 800, 1600)}`);
  });

  it('encodes 8 kHz frames for Opus/L16/G.722 at the codec rate with the right clock step', () => {
    const { events } = recorder();
    const g722 = new LegAudio('G722', events);
    assert.equal(g722.encodeFrame(new Int16Array(160), 8000)?.length, 160);
    assert.equal(g722.timestampsPerFrame, 160);
    const l16 = new LegAudio('L16', events);
    assert.equal(l16.encodeFrame(new Int16Array(160), 8000)?.length, 320);
    const pcmu = new LegAudio('PCMU', events);
    assert.equal(pcmu.encodeFrame(new Int16Array(320), 16000)?.length, 160);
  });

  it('conceals a lost packet and returns null once the peer is quiet', () => {
    const { events } = recorder();
    const audio = new LegAudio('PCMU', events);
    const codec = createCodec('PCMU');
    const payload = codec.encode(sine(400, 8000, 20, 8000));
    audio.receive({ sequenceNumber: 1, timestamp: 0, ssrc: 1, marker: true }, payload, 0);
    audio.receive({ sequenceNumber: 3, timestamp: 320, ssrc: 1, marker: false }, payload, 40);
    const kinds = Array.from({ length: 9 }, () => audio.readFrame(8000)).map((f) => (f === null ? 'null' : 'frame'));
    assert.deepEqual(kinds, ['null', 'frame', 'frame', 'frame', 'frame', 'frame', 'frame', 'null', 'null']);
  });

  it('reports in-band DTMF and talking from the decoded audio', () => {
    const { digits, talk, events } = recorder();
    const audio = new LegAudio('PCMA', events);
    audio.setInbandDtmf(true);
    audio.setTalkDetection({ energyThreshold: 500, talkMs: 60, silenceMs: 100 });
    const codec = createCodec('PCMA');
    const tone = new Int16Array(8000 * 0.2).map((_, i) =>
      Math.round(6000 * (Math.sin((2 * Math.PI * 852 * i) / 8000) + Math.sin((2 * Math.PI * 1477 * i) / 8000))),
    );
    const signal = new Int16Array(8000);
    signal.set(tone, 800);
    for (let i = 0; i < 50; i += 1) {
      audio.receive(
        { sequenceNumber: i, timestamp: i * 160, ssrc: 9, marker: i === 0 },
        codec.encode(signal.subarray(i * 160, (i + 1) * 160)),
        i * 20,
      );
      audio.readFrame(8000);
    }
    assert.deepEqual(
      digits.map((d) => d.digit),
      ['9'],
    );
    assert.deepEqual(
      talk.map((e) => e.type),
      ['talkingStarted', 'talkingFinished'],
    );
  });

  it('runs L16 at the negotiated 16 kHz rate (L16/16000)', () => {
    const { events } = recorder();
    const wide = new LegAudio('L16', events, 16000);
    assert.equal(wide.clockRate, 16000);
    assert.equal(wide.timestampsPerFrame, 320);
    assert.equal(wide.encodeFrame(new Int16Array(160), 8000)?.length, 640);
    assert.equal(new LegAudio('L16', events).clockRate, 8000);
  });
});

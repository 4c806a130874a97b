/**
 * Wideband mixing: a bridge runs at its members' highest native rate, so G.722 legs hear each
 * other above 4 kHz; minus-one still holds; narrowband and wideband members hear each other; a
 * member joining or leaving at another rate keeps one frame per tick and does not disturb what
 * the others hear; the announcer format decides what bridge playback enters the mix as.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AudioCodec, createCodec } from '../codecs/index.js';
import { toneAmplitude } from '../dsp/goertzel.js';
import { RateConverter } from '../dsp/rate-converter.js';
import type { ResampleRate } from '../dsp/resampler.js';
import type { WorkerNotification } from '../protocol.js';
import { FormatQuantiser } from '../worker/channel-format.js';
import { type AudioIo, MediaEndpoint } from '../worker/media-endpoint.js';
import { SampleSource } from '../worker/playback.js';
import { Bridge } from './bridge.js';
import { LocalMember } from './members.js';

/**
 * A far end behind a codec: it "sends" a sine (or silence) through the codec at its native rate,
 * and keeps what the bridge sends it, decoded, at that rate.
 */
class CodecIo implements AudioIo {
  readonly id: string;
  readonly nativeRate: ResampleRate;
  readonly heard: Int16Array[] = [];
  readonly writtenRates: number[] = [];
  readonly #codec: AudioCodec | null;
  readonly #decoder: AudioCodec | null;
  readonly #toCaller = new RateConverter();
  readonly #fromCaller = new RateConverter();
  #phase = 0;
  frequency: number;

  constructor(id: string, codec: 'G722' | 'slin8', frequency: number) {
    this.id = id;
    this.nativeRate = codec === 'G722' ? 16000 : 8000;
    this.#codec = codec === 'G722' ? createCodec('G722') : null;
    this.#decoder = codec === 'G722' ? createCodec('G722') : null;
    this.frequency = frequency;
  }

  readFrame(rateHz: number): Int16Array | null {
    const samples = this.nativeRate / 50;
    let frame = new Int16Array(samples);
    if (this.frequency > 0) {
      for (let i = 0; i < samples; i += 1) {
        frame[i] = Math.round(8000 * Math.sin(2 * Math.PI * this.#phase));
        this.#phase = (this.#phase + this.frequency / this.nativeRate) % 1;
      }
    }
    if (this.#codec !== null && this.#decoder !== null) frame = this.#decoder.decode(this.#codec.encode(frame)) as Int16Array<ArrayBuffer>;
    return this.#toCaller.convert(frame, rateHz as ResampleRate);
  }

  writeFrame(pcm: Int16Array, rateHz: number): void {
    this.writtenRates.push(rateHz);
    this.heard.push(this.#fromCaller.convert(pcm, this.nativeRate));
  }

  startTalkspurt(): void {}
  close(): void {}
}

const notify = (_n: WorkerNotification): void => {};

function setup(ios: CodecIo[]): { bridge: Bridge; endpoints: MediaEndpoint[]; tick: (n: number) => void } {
  const bridge = new Bridge('b', 'mixing', notify, () => null);
  const endpoints = ios.map((io) => {
    const endpoint = new MediaEndpoint(io, notify);
    endpoint.bridgeId = 'b';
    bridge.add(new LocalMember(endpoint, () => {}), undefined);
    return endpoint;
  });
  const tick = (n: number): void => {
    for (let i = 0; i < n; i += 1) {
      for (const endpoint of endpoints) endpoint.capture();
      bridge.step();
      for (const endpoint of endpoints) endpoint.render();
    }
  };
  return { bridge, endpoints, tick };
}

/** The newest `frames` frames a far end heard, as one array. */
function lastHeard(io: CodecIo, frames: number): Int16Array {
  const parts = io.heard.slice(-frames);
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

describe('wideband mixing', () => {
  it('a 6 kHz tone from a G.722 member reaches the other G.722 member of a 3-party bridge; minus-one holds', () => {
    const talker = new CodecIo('talker', 'G722', 6000);
    const listener = new CodecIo('listener', 'G722', 0);
    const narrow = new CodecIo('narrow', 'slin8', 0);
    const { bridge, tick } = setup([talker, listener, narrow]);
    tick(30);
    assert.equal(bridge.rate, 16000, 'the bridge mixes at the G.722 rate');
    const heard = lastHeard(listener, 10);
    const at6k = toneAmplitude(heard, 6000, 16000);
    assert.ok(at6k > 4000, `the G.722 listener hears the 6 kHz tone (${at6k.toFixed(0)}), which 8 kHz mixing cannot carry`);
    const self = toneAmplitude(lastHeard(talker, 10), 6000, 16000);
    assert.ok(self < 100, `the talker does not hear itself (${self.toFixed(0)})`);
    const narrowHeard = lastHeard(narrow, 10);
    assert.ok(Math.max(...narrowHeard.map(Math.abs)) < 300, 'the 8 kHz member hears nothing of a tone above its band');
    assert.ok(
      listener.writtenRates.slice(-10).every((rate) => rate === 16000),
      'the listener is sent 16 kHz frames',
    );
  });

  it('a narrowband-only bridge stays at 8 kHz and passes frames through unchanged', () => {
    const a = new CodecIo('a', 'slin8', 1000);
    const b = new CodecIo('b', 'slin8', 0);
    const { bridge, tick } = setup([a, b]);
    tick(10);
    assert.equal(bridge.rate, 8000);
    assert.ok(toneAmplitude(lastHeard(b, 5), 1000, 8000) > 7000);
    assert.ok(b.writtenRates.every((rate) => rate === 8000));
  });

  it('narrowband and wideband members hear each other, each at its own rate', () => {
    const wide = new CodecIo('wide', 'G722', 1000);
    const narrow = new CodecIo('narrow', 'slin8', 600);
    const { tick } = setup([wide, narrow]);
    tick(20);
    assert.ok(toneAmplitude(lastHeard(narrow, 10), 1000, 8000) > 6000, 'the 8 kHz member hears the G.722 member');
    assert.ok(toneAmplitude(lastHeard(wide, 10), 600, 16000) > 6000, 'the G.722 member hears the 8 kHz member');
    assert.ok(toneAmplitude(lastHeard(narrow, 10), 600, 8000) < 50, 'neither hears itself');
    assert.ok(toneAmplitude(lastHeard(wide, 10), 1000, 16000) < 50);
    assert.ok(narrow.writtenRates.every((rate) => rate === 8000) && wide.writtenRates.every((rate) => rate === 16000));
  });

  it('a wideband member joining and leaving: the bridge rate follows, one frame per tick, no click for the others', () => {
    const a = new CodecIo('a', 'slin8', 1000);
    const b = new CodecIo('b', 'slin8', 0);
    const { bridge, endpoints, tick } = setup([a, b]);
    tick(20);
    const wide = new CodecIo('wide', 'G722', 0);
    const wideEndpoint = new MediaEndpoint(wide, notify);
    wideEndpoint.bridgeId = 'b';
    bridge.add(new LocalMember(wideEndpoint, () => {}), undefined);
    endpoints.push(wideEndpoint);
    tick(20);
    assert.equal(bridge.rate, 16000);
    bridge.remove('wide');
    endpoints.pop();
    tick(20);
    assert.equal(bridge.rate, 8000, 'back to 8 kHz when the last wideband member left');
    assert.equal(b.heard.length, 60, 'one frame per tick throughout');
    // b hears a 1 kHz sine (peak ≈ 8000): sample to sample it moves at most 2π·1000/8000·8000 ≈ 6300.
    const all = lastHeard(b, 60);
    let jump = 0;
    for (let i = 1; i < all.length; i += 1) jump = Math.max(jump, Math.abs(all[i] - all[i - 1]));
    assert.ok(jump < 6500, `no step larger than the sine's own slope across both rate changes (${jump})`);
    assert.ok(toneAmplitude(lastHeard(b, 5), 1000, 8000) > 7000, 'the tone is back at full level after the change');
  });

  it('bridge playback enters at the announcer format: slin16 keeps 6 kHz, ulaw is 8 kHz μ-law audio', async () => {
    for (const format of ['slin16', 'ulaw'] as const) {
      const listener = new CodecIo('listener', 'G722', 0);
      const other = new CodecIo('other', 'G722', 0);
      const { bridge, tick } = setup([listener, other]);
      tick(3);
      const announcer = new FormatQuantiser(format);
      // A 16 kHz source of 1 kHz + 6 kHz, as a file would give it at the announcer's rate.
      const rate = announcer.rate;
      const samples = new Int16Array(rate * 2);
      const source16k = new Int16Array(32000);
      for (let i = 0; i < source16k.length; i += 1)
        source16k[i] = Math.round(4000 * Math.sin((2 * Math.PI * 1000 * i) / 16000) + 4000 * Math.sin((2 * Math.PI * 6000 * i) / 16000));
      samples.set(rate === 16000 ? source16k : downsample(source16k));
      bridge.play(
        'p',
        () => Promise.resolve(new SampleSource(samples, { frameSamples: rate / 50 })),
        () => {},
        announcer,
      );
      await Promise.resolve();
      await Promise.resolve();
      tick(30);
      const heard = lastHeard(listener, 10);
      const low = toneAmplitude(heard, 1000, 16000);
      const high = toneAmplitude(heard, 6000, 16000);
      assert.ok(low > 2500, `${format}: 1 kHz is heard (${low.toFixed(0)})`);
      if (format === 'slin16') assert.ok(high > 2500, `slin16: 6 kHz is heard (${high.toFixed(0)})`);
      else assert.ok(high < 200, `ulaw: nothing above 4 kHz enters the mix (${high.toFixed(0)})`);
    }
  });
});

/** 16 kHz → 8 kHz through the engine's resampler, whole. */
function downsample(samples: Int16Array): Int16Array {
  const path = new RateConverter();
  const out = new Int16Array(samples.length / 2);
  for (let i = 0; i < samples.length / 320; i += 1) out.set(path.convert(samples.subarray(i * 320, (i + 1) * 320), 8000), i * 160);
  return out;
}

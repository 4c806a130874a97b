/**
 * The audio path of one RTP leg, codec-agnostic, between packets and the media tick's linear PCM:
 *
 *   receive: RTP payload ─► JitterBuffer ─(per tick)─► codec.decode / conceal ─► Resampler ─► frame
 *                                                                    └─► in-band DTMF, talk detection
 *   send:    frame ─► Resampler ─► codec.encode ─► payload (+ how far the RTP clock advances)
 *
 * Packets only enter the jitter buffer on receipt; decoding waits until the tick asks for a frame,
 * so a leg whose audio nobody consumes costs no codec work. One decoder and one encoder instance
 * per leg (G.722 and Opus keep state between frames). Frames are 20 ms at the rate the caller
 * asks for; a peer's other packetisation (e.g. 30 ms) passes through a small PCM FIFO.
 */
import { type AudioCodec, CODEC_FRAME_MS, createCodec, createL16Codec } from '../codecs/index.js';
import { DtmfDetector, type InbandDigit } from '../dsp/dtmf-detector.js';
import { JitterBuffer } from '../dsp/jitter-buffer.js';
import { type ResampleRate, Resampler } from '../dsp/resampler.js';
import { TalkDetector, type TalkDetectorOptions, type TalkEvent } from '../dsp/talk-detector.js';
import type { AudioCodecName } from '@switchboard/media-control';

export interface LegAudioEvents {
  /** A digit heard in the audio (in-band DTMF), when enabled. */
  digit(digit: InbandDigit): void;
  /** Talking started or finished, when talk detection is enabled here. */
  talk?(event: TalkEvent): void;
}

export interface ReceivedAudioPacket {
  sequenceNumber: number;
  timestamp: number;
  ssrc: number;
  marker: boolean;
}

const ENGINE_RATES: readonly number[] = [8000, 16000, 48000];

export function isEngineRate(rate: number): rate is ResampleRate {
  return ENGINE_RATES.includes(rate);
}

function framesOf(rate: number): number {
  return (rate * CODEC_FRAME_MS) / 1000;
}

/** Linear PCM waiting to be handed out in whole frames. */
class PcmFifo {
  #buffer = new Int16Array(0);

  get length(): number {
    return this.#buffer.length;
  }

  push(samples: Int16Array): void {
    const next = new Int16Array(this.#buffer.length + samples.length);
    next.set(this.#buffer);
    next.set(samples, this.#buffer.length);
    this.#buffer = next;
  }

  /** Takes `count` samples, padding with silence when fewer are waiting. */
  take(count: number): Int16Array {
    const out = new Int16Array(count);
    out.set(this.#buffer.subarray(0, count));
    this.#buffer = this.#buffer.slice(Math.min(count, this.#buffer.length));
    return out;
  }

  clear(): void {
    this.#buffer = new Int16Array(0);
  }
}

export class LegAudio {
  readonly codecName: AudioCodecName;
  readonly #decoder: AudioCodec;
  readonly #encoder: AudioCodec;
  readonly #events: LegAudioEvents;
  #jitter: JitterBuffer;
  /** Timestamp units per packet the jitter buffer assumes (learned from the peer's packets). */
  #packetSpan: number;
  readonly #received = new PcmFifo();
  readonly #toSend = new PcmFifo();
  /** Resamplers per stream and rate pair, created on first use: each keeps its own filter history. */
  readonly #resamplers = new Map<string, Resampler>();
  #dtmf: DtmfDetector | null = null;
  #talk: TalkDetector | null = null;
  #talkOptions: TalkDetectorOptions | null = null;

  /**
   * `clockRate` matters only for L16, whose rate travels in the SDP (`L16/16000`) rather than in
   * its name (RFC 3551 §4.5.11); every other codec has one rate.
   */
  constructor(codecName: AudioCodecName, events: LegAudioEvents, clockRate?: number) {
    this.codecName = codecName;
    const make = (): AudioCodec =>
      codecName === 'L16' && (clockRate === 16000 || clockRate === 48000) ? createL16Codec(clockRate) : createCodec(codecName);
    this.#decoder = make();
    this.#encoder = make();
    this.#events = events;
    this.#packetSpan = framesOf(this.#decoder.clockRate);
    this.#jitter = this.#newJitterBuffer();
  }

  /** RTP timestamp units one 20 ms frame advances the clock by (160 for G.711/G.722, 960 for Opus). */
  get timestampsPerFrame(): number {
    return framesOf(this.#encoder.clockRate);
  }

  get clockRate(): number {
    return this.#encoder.clockRate;
  }

  /** The rate the codec's audio is sampled at (16000 for G.722, whose RTP clock says 8000). */
  get sampleRate(): number {
    return this.#decoder.sampleRate;
  }

  get jitterStats(): JitterBuffer['stats'] {
    return this.#jitter.stats;
  }

  #newJitterBuffer(): JitterBuffer {
    return new JitterBuffer({ clockRate: this.#decoder.clockRate, frameTimestamps: this.#packetSpan, minDelayMs: 20, maxDelayMs: 200 });
  }

  #resampler(purpose: 'receive' | 'send' | 'detect', from: ResampleRate, to: ResampleRate): Resampler {
    const key = `${purpose}:${from}>${to}`;
    let resampler = this.#resamplers.get(key);
    if (resampler === undefined) {
      resampler = new Resampler(from, to);
      this.#resamplers.set(key, resampler);
    }
    return resampler;
  }

  /** Enables or disables in-band DTMF detection (for peers without RFC 4733). */
  setInbandDtmf(enabled: boolean): void {
    this.#dtmf = enabled ? (this.#dtmf ?? new DtmfDetector()) : null;
  }

  setTalkDetection(options: TalkDetectorOptions | null): void {
    this.#talkOptions = options;
    this.#talk = null; // created at the rate of the first frame read
  }

  get detecting(): boolean {
    return this.#dtmf !== null || this.#talkOptions !== null;
  }

  /** A received audio packet (the payload is copied: it is a view of the socket's datagram). */
  receive(packet: ReceivedAudioPacket, payload: Uint8Array, arrivalMs: number): void {
    this.#jitter.push({
      seq: packet.sequenceNumber,
      timestamp: packet.timestamp,
      ssrc: packet.ssrc,
      marker: packet.marker,
      // A copy (Buffer's slice would be a view): the socket may reuse the datagram's memory.
      payload: new Uint8Array(payload),
      arrivalMs,
    });
  }

  /**
   * One 20 ms frame of received audio at `rateHz` (8000, 16000 or 48000): decoded, concealed when a
   * packet is missing, or null when there is nothing to play (not started, or the peer went quiet).
   */
  readFrame(rateHz: number): Int16Array | null {
    if (!isEngineRate(rateHz)) throw new RangeError(`leg audio runs at 8000, 16000 or 48000 Hz, asked for ${rateHz}`);
    const codecRate = this.#decoder.sampleRate as ResampleRate;
    const need = framesOf(codecRate);
    let quiet = false;
    while (this.#received.length < need && !quiet) {
      const result = this.#jitter.pop();
      if (result.kind === 'frame') this.#received.push(this.#decode(result.packet.payload));
      else if (result.kind === 'lost') this.#received.push(this.#decoder.conceal());
      else quiet = true;
    }
    let frame: Int16Array | null = null;
    if (this.#received.length > 0) {
      const native = this.#received.take(need);
      frame = codecRate === rateHz ? native : this.#resampler('receive', codecRate, rateHz).process(native);
    }
    this.#detect(frame, rateHz);
    return frame;
  }

  #decode(payload: Uint8Array): Int16Array {
    let pcm: Int16Array;
    try {
      pcm = this.#decoder.decode(payload);
    } catch {
      // A payload the codec refuses costs one frame, concealed.
      return this.#decoder.conceal();
    }
    // Learn the peer's packetisation (RFC 3551 §4.2 lets it differ from ours): the jitter buffer
    // must step by what one packet spans.
    const span = Math.round((pcm.length * this.#decoder.clockRate) / this.#decoder.sampleRate);
    if (span > 0 && span !== this.#packetSpan) {
      this.#packetSpan = span;
      this.#jitter = this.#newJitterBuffer();
    }
    return pcm;
  }

  #detect(frame: Int16Array | null, rateHz: ResampleRate): void {
    if (this.#dtmf === null && this.#talkOptions === null) return;
    // No audio and no digit under way: the detector would only confirm the silence.
    if (frame === null && this.#talkOptions === null && this.#dtmf?.idle === true) return;
    const audio = frame ?? new Int16Array(framesOf(rateHz));
    if (this.#talkOptions !== null) {
      this.#talk ??= new TalkDetector(this.#talkOptions, rateHz);
      const event = this.#talk.process(audio);
      if (event !== null) this.#events.talk?.(event);
    }
    if (this.#dtmf !== null) {
      // Q.23 detection runs at 8 kHz; its resampler is separate from the caller's.
      const narrow = rateHz === 8000 ? audio : this.#resampler('detect', rateHz, 8000).process(audio);
      for (const digit of this.#dtmf.process(narrow)) this.#events.digit(digit);
    }
  }

  /**
   * Encodes one 20 ms frame given at `rateHz`; returns the payload to send, or null when the
   * resampler has not yet produced a whole codec frame (never, for 20 ms input).
   */
  encodeFrame(pcm: Int16Array, rateHz: number): Uint8Array | null {
    if (!isEngineRate(rateHz)) throw new RangeError(`leg audio runs at 8000, 16000 or 48000 Hz, got ${rateHz}`);
    const codecRate = this.#encoder.sampleRate as ResampleRate;
    const native = codecRate === rateHz ? pcm : this.#resampler('send', rateHz, codecRate).process(pcm);
    if (native.length === this.#encoder.frameSamples && this.#toSend.length === 0) return this.#encoder.encode(native);
    this.#toSend.push(native);
    if (this.#toSend.length < this.#encoder.frameSamples) return null;
    return this.#encoder.encode(this.#toSend.take(this.#encoder.frameSamples));
  }

  /** Forgets received audio (a new remote or SSRC); codec state is kept. */
  resetReceive(): void {
    this.#jitter.reset();
    this.#received.clear();
  }
}

/**
 * A wideband phone's media side for end-to-end tests: one UDP socket that receives the server's
 * G.722 stream and, once it knows where the server's leg is (the source of the first packet, as
 * symmetric RTP does), sends G.722 audio back. RFC 3551 §4.5.2: payload type 9, 16 kHz audio on an
 * 8000 Hz RTP clock, so a 20 ms packet is 320 samples in 160 octets and advances the timestamp by 160.
 */
import { G722Decoder, G722Encoder } from '@switchboard/media';
import { RtpPeer } from './rtp-peer.js';

const SAMPLE_RATE = 16000;
const FRAME_SAMPLES = 320;
const G722_PAYLOAD_TYPE = 9;

export class G722Peer extends RtpPeer {
  static override async open(): Promise<G722Peer> {
    return await RtpPeer.bind((socket) => new G722Peer(socket));
  }

  /**
   * What the server sent, decoded in sequence order (one decoder for the stream: G.722 is
   * adaptive), with the arrival time of each packet's first sample.
   */
  decoded(): { samples: Int16Array; packetAt: number[] } {
    const audio = this.packets.filter((p) => p.payloadType === G722_PAYLOAD_TYPE);
    const decoder = new G722Decoder();
    const samples = new Int16Array(audio.length * FRAME_SAMPLES);
    for (const [index, packet] of audio.entries())
      samples.set(decoder.decode(packet.payload).subarray(0, FRAME_SAMPLES), index * FRAME_SAMPLES);
    return { samples, packetAt: audio.map((p) => p.at) };
  }

  /** Sends the sum of sines (peak 6000 each) as G.722, one 20 ms packet every 20 ms, for `ms` milliseconds. */
  async sendTones(frequencies: number[], ms: number): Promise<void> {
    const encoder = new G722Encoder();
    let n = 0;
    await this.sendFrames(ms, G722_PAYLOAD_TYPE, FRAME_SAMPLES / 2, () => {
      const pcm = new Int16Array(FRAME_SAMPLES);
      for (let s = 0; s < FRAME_SAMPLES; s++, n++) {
        let value = 0;
        for (const f of frequencies) value += 6000 * Math.sin((2 * Math.PI * f * n) / SAMPLE_RATE);
        pcm[s] = Math.round(value);
      }
      return encoder.encode(pcm);
    });
  }
}

/** Amplitude of the `frequency` component of `samples` at `rate` (Goertzel; a pure on-bin sine gives its peak). */
export function toneAmplitude(samples: Int16Array, frequency: number, rate: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / rate);
  let s1 = 0;
  let s2 = 0;
  for (const sample of samples) {
    const s0 = sample + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  const power = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
  return samples.length === 0 ? 0 : (2 * Math.sqrt(Math.max(power, 0))) / samples.length;
}

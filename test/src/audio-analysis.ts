/**
 * Audio checks shared by the end-to-end tests that drive real phones or read what the server wrote:
 * a tone WAV to feed a phone's file source, the samples of a WAV, how loud and how much of one
 * frequency a block of samples holds, and which of several tones dominates a signal.
 */
import { readFileSync } from 'node:fs';
import { ulawToLinear } from './rtp-receiver.js';

/** A 16-bit mono PCM WAV of a sine tone (RIFF/WAVE, 44-byte header). */
export function toneWav(frequency: number, seconds: number, sampleRate = 8000): Buffer {
  const samples = sampleRate * seconds;
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) wav.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * frequency * i) / sampleRate)), 44 + i * 2);
  return wav;
}

/** The 16-bit samples of a PCM WAV held in `bytes`, found by walking its chunks (sndfile writes more than fmt and data). */
export function wavSamplesOf(bytes: Buffer): { rate: number; samples: Int16Array } {
  let offset = 12;
  let rate = 0;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('ascii', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === 'fmt ') rate = bytes.readUInt32LE(offset + 12);
    if (id === 'data') {
      // A dump closed early may claim more than was written: read what is there.
      const end = Math.min(bytes.length, offset + 8 + size);
      const data = bytes.subarray(offset + 8, end - ((end - offset - 8) % 2));
      const samples = new Int16Array(data.length / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = data.readInt16LE(i * 2);
      return { rate, samples };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('the WAV data has no data chunk');
}

/** The samples of a WAV file (wavSamplesOf). */
export function wavSamples(file: string): { rate: number; samples: Int16Array } {
  return wavSamplesOf(readFileSync(file));
}

/** Power of one frequency in a block of samples (Goertzel), normalised by the block's energy. */
export function toneShare(samples: Int16Array, rate: number, frequency: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / rate);
  let s1 = 0;
  let s2 = 0;
  let energy = 0;
  for (const x of samples) {
    const s0 = x + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
    energy += x * x;
  }
  const power = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
  return energy === 0 ? 0 : (2 * power) / (samples.length * energy);
}

export function rmsOf(samples: Int16Array): number {
  let sum = 0;
  for (const x of samples) sum += x * x;
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}

/** Polls `check` (sync or async) every 50 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * For each frequency, the number of 200 ms blocks (loud ones only: rms above `minRms`) in which
 * it carries more than half the energy.
 */
export function dominantBlocks(samples: Int16Array, rate: number, frequencies: number[], minRms = 500): Map<number, number> {
  const counts = new Map(frequencies.map((f) => [f, 0]));
  const block = Math.round(rate / 5);
  for (let start = 0; start + block <= samples.length; start += block) {
    const part = samples.subarray(start, start + block);
    if (rmsOf(part) < minRms) continue;
    for (const f of frequencies) if (toneShare(part, rate, f) > 0.5) counts.set(f, (counts.get(f) ?? 0) + 1);
  }
  return counts;
}

/** µ-law payloads → linear samples. */
export function ulawPayloadsToLinear(payloads: Buffer[]): Int16Array {
  const out = new Int16Array(payloads.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const payload of payloads) for (const byte of payload) out[i++] = ulawToLinear(byte);
  return out;
}

/** Audio fixtures for tests: tones and minimal WAV files built byte by byte. */

export function sine(frequencyHz: number, sampleRate: number, durationMs: number, amplitude = 10000): Int16Array {
  const samples = new Int16Array(Math.round((sampleRate * durationMs) / 1000));
  for (let i = 0; i < samples.length; i += 1) samples[i] = Math.round(amplitude * Math.sin((2 * Math.PI * frequencyHz * i) / sampleRate));
  return samples;
}

export interface WavFixtureOptions {
  sampleRate: number;
  channels?: number;
  bitsPerSample?: number;
  formatTag?: number;
  /** Extra chunks placed between `fmt ` and `data` (e.g. a LIST chunk), as [id, body]. */
  extraChunks?: Array<[string, Uint8Array]>;
}

function chunk(id: string, body: Uint8Array): Uint8Array {
  const padded = body.length + (body.length & 1);
  const out = new Uint8Array(8 + padded);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 4; i += 1) out[i] = id.charCodeAt(i);
  view.setUint32(4, body.length, true);
  out.set(body, 8);
  return out;
}

/** A canonical RIFF/WAVE file holding `data` (already in the sample format the options describe). */
export function wavBytes(data: Uint8Array, options: WavFixtureOptions): Uint8Array {
  const channels = options.channels ?? 1;
  const bits = options.bitsPerSample ?? 16;
  const fmt = new Uint8Array(16);
  const view = new DataView(fmt.buffer);
  view.setUint16(0, options.formatTag ?? 1, true);
  view.setUint16(2, channels, true);
  view.setUint32(4, options.sampleRate, true);
  view.setUint32(8, (options.sampleRate * channels * bits) / 8, true);
  view.setUint16(12, (channels * bits) / 8, true);
  view.setUint16(14, bits, true);
  const chunks = [chunk('fmt ', fmt), ...(options.extraChunks ?? []).map(([id, body]) => chunk(id, body)), chunk('data', data)];
  const size = 4 + chunks.reduce((sum, c) => sum + c.length, 0);
  const out = new Uint8Array(8 + size);
  const header = new DataView(out.buffer);
  out.set([0x52, 0x49, 0x46, 0x46], 0); // RIFF
  header.setUint32(4, size, true);
  out.set([0x57, 0x41, 0x56, 0x45], 8); // WAVE
  let offset = 12;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

/** A 16-bit PCM WAV file of `samples` (interleaved when `channels` > 1). */
export function wav16(samples: Int16Array, sampleRate: number, channels = 1): Uint8Array {
  const data = new Uint8Array(samples.length * 2);
  const view = new DataView(data.buffer);
  for (let i = 0; i < samples.length; i += 1) view.setInt16(i * 2, samples[i], true);
  return wavBytes(data, { sampleRate, channels });
}

/** Root-mean-square level of a signal, skipping `edge` samples at each end (filter warm-up). */
export function rms(samples: Int16Array, edge = 0): number {
  let sum = 0;
  let count = 0;
  for (let i = edge; i < samples.length - edge; i += 1) {
    sum += samples[i] * samples[i];
    count += 1;
  }
  return count === 0 ? 0 : Math.sqrt(sum / count);
}

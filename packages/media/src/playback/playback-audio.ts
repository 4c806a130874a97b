/**
 * Turns a WAV file into the 8 kHz 16-bit samples a G.711 playback sends: read, validate the format,
 * decimate higher rates, skip the requested offset. Each failure says what was wrong with the file.
 */
import { readFile, stat } from 'node:fs/promises';
import { decimate } from '../audio/decimate.js';
import { WAVE_FORMAT_PCM, WavFormatError, parseWav, pcm16Samples } from '../audio/wav.js';
import { type ResampleRate, Resampler } from '../dsp/resampler.js';

/** G.711's sampling rate (RFC 3551 §4.5.14): playback audio is produced at this rate. */
export const PLAYBACK_RATE = 8000;
/** Input rates we accept, each an integer multiple of 8000 so a plain decimator suffices. */
export const SUPPORTED_RATES: readonly number[] = [8000, 16000, 48000];
/** A prompt larger than this is refused rather than read into memory (10 minutes at 48 kHz is 58 MB). */
export const MAX_WAV_BYTES = 128 * 1024 * 1024;

/**
 * The samples of a WAV file's bytes at `rate` (8 kHz for a leg; a bridge's announcer may take 16 or
 * 48 kHz), starting `offsetMs` in (empty when the offset is past the end).
 */
export function playbackSamplesFromWav(bytes: Uint8Array, offsetMs: number, rate: ResampleRate = PLAYBACK_RATE): Int16Array {
  const wav = parseWav(bytes);
  const supported =
    wav.formatTag === WAVE_FORMAT_PCM && wav.channels === 1 && wav.bitsPerSample === 16 && SUPPORTED_RATES.includes(wav.sampleRate);
  if (!supported) {
    const tag = wav.formatTag === WAVE_FORMAT_PCM ? 'PCM' : `format 0x${wav.formatTag.toString(16)}`;
    throw new WavFormatError(
      `unsupported WAV format: ${tag}, ${wav.channels} channel(s), ${wav.sampleRate} Hz, ${wav.bitsPerSample}-bit ` +
        `(playable: 16-bit PCM mono at ${SUPPORTED_RATES.join(', ')} Hz)`,
    );
  }
  const samples = pcm16Samples(wav.data);
  const atRate =
    wav.sampleRate === rate
      ? samples
      : rate === PLAYBACK_RATE
        ? decimate(samples, wav.sampleRate, wav.sampleRate / PLAYBACK_RATE)
        : new Resampler(wav.sampleRate as ResampleRate, rate).process(samples);
  const skip = Math.round((offsetMs * rate) / 1000);
  return skip >= atRate.length ? new Int16Array(0) : atRate.subarray(skip);
}

/** Reads `file` and returns its samples at `rate` from `offsetMs` on. Rejects with a message fit for a `failed` finish. */
export async function loadPlaybackAudio(file: string, offsetMs: number, rate: ResampleRate = PLAYBACK_RATE): Promise<Int16Array> {
  let bytes: Uint8Array;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size > MAX_WAV_BYTES) throw new Error(`file is ${info.size} bytes, the limit is ${MAX_WAV_BYTES}`);
    bytes = await readFile(file);
  } catch (error) {
    throw new Error(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return playbackSamplesFromWav(bytes, offsetMs, rate);
  } catch (error) {
    throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Where a recording's frames go, one writer per format, at the format's rate (`sinkRate`: 16 kHz
 * for G.722, 8 kHz for the others). Every writer streams to disk frame
 * by frame; none holds the recording in memory.
 *
 *   wav        RIFF header at start, its lengths rewritten every second of audio (so a process
 *              killed mid-recording leaves a file whose header covers what is on disk) and at
 *              the end; append extends `data`
 *   sln        raw 16-bit little-endian samples
 *   ulaw/alaw  raw G.711 codes (ITU-T G.711), one byte per sample
 *   g722       raw G.722 codes at 64 kbit/s (ITU-T G.722), when the codec is registered
 *   ogg/mp3    8 kHz PCM piped to ffmpeg, which writes the file
 */
import { spawn } from 'node:child_process';
import { createCodec, isCodecSupported } from '../codecs/index.js';
import { encodeAlaw, encodeUlaw } from '../codecs/g711.js';
import type { RecordingFormat } from '@switchboard/media-control';
import { findFfmpeg } from './formats.js';
import { PositionalFile } from './file-writer.js';
import { RECORDING_RATE, WAV_HEADER_BYTES, locateWavData, wavHeader, wavLengthFields } from './wav-header.js';

/** The rate a format's sink takes its frames at. */
export function sinkRate(format: RecordingFormat): 8000 | 16000 {
  return format === 'g722' ? 16000 : RECORDING_RATE;
}

export interface AudioSink {
  /** Appends one frame of linear PCM at the format's `sinkRate`. */
  write(pcm: Int16Array): void;
  /** Completes the file (headers, trailers) and closes it; rejects with the first write error. */
  finish(): Promise<void>;
  /** Closes and deletes the file. */
  discard(): Promise<void>;
}

export class RecordingFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingFormatError';
  }
}

function pcmBytes(pcm: Int16Array): Uint8Array {
  const bytes = new Uint8Array(pcm.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < pcm.length; i += 1) view.setInt16(i * 2, pcm[i], true);
  return bytes;
}

/** Audio bytes between two rewrites of a WAV header's lengths: one second at 8 kHz. */
const HEADER_REFRESH_BYTES = RECORDING_RATE * 2;

class WavSink implements AudioSink {
  readonly #file: PositionalFile;
  readonly #dataOffset: number;
  #dataBytes: number;
  #sinceHeader = 0;

  constructor(path: string, append: boolean) {
    this.#file = new PositionalFile(path, append);
    if (append && this.#file.size > 0) {
      const location = locateWavData(this.#file.readHead(4096), this.#file.size);
      this.#dataOffset = location.dataOffset;
      this.#dataBytes = location.dataBytes;
      this.#file.seek(location.dataOffset + location.dataBytes);
    } else {
      this.#dataOffset = WAV_HEADER_BYTES;
      this.#dataBytes = 0;
      this.#file.write(wavHeader(0, RECORDING_RATE));
    }
  }

  write(pcm: Int16Array): void {
    this.#file.write(pcmBytes(pcm));
    this.#dataBytes += pcm.length * 2;
    this.#sinceHeader += pcm.length * 2;
    if (this.#sinceHeader >= HEADER_REFRESH_BYTES) {
      this.#sinceHeader = 0;
      for (const [position, bytes] of this.#lengthPatches()) this.#file.writeAt(position, bytes);
    }
  }

  finish(): Promise<void> {
    return this.#file.finish(this.#lengthPatches());
  }

  #lengthPatches(): Array<[number, Uint8Array]> {
    return wavLengthFields({ dataOffset: this.#dataOffset, dataBytes: this.#dataBytes }).map(([position, value]): [number, Uint8Array] => {
      const bytes = new Uint8Array(4);
      new DataView(bytes.buffer).setUint32(0, value >>> 0, true);
      return [position, bytes];
    });
  }

  discard(): Promise<void> {
    return this.#file.discard();
  }
}

/** Raw bytes: sln, ulaw, alaw, g722 (appending simply continues the byte stream). */
class RawSink implements AudioSink {
  readonly #file: PositionalFile;
  readonly #encode: (pcm: Int16Array) => Uint8Array;

  constructor(path: string, append: boolean, encode: (pcm: Int16Array) => Uint8Array) {
    this.#file = new PositionalFile(path, append);
    this.#encode = encode;
  }

  write(pcm: Int16Array): void {
    this.#file.write(this.#encode(pcm));
  }

  finish(): Promise<void> {
    return this.#file.finish();
  }

  discard(): Promise<void> {
    return this.#file.discard();
  }
}

/** Doubles the rate by linear interpolation (G.722 encodes 16 kHz; our frames are 8 kHz telephone band). */
function upsample2(pcm: Int16Array, previous: { last: number }): Int16Array {
  const out = new Int16Array(pcm.length * 2);
  let last = previous.last;
  for (let i = 0; i < pcm.length; i += 1) {
    out[2 * i] = (last + pcm[i]) >> 1;
    out[2 * i + 1] = pcm[i];
    last = pcm[i];
  }
  previous.last = last;
  return out;
}

class FfmpegSink implements AudioSink {
  readonly #path: string;
  readonly #child: ReturnType<typeof spawn>;
  readonly #exited: Promise<void>;
  #stderr = '';

  constructor(ffmpeg: string, path: string, format: 'ogg' | 'mp3') {
    this.#path = path;
    const codec = format === 'ogg' ? ['-c:a', 'libvorbis', '-q:a', '2'] : ['-c:a', 'libmp3lame', '-b:a', '32k'];
    this.#child = spawn(
      ffmpeg,
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-y',
        '-f',
        's16le',
        '-ar',
        String(RECORDING_RATE),
        '-ac',
        '1',
        '-i',
        'pipe:0',
        ...codec,
        '-f',
        format,
        path,
      ],
      { stdio: ['pipe', 'ignore', 'pipe'] },
    );
    this.#child.stderr?.on('data', (chunk: Buffer) => {
      if (this.#stderr.length < 2000) this.#stderr += chunk.toString();
    });
    this.#child.stdin?.on('error', () => {
      // ffmpeg exited early; its exit code and stderr say why.
    });
    this.#exited = new Promise((resolve, reject) => {
      this.#child.once('error', (error) => reject(new Error(`cannot run ffmpeg: ${error.message}`)));
      this.#child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`ffmpeg exited with code ${code}: ${this.#stderr.trim()}`)),
      );
    });
    this.#exited.catch(() => {});
  }

  write(pcm: Int16Array): void {
    this.#child.stdin?.write(pcmBytes(pcm));
  }

  finish(): Promise<void> {
    this.#child.stdin?.end();
    return this.#exited;
  }

  async discard(): Promise<void> {
    this.#child.kill('SIGKILL');
    await this.#exited.catch(() => {});
    const { rm } = await import('node:fs/promises');
    await rm(this.#path, { force: true });
  }
}

/** Opens the writer for `format`; throws RecordingFormatError when this machine cannot write it. */
export function openSink(format: RecordingFormat, path: string, append: boolean): AudioSink {
  switch (format) {
    case 'wav':
      return new WavSink(path, append);
    case 'sln':
      return new RawSink(path, append, pcmBytes);
    case 'ulaw':
      return new RawSink(path, append, (pcm) => {
        const out = new Uint8Array(pcm.length);
        encodeUlaw(pcm, out);
        return out;
      });
    case 'alaw':
      return new RawSink(path, append, (pcm) => {
        const out = new Uint8Array(pcm.length);
        encodeAlaw(pcm, out);
        return out;
      });
    case 'g722': {
      if (!isCodecSupported('G722'))
        throw new RecordingFormatError('recording format g722 is not available: the G.722 codec is not built in');
      const codec = createCodec('G722');
      const state = { last: 0 };
      // Frames arrive at 16 kHz (sinkRate); an 8 kHz frame from elsewhere is doubled.
      return new RawSink(path, append, (pcm) => codec.encode(pcm.length === codec.frameSamples ? pcm : upsample2(pcm, state)));
    }
    case 'ogg':
    case 'mp3': {
      const ffmpeg = findFfmpeg();
      if (ffmpeg === null) throw new RecordingFormatError(`recording format ${format} needs ffmpeg, which is not on PATH`);
      if (append) throw new RecordingFormatError(`recording format ${format} cannot be appended to`);
      return new FfmpegSink(ffmpeg, path, format);
    }
  }
}

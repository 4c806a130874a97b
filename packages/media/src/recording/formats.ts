/**
 * Which recording formats this machine can write. WAV, raw 16-bit (`sln`) and G.711 are written
 * by the engine itself; G.722 needs its codec to be registered; Ogg/Vorbis and MP3 are encoded by
 * Debian's `ffmpeg`, piped 8 kHz PCM, and are offered only when that program is on PATH.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isCodecSupported } from '../codecs/index.js';
import type { RecordingFormat } from '@switchboard/media-control';

let ffmpegPath: string | null | undefined;

/** The absolute path of an executable `ffmpeg` on PATH, or null (looked up once per process). */
export function findFfmpeg(): string | null {
  if (ffmpegPath !== undefined) return ffmpegPath;
  ffmpegPath = null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'ffmpeg');
    try {
      accessSync(candidate, constants.X_OK);
      ffmpegPath = candidate;
      break;
    } catch {
      // not here
    }
  }
  return ffmpegPath;
}

/** The formats `startRecording` can write here; core answers 422 for the others. */
export function supportedRecordingFormats(): RecordingFormat[] {
  const formats: RecordingFormat[] = ['wav', 'sln', 'ulaw', 'alaw'];
  if (isCodecSupported('G722')) formats.push('g722');
  if (findFfmpeg() !== null) formats.push('ogg', 'mp3');
  return formats;
}

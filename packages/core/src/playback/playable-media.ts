/**
 * What one media URI of a playback turns into: files to play one after another (sound:, digits:,
 * number:, characters:, recording:) or a tone (tone:). http:/https: fail as items with a clear
 * message (SPEC §4.4 rule 4: fetching media from http is not implemented), like any other item
 * that cannot be played, so a list keeps going past them.
 */
import type { ToneSegment } from '../media/media-engine.js';
import type { SoundIndex } from '../sounds/sound-index.js';
import { parseMediaUri, resolveMedia } from './media-uri.js';
import type { ToneResolver } from './tone-resolver.js';

export type PlayableMedia =
  | { kind: 'files'; files: string[] }
  | { kind: 'tone'; segments: ToneSegment[] }
  | { kind: 'error'; error: string };

export interface PlayableMediaSources {
  sounds: SoundIndex;
  tones: ToneResolver;
  /** A stored recording's WAV file, already checked to be inside the recording directory. */
  recordingFile(name: string): string | undefined;
}

/** `toneZone`: the target channel's own zone, for a `tone:` URI without `;tonezone=`. */
export function resolvePlayable(uri: string, language: string, sources: PlayableMediaSources, toneZone?: string): PlayableMedia {
  const parsed = parseMediaUri(uri);
  if (parsed?.scheme === 'tone') {
    const tone = sources.tones.resolve(parsed.value, toneZone);
    return tone.ok ? { kind: 'tone', segments: tone.segments } : { kind: 'error', error: tone.error };
  }
  if (parsed?.scheme === 'recording') {
    const file = sources.recordingFile(parsed.value);
    return file ? { kind: 'files', files: [file] } : { kind: 'error', error: `stored recording '${parsed.value}' (wav) not found` };
  }
  const resolved = resolveMedia(uri, language, sources.sounds);
  return resolved.ok ? { kind: 'files', files: resolved.files } : { kind: 'error', error: resolved.error };
}

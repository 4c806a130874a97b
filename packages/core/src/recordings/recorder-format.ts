/**
 * Helper channel formats for bridge media (ARI `announcer_format` on bridge play, `recorder_format`
 * on bridge record). A recorder format may also be given as a recording format (the reference's
 * default is "the same as `format`"); it then means that format's own capture: linear 8 kHz for
 * wav, sln, ogg and mp3, the codec itself for ulaw, alaw and g722.
 */
import type { ChannelFormat } from '../media/media-engine.js';

export const CHANNEL_FORMATS: readonly ChannelFormat[] = ['slin', 'slin8', 'slin16', 'slin48', 'ulaw', 'alaw', 'g722'];

export function isChannelFormat(value: string): value is ChannelFormat {
  return (CHANNEL_FORMATS as readonly string[]).includes(value);
}

/** Whether `value` names a recorder format: a channel format, or one of the recording formats this system writes. */
export function isRecorderFormat(value: string, recordingFormats: readonly string[]): boolean {
  return isChannelFormat(value) || recordingFormats.includes(value);
}

/** The channel format a recorder format stands for (a recording format's own capture). */
export function recorderChannelFormat(value: string): ChannelFormat {
  if (isChannelFormat(value)) return value;
  if (value === 'ulaw' || value === 'alaw' || value === 'g722') return value;
  return 'slin';
}

/** Models of sounds.json. */
import type { FormatLangPair, SoundSnapshot } from '@switchboard/core';
import type { ModelFor } from '../types.js';

export const FormatLangPairModel = {
  id: 'FormatLangPair',
  description: 'Identifies the format and language of a sound file',
  properties: {
    language: { type: 'string', description: 'Language code', required: true },
    format: { type: 'string', description: 'Format name', required: true },
  },
} as const satisfies ModelFor<FormatLangPair>;

export const SoundModel = {
  id: 'Sound',
  description: 'A media file that may be played back.',
  properties: {
    id: {
      type: 'string',
      description: 'Sound identifier (file name without extension, relative to the language directory)',
      required: true,
    },
    text: { type: 'string', description: 'Text description of the sound, usually the words spoken', required: false },
    formats: { type: 'List[FormatLangPair]', description: 'The formats and languages in which this sound is available', required: true },
  },
} as const satisfies ModelFor<SoundSnapshot>;

export const SOUND_MODELS = [SoundModel, FormatLangPairModel];

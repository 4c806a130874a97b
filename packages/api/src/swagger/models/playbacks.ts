/** Models of playbacks.json; states are those of SPEC §2.12. */
import type { PlaybackSnapshot, PlaybackState } from '@switchboard/core';
import { listOfAll, type ModelFor } from '../types.js';

export const PlaybackModel = {
  id: 'Playback',
  description: 'Object representing the playback of media to a channel or bridge',
  properties: {
    id: { type: 'string', description: 'ID for this playback operation', required: true },
    media_uri: { type: 'string', description: 'The URI for the media currently being played back', required: true },
    next_media_uri: {
      type: 'string',
      description: 'If a list of URIs is being played, the next media URI to be played back; absent on the last one',
      required: false,
    },
    target_uri: { type: 'string', description: 'URI of the channel or bridge to play the media on', required: true },
    language: { type: 'string', description: 'For media types that support multiple languages, the language requested', required: false },
    state: {
      type: 'string',
      description: 'Current state of the playback operation',
      required: true,
      allowableValues: listOfAll<PlaybackState>()(['enqueued', 'playing', 'complete', 'failed']),
    },
  },
} as const satisfies ModelFor<PlaybackSnapshot>;

export const PLAYBACK_MODELS = [PlaybackModel];

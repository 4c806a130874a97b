/** Models of recordings.json (reference recordings.md "Models"; SPEC §2.10, §2.11). */
import type { LiveRecordingSnapshot, LiveRecordingState, StoredRecordingSnapshot } from '@switchboard/core';
import { listOfAll, type ModelFor } from '../types.js';

export const StoredRecordingModel = {
  id: 'StoredRecording',
  description: 'A past recording that may be played back.',
  properties: {
    name: {
      type: 'string',
      description: 'Name of the recording: its path under the recording directory, without extension',
      required: true,
    },
    format: { type: 'string', description: 'Format of the recording (the file extension)', required: true },
  },
} as const satisfies ModelFor<StoredRecordingSnapshot>;

export const LiveRecordingModel = {
  id: 'LiveRecording',
  description: 'A recording that is in progress',
  properties: {
    name: { type: 'string', description: 'Base name for the recording', required: true },
    format: { type: 'string', description: 'Recording format (wav, gsm, etc.)', required: true },
    target_uri: { type: 'string', description: 'URI for the channel or bridge being recorded', required: true },
    state: {
      type: 'string',
      description: 'Recording state',
      required: true,
      allowableValues: listOfAll<LiveRecordingState>()(['queued', 'recording', 'paused', 'done', 'failed', 'canceled']),
    },
    total_duration: { type: 'int', description: 'Duration in seconds of the recording', required: false },
    talking_duration: {
      type: 'int',
      description: 'Duration of talking, in seconds, detected in the recording; only when maxSilenceSeconds was given',
      required: false,
    },
    silence_duration: {
      type: 'int',
      description: 'Duration of silence, in seconds, detected in the recording; only when maxSilenceSeconds was given',
      required: false,
    },
    cause: { type: 'string', description: 'Cause for recording failure if failed', required: false },
  },
} as const satisfies ModelFor<LiveRecordingSnapshot>;

export const RECORDING_MODELS = [StoredRecordingModel, LiveRecordingModel];

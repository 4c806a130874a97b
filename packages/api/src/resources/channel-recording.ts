/** `POST /channels/{channelId}/record` (reference channels.md `record`; SPEC §4.4 rule 6). */
import { channelRecordTarget } from '@switchboard/core';
import { created, defineOperation, type ApiDecl } from '../http/operation.js';
import { controlledChannel } from './lookups.js';
import {
  RECORD_BAD_REQUEST,
  RECORD_EXISTS,
  RECORD_UNPROCESSABLE,
  liveRecordingLocation,
  recordOptions,
  recordParams,
} from './recording-params.js';

export const recordChannel = defineOperation({
  httpMethod: 'POST',
  nickname: 'record',
  summary: 'Start a recording.',
  notes:
    'Record audio from a channel. The channel is answered first. The recording is named by the name parameter and ' +
    'lives under the recording directory; it can be controlled at /recordings/live/{name} while in progress.',
  responseClass: 'LiveRecording',
  since: ['12.0.0'],
  parameters: [{ name: 'channelId', description: "Channel's id", paramType: 'path', dataType: 'string', required: true }, ...recordParams],
  errorResponses: [
    RECORD_BAD_REQUEST,
    { code: 404, reason: 'Channel not found' },
    { code: 409, reason: 'Channel is not in an application; or a recording with the same name is in progress' },
    { code: 412, reason: 'Channel in invalid state (outbound and not answered)' },
    RECORD_UNPROCESSABLE,
    RECORD_EXISTS,
  ],
  handler: async ({ core, params, apiRoot }) => {
    const channel = controlledChannel(core, params.channelId);
    channel.assertReadyForMedia();
    // The request is checked (and the recording queued) before the answer, so a refused one answers nothing.
    const recording = core.recordings.record(channelRecordTarget(channel), recordOptions(params));
    await channel.answer();
    return created(liveRecordingLocation(apiRoot, recording.name), recording);
  },
});

export const channelRecordApi: ApiDecl = {
  path: '/channels/{channelId}/record',
  description: 'Record audio from a channel',
  operations: [recordChannel],
};

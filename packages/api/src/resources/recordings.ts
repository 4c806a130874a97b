/** The `recordings` resource (SPEC §4.7, reference recordings.md): stored files and live recordings. */
import { readFileSync } from 'node:fs';
import { forbidden, recordingContentType, type SwitchboardCore } from '@switchboard/core';
import { defineOperation, noContent, ok, okBinary, type ResourceDecl } from '../http/operation.js';
import { RECORDING_MODELS } from '../swagger/models/recordings.js';
import type { ParameterDecl } from '../swagger/types.js';

const recordingName = {
  name: 'recordingName',
  description: 'The name of the recording (path under the recording directory, without extension)',
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const satisfies ParameterDecl;

const NOT_FOUND = { code: 404, reason: 'Recording not found' } as const;
const WRONG_STATE = { code: 409, reason: 'Recording not in session' } as const;

const listStored = defineOperation({
  httpMethod: 'GET',
  nickname: 'listStored',
  summary: 'List recordings that are complete.',
  notes: 'Recordings in sub-directories of the recording directory are listed with their relative path as name.',
  responseClass: 'List[StoredRecording]',
  since: ['12.0.0'],
  parameters: [],
  errorResponses: [],
  handler: ({ core }) => ok(core.recordings.stored.list()),
});

const getStored = defineOperation({
  httpMethod: 'GET',
  nickname: 'getStored',
  summary: "Get a stored recording's details.",
  responseClass: 'StoredRecording',
  since: ['12.0.0'],
  parameters: [recordingName],
  errorResponses: [NOT_FOUND],
  handler: ({ core, params }) => ok(core.recordings.stored.get(params.recordingName)),
});

const deleteStored = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'deleteStored',
  summary: 'Delete a stored recording.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [recordingName],
  errorResponses: [NOT_FOUND],
  handler: ({ core, params }) => {
    core.recordings.stored.delete(params.recordingName);
    return noContent();
  },
});

const getStoredFile = defineOperation({
  httpMethod: 'GET',
  nickname: 'getStoredFile',
  summary: 'Get the file associated with the stored recording.',
  notes: 'The body is the file itself, with Content-Type audio/<format> (audio/wav for wav).',
  responseClass: 'binary',
  since: ['14.0.0'],
  parameters: [recordingName],
  errorResponses: [{ code: 403, reason: 'The recording file could not be opened' }, NOT_FOUND],
  handler: ({ core, params }) => {
    const file = core.recordings.stored.require(params.recordingName);
    let bytes: Buffer;
    try {
      bytes = readFileSync(file.path);
    } catch {
      throw forbidden('The recording file could not be opened');
    }
    return okBinary(bytes, recordingContentType(file.format));
  },
});

const copyStored = defineOperation({
  httpMethod: 'POST',
  nickname: 'copyStored',
  summary: 'Copy a stored recording.',
  notes: 'The copy goes into the recording directory or a directory under it; a name that would leave it is refused.',
  responseClass: 'StoredRecording',
  since: ['12.5.0'],
  parameters: [
    recordingName,
    {
      name: 'destinationRecordingName',
      description: 'The destination name of the recording',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
  ],
  errorResponses: [
    { code: 400, reason: 'Invalid destination recording name' },
    NOT_FOUND,
    { code: 409, reason: 'A recording with the same name already exists on the system' },
  ],
  handler: ({ core, params }) => ok(core.recordings.stored.copy(params.recordingName, params.destinationRecordingName)),
});

const getLive = defineOperation({
  httpMethod: 'GET',
  nickname: 'getLive',
  summary: 'List live recordings.',
  responseClass: 'LiveRecording',
  since: ['12.0.0'],
  parameters: [recordingName],
  errorResponses: [NOT_FOUND],
  handler: ({ core, params }) => ok(core.recordings.getLive(params.recordingName).snapshot()),
});

/** A live-recording control: 404 unknown, 409 in a state that does not allow it. */
function liveControl(
  httpMethod: 'POST' | 'DELETE',
  nickname: string,
  summary: string,
  run: (core: SwitchboardCore, name: string) => Promise<void>,
) {
  return defineOperation({
    httpMethod,
    nickname,
    summary,
    responseClass: 'void',
    since: ['12.0.0'],
    parameters: [recordingName],
    errorResponses: [NOT_FOUND, WRONG_STATE],
    handler: async ({ core, params }) => {
      await run(core, params.recordingName);
      return noContent();
    },
  });
}

const cancel = liveControl('DELETE', 'cancel', 'Stop a live recording and discard it.', (core, name) => core.recordings.cancel(name));
const stop = liveControl('POST', 'stop', 'Stop a live recording and store it.', (core, name) => core.recordings.stop(name));
const pause = liveControl('POST', 'pause', 'Pause a live recording.', (core, name) => core.recordings.pause(name));
const unpause = liveControl('DELETE', 'unpause', 'Unpause a live recording.', (core, name) => core.recordings.unpause(name));
const mute = liveControl('POST', 'mute', 'Mute a live recording (silence is recorded instead).', (core, name) =>
  core.recordings.mute(name),
);
const unmute = liveControl('DELETE', 'unmute', 'Unmute a live recording.', (core, name) => core.recordings.unmute(name));
/** SPEC §4.7 also writes unpause and unmute as POSTs on their own paths (nicknames are unique per document). */
const unpauseByPost = liveControl('POST', 'unpauseWithPost', 'Unpause a live recording.', (core, name) => core.recordings.unpause(name));
const unmuteByPost = liveControl('POST', 'unmuteWithPost', 'Unmute a live recording.', (core, name) => core.recordings.unmute(name));

export const recordingsResource: ResourceDecl = {
  name: 'recordings',
  description: 'Recording resources',
  swaggerVersion: '1.1',
  since: ['12.0.0'],
  apis: [
    { path: '/recordings/stored', description: 'Recordings', operations: [listStored] },
    { path: '/recordings/stored/{recordingName}', description: 'Individual recording', operations: [getStored, deleteStored] },
    {
      path: '/recordings/stored/{recordingName}/file',
      description: 'The actual file associated with the stored recording',
      operations: [getStoredFile],
    },
    { path: '/recordings/stored/{recordingName}/copy', description: 'Copy an individual recording', operations: [copyStored] },
    { path: '/recordings/live/{recordingName}', description: 'A recording that is in progress', operations: [getLive, cancel] },
    { path: '/recordings/live/{recordingName}/stop', description: 'Stop a live recording', operations: [stop] },
    { path: '/recordings/live/{recordingName}/unpause', description: 'Unpause a live recording', operations: [unpauseByPost] },
    { path: '/recordings/live/{recordingName}/unmute', description: 'Unmute a live recording', operations: [unmuteByPost] },
    { path: '/recordings/live/{recordingName}/pause', description: 'Pause a live recording', operations: [pause, unpause] },
    { path: '/recordings/live/{recordingName}/mute', description: 'Mute a live recording', operations: [mute, unmute] },
  ],
  models: RECORDING_MODELS,
};

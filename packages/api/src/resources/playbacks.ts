/** The `playbacks` resource (reference playbacks.md; states and 409 rule per SPEC §3). */
import { PLAYBACK_CONTROLS } from '@switchboard/core';
import { defineOperation, noContent, ok, type ResourceDecl } from '../http/operation.js';
import { PLAYBACK_MODELS } from '../swagger/models/playbacks.js';
import type { ParameterDecl } from '../swagger/types.js';

/** Where a new playback can be read back (the Location of a 201). */
export const playbackLocation = (apiRoot: string, id: string) => `${apiRoot}/playbacks/${encodeURIComponent(id)}`;

const playbackId = {
  name: 'playbackId',
  description: "Playback's id",
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const satisfies ParameterDecl;

const NOT_FOUND = { code: 404, reason: 'The playback cannot be found' } as const;

const get = defineOperation({
  httpMethod: 'GET',
  nickname: 'get',
  summary: 'Get a playback',
  responseClass: 'Playback',
  since: ['12.0.0'],
  parameters: [playbackId],
  errorResponses: [NOT_FOUND],
  handler: ({ core, params }) => ok(core.playbacks.get(params.playbackId).snapshot()),
});

const stop = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'stop',
  summary: 'Stop a playback (or cancel it while it is still queued).',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [playbackId],
  errorResponses: [NOT_FOUND],
  handler: async ({ core, params }) => {
    await core.playbacks.stop(params.playbackId);
    return noContent();
  },
});

const control = defineOperation({
  httpMethod: 'POST',
  nickname: 'control',
  summary: 'Control a playback.',
  notes: 'Control operations affect only the media item now playing.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [
    playbackId,
    {
      name: 'operation',
      description: 'Operation to perform on the playback',
      paramType: 'query',
      dataType: 'string',
      required: true,
      allowableValues: { valueType: 'LIST', values: PLAYBACK_CONTROLS },
    },
  ],
  errorResponses: [
    { code: 400, reason: 'The provided operation parameter was invalid' },
    NOT_FOUND,
    { code: 409, reason: "The operation cannot be performed in the playback's current state" },
    { code: 409, reason: 'restart of a queued playback (SPEC §3 rule 1)', coreError: 'restart_queued' },
  ],
  handler: async ({ core, params }) => {
    await core.playbacks.control(params.playbackId, params.operation);
    return noContent();
  },
});

export const playbacksResource: ResourceDecl = {
  name: 'playbacks',
  description: 'Playback control resources',
  swaggerVersion: '1.1',
  since: ['12.0.0'],
  apis: [
    { path: '/playbacks/{playbackId}', description: 'Control object for a playback operation', operations: [get, stop] },
    { path: '/playbacks/{playbackId}/control', description: 'Control object for a playback operation', operations: [control] },
  ],
  models: PLAYBACK_MODELS,
};

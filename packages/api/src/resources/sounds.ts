/** The `sounds` resource (reference sounds.md). */
import { notFound } from '@switchboard/core';
import { defineOperation, ok, type ResourceDecl } from '../http/operation.js';
import { SOUND_MODELS } from '../swagger/models/sounds.js';

const list = defineOperation({
  httpMethod: 'GET',
  nickname: 'list',
  summary: 'List all sounds.',
  notes: 'Answers 404 when no sound matches, as the reference does.',
  responseClass: 'List[Sound]',
  since: ['12.0.0'],
  parameters: [
    { name: 'lang', description: 'Lookup sound for a specific language.', paramType: 'query', dataType: 'string', required: false },
    { name: 'format', description: 'Lookup sound in a specific format.', paramType: 'query', dataType: 'string', required: false },
  ],
  errorResponses: [{ code: 404, reason: 'No sounds found that matched the query' }],
  handler: ({ core, params }) => {
    const sounds = core.sounds.list({ lang: params.lang, format: params.format });
    if (sounds.length === 0) throw notFound('No sounds found that matched the query');
    return ok(sounds);
  },
});

const get = defineOperation({
  httpMethod: 'GET',
  nickname: 'get',
  summary: "Get a sound's details.",
  responseClass: 'Sound',
  since: ['12.0.0'],
  parameters: [{ name: 'soundId', description: "Sound's id", paramType: 'path', dataType: 'string', required: true }],
  errorResponses: [{ code: 404, reason: 'Sound not found' }],
  handler: ({ core, params }) => ok(core.sounds.get(params.soundId)),
});

export const soundsResource: ResourceDecl = {
  name: 'sounds',
  description: 'Sound resources',
  swaggerVersion: '1.1',
  since: ['12.0.0'],
  apis: [
    { path: '/sounds', description: 'Sounds', operations: [list] },
    { path: '/sounds/{soundId}', description: 'Individual sound', operations: [get] },
  ],
  models: SOUND_MODELS,
};

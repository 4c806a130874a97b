/**
 * Dynamic configuration objects of the `system` resource (SPEC §4.3, reference system.md), under
 * SPEC's path `/system/{configClass}/{objectType}/{id}` and the reference's
 * `/system/config/dynamic/...`. Literal segments win over parameters, so
 * `/system/logging/{name}/rotate` keeps its meaning (there is no configuration class `logging`).
 */
import type { ConfigTupleRecord } from '@switchboard/core';
import { badRequest } from '../http/api-error.js';
import { type ApiDecl, defineOperation, noContent, ok } from '../http/operation.js';
import { isPlainObject } from '../http/variables.js';

const pathParams = [
  {
    name: 'configClass',
    description: 'The configuration class containing dynamic configuration objects (res_pjsip).',
    paramType: 'path',
    dataType: 'string',
    required: true,
  },
  {
    name: 'objectType',
    description: 'The type of configuration object (endpoint, aor, auth, identify).',
    paramType: 'path',
    dataType: 'string',
    required: true,
  },
  { name: 'id', description: 'The unique identifier of the object.', paramType: 'path', dataType: 'string', required: true },
] as const;

const getObject = (nickname: string) =>
  defineOperation({
    httpMethod: 'GET',
    nickname,
    summary: 'Retrieve a dynamic configuration object.',
    responseClass: 'List[ConfigTuple]',
    since: ['13.5.0'],
    parameters: pathParams,
    errorResponses: [{ code: 404, reason: '{configClass|objectType|id} not found' }],
    handler: async ({ core, params }) => ok(await core.dynamicConfig.get(params.configClass, params.objectType, params.id)),
  });

const updateObject = (nickname: string) =>
  defineOperation({
    httpMethod: 'PUT',
    nickname,
    summary: 'Create or update a dynamic configuration object.',
    notes: 'Objects from configuration files are read-only here (403).',
    responseClass: 'List[ConfigTuple]',
    since: ['13.5.0'],
    parameters: [
      ...pathParams,
      {
        name: 'fields',
        description: 'The body object has a "fields" key: a list of {"attribute", "value"} tuples to create or change.',
        paramType: 'body',
        dataType: 'containers',
        required: false,
      },
    ],
    errorResponses: [
      { code: 400, reason: 'Bad request body' },
      { code: 403, reason: 'Could not create or update object' },
      { code: 404, reason: '{configClass|objectType} not found' },
    ],
    handler: async ({ core, params }) =>
      ok(await core.dynamicConfig.update(params.configClass, params.objectType, params.id, tuples(params.fields))),
  });

const deleteObject = (nickname: string) =>
  defineOperation({
    httpMethod: 'DELETE',
    nickname,
    summary: 'Delete a dynamic configuration object.',
    responseClass: 'void',
    since: ['13.5.0'],
    parameters: pathParams,
    errorResponses: [
      { code: 403, reason: 'Could not delete object' },
      { code: 404, reason: '{configClass|objectType|id} not found' },
    ],
    handler: async ({ core, params }) => {
      await core.dynamicConfig.delete(params.configClass, params.objectType, params.id);
      return noContent();
    },
  });

function tuples(value: unknown): ConfigTupleRecord[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw badRequest('fields must be a list of {"attribute", "value"} objects');
  return value.map((entry) => {
    if (!isPlainObject(entry) || typeof entry.attribute !== 'string' || entry.attribute === '') {
      throw badRequest('fields must be a list of {"attribute", "value"} objects');
    }
    const v = entry.value;
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
      throw badRequest(`value of ${entry.attribute} must be a string`);
    return { attribute: entry.attribute, value: String(v) };
  });
}

export const CONFIG_APIS: readonly ApiDecl[] = [
  {
    path: '/system/config/dynamic/{configClass}/{objectType}/{id}',
    description: 'Dynamic configuration object',
    operations: [getObject('getObject'), updateObject('updateObject'), deleteObject('deleteObject')],
  },
  // SPEC §4.3's path; nicknames are unique per document, so these carry their own.
  {
    path: '/system/{configClass}/{objectType}/{id}',
    description: 'Dynamic configuration object (SPEC path)',
    operations: [getObject('getConfigObject'), updateObject('updateConfigObject'), deleteObject('deleteConfigObject')],
  },
];

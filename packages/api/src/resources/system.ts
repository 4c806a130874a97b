/** The `system` resource (reference system.md; the reference names it `asterisk`). */
import type { InfoSection } from '@switchboard/core';
import { defineOperation, ok, type ResourceDecl } from '../http/operation.js';
import { CONFIG_APIS } from './system-config.js';
import { LOGGING_APIS } from './system-logging.js';
import { MODULE_APIS } from './system-modules.js';
import { VARIABLE_APIS } from './system-variables.js';
import { SYSTEM_MODELS } from '../swagger/models/system.js';

const INFO_SECTIONS = ['build', 'system', 'config', 'status'] as const satisfies readonly InfoSection[];

const getInfo = defineOperation({
  httpMethod: 'GET',
  nickname: 'getInfo',
  summary: 'Gets system information.',
  responseClass: 'SystemInfo',
  since: ['12.0.0'],
  parameters: [
    {
      name: 'only',
      description: 'Filter information returned; all sections when absent',
      paramType: 'query',
      dataType: 'string',
      required: false,
      allowMultiple: true,
      allowableValues: { valueType: 'LIST', values: INFO_SECTIONS },
    },
  ],
  errorResponses: [],
  handler: ({ core, params }) => ok(core.system.info(params.only)),
});

const ping = defineOperation({
  httpMethod: 'GET',
  nickname: 'ping',
  summary: 'Response pong message.',
  responseClass: 'SystemPing',
  since: ['13.25.0', '16.2.0'],
  parameters: [],
  errorResponses: [],
  handler: ({ core }) => ok(core.system.ping()),
});

export const systemResource: ResourceDecl = {
  name: 'system',
  description: 'System resources',
  swaggerVersion: '1.1',
  since: ['12.0.0'],
  // Clients written for the reference call /asterisk/...; the same operations answer there.
  apis: [
    { path: '/system/info', description: 'System information', operations: [getInfo] },
    { path: '/system/ping', description: 'System ping', operations: [ping] },
    ...CONFIG_APIS,
    ...MODULE_APIS,
    ...LOGGING_APIS,
    ...VARIABLE_APIS,
  ],
  models: SYSTEM_MODELS,
};

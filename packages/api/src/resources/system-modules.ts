/** Modules of the `system` resource (SPEC §4.3, reference system.md; errors per [7-a]). */
import { type ApiDecl, defineOperation, noContent, ok } from '../http/operation.js';

const moduleName = { name: 'moduleName', description: "Module's name", paramType: 'path', dataType: 'string', required: true } as const;

const listModules = defineOperation({
  httpMethod: 'GET',
  nickname: 'listModules',
  summary: 'List loaded modules.',
  responseClass: 'List[Module]',
  since: ['13.5.0'],
  parameters: [],
  errorResponses: [],
  handler: ({ core }) => ok(core.modules.list()),
});

const getModule = defineOperation({
  httpMethod: 'GET',
  nickname: 'getModule',
  summary: 'Get module information.',
  responseClass: 'Module',
  since: ['13.5.0'],
  parameters: [moduleName],
  errorResponses: [
    { code: 404, reason: 'Module could not be found in running modules.' },
    { code: 409, reason: 'Module information could not be retrieved.' },
  ],
  handler: ({ core, params }) => ok(core.modules.get(params.moduleName)),
});

const loadModule = defineOperation({
  httpMethod: 'POST',
  nickname: 'loadModule',
  summary: 'Load a module.',
  responseClass: 'void',
  since: ['13.5.0'],
  parameters: [moduleName],
  errorResponses: [{ code: 409, reason: 'Module could not be loaded.' }],
  handler: async ({ core, params }) => {
    await core.modules.load(params.moduleName);
    return noContent();
  },
});

const unloadModule = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'unloadModule',
  summary: 'Unload a module.',
  responseClass: 'void',
  since: ['13.5.0'],
  parameters: [moduleName],
  errorResponses: [
    { code: 404, reason: 'Module not found in running modules.' },
    { code: 409, reason: 'Module could not be unloaded.' },
  ],
  handler: async ({ core, params }) => {
    await core.modules.unload(params.moduleName);
    return noContent();
  },
});

const reloadModule = defineOperation({
  httpMethod: 'PUT',
  nickname: 'reloadModule',
  summary: 'Reload a module.',
  responseClass: 'void',
  since: ['13.5.0'],
  parameters: [moduleName],
  errorResponses: [
    { code: 404, reason: 'Module not found in running modules.' },
    { code: 409, reason: 'Module could not be reloaded.' },
  ],
  handler: async ({ core, params }) => {
    await core.modules.reload(params.moduleName);
    return noContent();
  },
});

export const MODULE_APIS: readonly ApiDecl[] = [
  { path: '/system/modules', description: 'Server modules', operations: [listModules] },
  { path: '/system/modules/{moduleName}', description: 'Server module', operations: [getModule, loadModule, unloadModule, reloadModule] },
];

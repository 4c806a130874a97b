/** Global variables of the `system` resource (reference system.md getGlobalVar/setGlobalVar). */
import { type ApiDecl, defineOperation, noContent, ok } from '../http/operation.js';

const variable = { name: 'variable', description: 'The variable to get', paramType: 'query', dataType: 'string', required: true } as const;

const getGlobalVar = defineOperation({
  httpMethod: 'GET',
  nickname: 'getGlobalVar',
  summary: 'Get the value of a global variable.',
  notes: 'An unknown variable reads as the empty string.',
  responseClass: 'Variable',
  since: ['12.0.0'],
  parameters: [variable],
  errorResponses: [{ code: 400, reason: 'Missing variable parameter.' }],
  handler: ({ core, params }) => ok({ value: core.globalVariables.get(params.variable) }),
});

const setGlobalVar = defineOperation({
  httpMethod: 'POST',
  nickname: 'setGlobalVar',
  summary: 'Set the value of a global variable.',
  notes: 'Without value the variable is removed. The value is kept across restarts and seen by the dialplan in variable expansions.',
  responseClass: 'void',
  since: ['12.0.0'],
  parameters: [
    { ...variable, description: 'The variable to set' },
    { name: 'value', description: 'The value to set the variable to', paramType: 'query', dataType: 'string', required: false },
  ],
  errorResponses: [{ code: 400, reason: 'Missing variable parameter.' }],
  handler: async ({ core, params }) => {
    await core.globalVariables.set(params.variable, params.value);
    return noContent();
  },
});

export const VARIABLE_APIS: readonly ApiDecl[] = [
  { path: '/system/variable', description: 'Global variables', operations: [getGlobalVar, setGlobalVar] },
];

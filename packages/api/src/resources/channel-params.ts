/** Declarations shared by the channel operations (reference channels.md): the path id and the error triad. */
import type { VariableSetting } from '@switchboard/core';
import { parseVariables } from '../http/variables.js';
import type { ParameterDecl } from '../swagger/types.js';

export const channelIdParam = {
  name: 'channelId',
  description: "Channel's id",
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const satisfies ParameterDecl;

export const NOT_FOUND = { code: 404, reason: 'Channel not found' } as const;
export const NOT_IN_APP = { code: 409, reason: 'Channel not in an application' } as const;
export const NOT_ANSWERED = { code: 412, reason: 'Channel in invalid state' } as const;

/** What an operation on a controlled channel that must be ready for media can answer. */
export const CONTROL_ERRORS = [NOT_FOUND, NOT_IN_APP, NOT_ANSWERED] as const;

export const appArgsParam = {
  name: 'appArgs',
  description: 'The application arguments to pass to the application, comma-separated',
  paramType: 'query',
  dataType: 'string',
  required: false,
} as const satisfies ParameterDecl;

export const variablesBodyParam = {
  name: 'variables',
  description:
    'The "variables" key in the body object holds variable key/value pairs to set on the channel on creation. ' +
    'Other keys in the body object are interpreted as query parameters. ' +
    'Ex. { "endpoint": "SIP/alice", "variables": { "CALLERID(name)": "Alice" } }',
  paramType: 'body',
  dataType: 'containers',
  required: false,
} as const satisfies ParameterDecl;

/** Body `variables` as core's settings; numbers and booleans become text, other shapes are a 400. */
export function variableSettings(body: unknown): VariableSetting[] {
  return [...parseVariables(body)].map(([name, { value, reportEvents }]) => ({ name, value, reportEvents }));
}

/** Parameters shared by the endpoint operations (messages and REFER). */
import type { ApiResult } from '../http/operation.js';
import { parseVariables } from '../http/variables.js';

export const tech = {
  name: 'tech',
  description: 'Technology of the endpoints (SIP; PJSIP is accepted)',
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const;
export const resource = {
  name: 'resource',
  description: 'ID of the endpoint',
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const;
export const from = {
  name: 'from',
  description: 'The endpoint resource or technology specific identity to send this message from.',
  paramType: 'query',
  dataType: 'string',
  required: true,
} as const;
export const body = {
  name: 'body',
  description: 'The body of the message',
  paramType: 'query',
  dataType: 'string',
  required: false,
} as const;
export const variables = {
  name: 'variables',
  description: 'The "variables" key in the body object holds technology specific key/value pairs to append to the message.',
  paramType: 'body',
  dataType: 'containers',
  required: false,
} as const;

export const accepted = (): ApiResult => ({ status: 202 });

/** Text message variables are plain strings (SIP headers). */
export function messageVariables(value: unknown): Record<string, string> {
  return Object.fromEntries([...parseVariables(value)].map(([name, assignment]) => [name, assignment.value]));
}

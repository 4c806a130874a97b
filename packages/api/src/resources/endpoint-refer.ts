/**
 * REFER outside a call (reference endpoints.md `refer`, `referToEndpoint`): 202 once the REFER is
 * handed to the network; 404 when a party cannot be resolved.
 */
import { defineOperation } from '../http/operation.js';
import { accepted, messageVariables, resource, tech } from './endpoint-params.js';

const from = {
  name: 'from',
  description: 'The endpoint resource or technology specific identity to send the REFER from.',
  paramType: 'query',
  dataType: 'string',
  required: true,
} as const;
const referTo = {
  name: 'refer_to',
  description: 'The endpoint resource or technology specific URI to refer to (pjsip:bob, sip:bob@example.com).',
  paramType: 'query',
  dataType: 'string',
  required: true,
} as const;
const toSelf = {
  name: 'to_self',
  description: 'If true and refer_to names one of our endpoints, the Refer-To points at this server instead of the endpoint itself.',
  paramType: 'query',
  dataType: 'boolean',
  required: false,
  defaultValue: false,
} as const;
const displayName = {
  name: 'display_name',
  description: 'Display name written in front of the Refer-To URI (also read from the top-level body key of that name).',
  paramType: 'query',
  dataType: 'string',
  required: false,
} as const;
const referVariables = {
  name: 'variables',
  description: 'The "variables" key in the body object holds technology specific key/value pairs (SIP headers) to add to the REFER.',
  paramType: 'body',
  dataType: 'containers',
  required: false,
} as const;

const ERRORS = [
  { code: 400, reason: 'Invalid parameters for referring.' },
  { code: 404, reason: 'Endpoint not found' },
];

export const referToUri = defineOperation({
  httpMethod: 'POST',
  nickname: 'refer',
  summary: 'Refer an endpoint or technology URI to some technology URI or endpoint.',
  responseClass: 'void',
  since: ['18.20.0', '20.5.0'],
  parameters: [
    {
      name: 'to',
      description: 'The endpoint resource or technology specific URI that should be referred somewhere (pjsip:alice).',
      paramType: 'query',
      dataType: 'string',
      required: true,
    },
    from,
    referTo,
    toSelf,
    displayName,
    referVariables,
  ],
  errorResponses: ERRORS,
  handler: async ({ core, params }) => {
    await core.refers.refer({
      to: params.to,
      from: params.from,
      referTo: params.refer_to,
      toSelf: params.to_self,
      ...(params.display_name === undefined ? {} : { displayName: params.display_name }),
      variables: messageVariables(params.variables),
    });
    return accepted();
  },
});

export const referToEndpoint = defineOperation({
  httpMethod: 'POST',
  nickname: 'referToEndpoint',
  summary: 'Refer an endpoint in a technology to some technology URI or endpoint.',
  responseClass: 'void',
  since: ['18.20.0', '20.5.0'],
  parameters: [tech, resource, from, referTo, toSelf, displayName, referVariables],
  errorResponses: ERRORS,
  handler: async ({ core, params }) => {
    core.endpoints.require(params.tech, params.resource);
    await core.refers.refer({
      to: `${params.tech.toLowerCase()}:${params.resource}`,
      from: params.from,
      referTo: params.refer_to,
      toSelf: params.to_self,
      ...(params.display_name === undefined ? {} : { displayName: params.display_name }),
      variables: messageVariables(params.variables),
    });
    return accepted();
  },
});

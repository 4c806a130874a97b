/**
 * The `mailboxes` resource (SPEC §4.10, reference mailboxes.md). While the external-mailbox module
 * is unloaded mailboxes are out of service: reads show none (empty list, 404) and writes answer 409.
 */
import { MAILBOX_MODULE } from '@switchboard/core';
import { defineOperation, noContent, ok, type ResourceDecl } from '../http/operation.js';
import { MAILBOX_MODELS } from '../swagger/models/mailboxes.js';

const mailboxName = {
  name: 'mailboxName',
  description: 'Name of the mailbox',
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const;
const notLoaded = { code: 409, reason: `Module ${MAILBOX_MODULE} is not loaded` } as const;

const list = defineOperation({
  httpMethod: 'GET',
  nickname: 'list',
  summary: 'List all mailboxes.',
  responseClass: 'List[Mailbox]',
  since: ['12.1.0'],
  parameters: [],
  errorResponses: [],
  handler: async ({ core }) => ok(await core.mailboxes.list()),
});

const get = defineOperation({
  httpMethod: 'GET',
  nickname: 'get',
  summary: 'Retrieve the current state of a mailbox.',
  responseClass: 'Mailbox',
  since: ['12.1.0'],
  parameters: [mailboxName],
  errorResponses: [{ code: 404, reason: 'Mailbox not found' }],
  handler: async ({ core, params }) => ok(await core.mailboxes.get(params.mailboxName)),
});

const count = (name: string, description: string) =>
  ({ name, description, paramType: 'query', dataType: 'int', required: true, allowableValues: { valueType: 'RANGE', min: 0 } }) as const;

const update = defineOperation({
  httpMethod: 'PUT',
  nickname: 'update',
  summary: 'Change the state of a mailbox. (Note - implicitly creates the mailbox).',
  responseClass: 'void',
  since: ['12.1.0'],
  parameters: [
    mailboxName,
    count('oldMessages', 'Count of old messages in the mailbox'),
    count('newMessages', 'Count of new messages in the mailbox'),
  ],
  errorResponses: [{ code: 404, reason: 'Mailbox not found' }, notLoaded],
  handler: async ({ core, params }) => {
    await core.mailboxes.update(params.mailboxName, params.oldMessages, params.newMessages);
    return noContent();
  },
});

const remove = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'delete',
  summary: 'Destroy a mailbox.',
  responseClass: 'void',
  since: ['12.1.0'],
  parameters: [mailboxName],
  errorResponses: [{ code: 404, reason: 'Mailbox not found' }, notLoaded],
  handler: async ({ core, params }) => {
    await core.mailboxes.delete(params.mailboxName);
    return noContent();
  },
});

export const mailboxesResource: ResourceDecl = {
  name: 'mailboxes',
  description: 'Mailboxes resources',
  swaggerVersion: '1.1',
  since: ['12.1.0'],
  requiresModules: [MAILBOX_MODULE],
  apis: [
    { path: '/mailboxes', description: 'Mailboxes', operations: [list] },
    { path: '/mailboxes/{mailboxName}', description: 'Mailbox state', operations: [get, update, remove] },
  ],
  models: MAILBOX_MODELS,
};

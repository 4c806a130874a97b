/** The `applications` resource (reference applications.md). */
import { badRequest } from '../http/api-error.js';
import { defineOperation, ok, type ResourceDecl } from '../http/operation.js';
import { isPlainObject } from '../http/variables.js';
import { APPLICATION_MODELS } from '../swagger/models/applications.js';

const applicationName = {
  name: 'applicationName',
  description: "Application's name",
  paramType: 'path',
  dataType: 'string',
  required: true,
} as const;

const eventSource = {
  name: 'eventSource',
  description:
    'URI for event source (channel:{channelId}, bridge:{bridgeId}, endpoint:{tech}[/{resource}], deviceState:{deviceName}); a blank id means every resource of the kind',
  paramType: 'query',
  dataType: 'string',
  required: true,
  allowMultiple: true,
} as const;

const list = defineOperation({
  httpMethod: 'GET',
  nickname: 'list',
  summary: 'List all applications.',
  responseClass: 'List[Application]',
  since: ['13.0.0'],
  parameters: [],
  errorResponses: [],
  handler: ({ core }) => ok(core.applications.list().map((app) => app.snapshot())),
});

const get = defineOperation({
  httpMethod: 'GET',
  nickname: 'get',
  summary: 'Get details of an application.',
  responseClass: 'Application',
  since: ['13.0.0'],
  parameters: [applicationName],
  errorResponses: [{ code: 404, reason: 'Application does not exist.' }],
  handler: ({ core, params }) => ok(core.applications.require(params.applicationName).snapshot()),
});

const subscribe = defineOperation({
  httpMethod: 'POST',
  nickname: 'subscribe',
  summary: 'Subscribe an application to a event source.',
  notes: 'Returns the state of the application after the subscriptions have changed. Each subscription is counted.',
  responseClass: 'Application',
  since: ['13.0.0'],
  parameters: [applicationName, eventSource],
  errorResponses: [
    { code: 400, reason: 'Missing parameter or invalid event source.' },
    { code: 404, reason: 'Application does not exist.' },
    { code: 422, reason: 'Event source does not exist.' },
  ],
  handler: async ({ core, params }) =>
    ok((await core.subscriptions.subscribeAnywhere(params.applicationName, params.eventSource)).snapshot()),
});

const unsubscribe = defineOperation({
  httpMethod: 'DELETE',
  nickname: 'unsubscribe',
  summary: 'Unsubscribe an application from an event source.',
  notes: 'Returns the state of the application after the subscriptions have changed. Removes one count of each subscription.',
  responseClass: 'Application',
  since: ['13.0.0'],
  parameters: [applicationName, eventSource],
  errorResponses: [
    { code: 400, reason: 'Missing parameter; event source scheme not recognized.' },
    { code: 404, reason: 'Application does not exist.' },
    { code: 409, reason: 'Application not subscribed to event source.' },
    { code: 422, reason: 'Event source does not exist, or the application is not subscribed to it.' },
  ],
  handler: ({ core, params }) => ok(core.subscriptions.unsubscribe(params.applicationName, params.eventSource).snapshot()),
});

const filter = defineOperation({
  httpMethod: 'PUT',
  nickname: 'filter',
  summary: 'Filter application events types.',
  notes:
    'The body is the filter: {"allowed": [{"type": "EventType"}], "disallowed": [{"type": "EventType"}]}. An empty body clears both lists; a list absent from a non-empty body is left unchanged. Disallowed wins over allowed.',
  responseClass: 'Application',
  since: ['13.26.0', '16.3.0'],
  parameters: [
    applicationName,
    { name: 'filter', description: 'Specify which event types to allow/disallow', paramType: 'body', dataType: 'object', required: false },
  ],
  errorResponses: [
    { code: 400, reason: 'Bad request.' },
    { code: 404, reason: 'Application does not exist.' },
  ],
  handler: ({ core, params }) => {
    const app = core.applications.require(params.applicationName);
    const body = params.filter ?? {};
    if (Object.keys(body).length === 0) app.setEventFilter([], []);
    else app.setEventFilter(eventTypes(body.allowed, 'allowed'), eventTypes(body.disallowed, 'disallowed'));
    return ok(app.snapshot());
  },
});

/** `[{"type": "X"}, …]` → `['X', …]`; undefined when the list is absent. */
function eventTypes(value: unknown, name: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw badRequest(`${name} must be a list of {"type": name} objects`);
  return value.map((entry) => {
    if (!isPlainObject(entry) || typeof entry.type !== 'string' || entry.type === '') {
      throw badRequest(`${name} must be a list of {"type": name} objects`);
    }
    return entry.type;
  });
}

export const applicationsResource: ResourceDecl = {
  name: 'applications',
  description: 'Application resources',
  swaggerVersion: '1.1',
  since: ['13.0.0'],
  apis: [
    { path: '/applications', description: 'Applications', operations: [list] },
    { path: '/applications/{applicationName}', description: 'Application', operations: [get] },
    {
      path: '/applications/{applicationName}/subscription',
      description: 'Application subscriptions',
      operations: [subscribe, unsubscribe],
    },
    { path: '/applications/{applicationName}/eventFilter', description: 'Application event filter', operations: [filter] },
  ],
  models: APPLICATION_MODELS,
};

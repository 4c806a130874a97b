/** The `applications` resource (reference applications.md). */
import { defineOperation, ok, type ResourceDecl } from '../http/operation.js';
import { APPLICATION_MODELS } from '../swagger/models/applications.js';

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
  parameters: [{ name: 'applicationName', description: "Application's name", paramType: 'path', dataType: 'string', required: true }],
  errorResponses: [{ code: 404, reason: 'Application does not exist.' }],
  handler: ({ core, params }) => ok(core.applications.require(params.applicationName).snapshot()),
});

export const applicationsResource: ResourceDecl = {
  name: 'applications',
  description: 'Application resources',
  swaggerVersion: '1.1',
  since: ['13.0.0'],
  apis: [
    { path: '/applications', description: 'Applications', operations: [list] },
    { path: '/applications/{applicationName}', description: 'Application', operations: [get] },
  ],
  models: APPLICATION_MODELS,
};

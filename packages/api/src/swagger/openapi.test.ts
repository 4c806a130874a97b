import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RESOURCES } from '../resources/index.js';
import { basic, type Harness, startHarness } from '../testing/harness.js';
import { EventModel } from './models/events.js';
import type { OpenApiDocument } from './openapi.js';

/** Every `$ref` in a document. */
function refs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refs(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push(item);
      else refs(item, found);
    }
  }
  return found;
}

describe('OpenAPI 3.1 document', () => {
  let h: Harness;
  let doc: OpenApiDocument;
  before(async () => {
    h = await startHarness();
    const response = await h.inject({ method: 'GET', url: '/ari/openapi.json', headers: { host: 'pbx.example:8088' } });
    assert.equal(response.statusCode, 200);
    doc = response.json<OpenApiDocument>();
  });
  after(() => h.close());

  test('is served with the API credentials, at the address the client used', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.servers, [{ url: 'http://pbx.example:8088/ari' }]);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/openapi.json', auth: null })).statusCode, 401);
  });

  test('has every declared operation, with its parameters and every error status it declares', () => {
    for (const resource of RESOURCES) {
      for (const api of resource.apis) {
        for (const op of api.operations) {
          const operation = doc.paths[api.path]?.[op.httpMethod.toLowerCase()] as
            | { operationId: string; parameters: { name: string }[]; responses: Record<string, unknown> }
            | undefined;
          assert.ok(operation, `${op.httpMethod} ${api.path}`);
          assert.equal(operation.operationId, `${resource.name}_${op.nickname}`);
          const declared = op.parameters.filter((p) => p.paramType !== 'body').map((p) => p.name);
          assert.deepEqual(
            operation.parameters.map((p) => p.name),
            declared,
          );
          for (const error of op.errorResponses) assert.ok(operation.responses[String(error.code)], `${op.nickname} ${error.code}`);
        }
      }
    }
  });

  test('every $ref resolves to a schema', () => {
    for (const target of refs(doc)) {
      const id = target.replace('#/components/schemas/', '');
      assert.ok(doc.components.schemas[id], `${target} is defined`);
    }
  });

  test('events are a discriminated union on type', () => {
    for (const id of EventModel.subTypes ?? []) {
      const schema = doc.components.schemas[id] as { allOf: [{ $ref: string }, { properties: { type: { const: string } } }] };
      assert.equal(schema.allOf[0].$ref, '#/components/schemas/Event', id);
      assert.equal(schema.allOf[1].properties.type.const, id);
    }
    assert.deepEqual((doc.components.schemas.Message as { discriminator: unknown }).discriminator, { propertyName: 'type' });
  });

  test('is written in the reader’s dialect, like the api-docs', async () => {
    const response = await h.inject({ method: 'GET', url: '/ari/openapi.json', auth: basic('classic', 'stasis') });
    const classic = response.json<OpenApiDocument>();
    const schemas = classic.components.schemas;
    assert.ok(schemas.StasisStart && schemas.StasisEnd && schemas.AsteriskInfo, 'events and models under the reference names');
    assert.equal(schemas.AppStart, undefined);
    const start = schemas.StasisStart as { allOf: [{ $ref: string }, { properties: { type: { const: string } } }] };
    assert.equal(start.allOf[1].properties.type.const, 'StasisStart');
    const state = (schemas.Playback as { properties: { state: { enum: string[] } } }).properties.state.enum;
    assert.ok(state.includes('queued') && state.includes('done') && !state.includes('enqueued'), state.join(','));
    assert.ok(classic.paths['/asterisk/info'] && !classic.paths['/system/info']);
    const info = classic.paths['/asterisk/info']?.get as { operationId: string; responses: Record<string, unknown> };
    assert.equal(info.operationId, 'asterisk_getInfo');
    assert.deepEqual(info.responses['200'], {
      description: 'Success',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/AsteriskInfo' } } },
    });
    type Responses = { responses: Record<string, { description: string }> };
    const record = classic.paths['/channels/{channelId}/record']?.post as Responses;
    assert.match(record.responses['409']?.description ?? '', /already exists/, 'the reference status for an existing recording');
    assert.doesNotMatch(record.responses['422']?.description ?? '', /already exists/);
    const specRecord = doc.paths['/channels/{channelId}/record']?.post as Responses;
    assert.match(specRecord.responses['422']?.description ?? '', /already exists/);
    assert.ok(doc.components.schemas.AppStart && doc.paths['/system/info'], 'SPEC.md names for the default user');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../testing/harness.js';
import type { SwaggerListing, SwaggerResourceDoc } from './generator.js';

/** SPEC §2.1, in order. */
const EXPECTED_LISTING = [
  ['/api-docs/system.{format}', 'System resources'],
  ['/api-docs/endpoints.{format}', 'Endpoint resources'],
  ['/api-docs/channels.{format}', 'Channel resources'],
  ['/api-docs/bridges.{format}', 'Bridge resources'],
  ['/api-docs/recordings.{format}', 'Recording resources'],
  ['/api-docs/sounds.{format}', 'Sound resources'],
  ['/api-docs/playbacks.{format}', 'Playback control resources'],
  ['/api-docs/deviceStates.{format}', 'Device state resources'],
  ['/api-docs/mailboxes.{format}', 'Mailboxes resources'],
  ['/api-docs/events.{format}', 'WebSocket resource'],
  ['/api-docs/applications.{format}', 'Application resources'],
];

/** Every event type core sends today; each must be an Event subtype with a model. */
const SENT_EVENTS = [
  'AppStart',
  'AppEnd',
  'ChannelCreated',
  'ChannelStateChange',
  'ChannelDestroyed',
  'ChannelDialplan',
  'ChannelVarset',
  'ChannelHangupRequest',
  'ChannelDtmfReceived',
  'PlaybackStarted',
  'PlaybackContinuing',
  'PlaybackFinished',
  'ApplicationReplaced',
  'BridgeCreated',
  'BridgeDestroyed',
  'BridgeVideoSourceChanged',
  'ChannelEnteredBridge',
  'ChannelLeftBridge',
  'RecordingStarted',
  'RecordingFinished',
  'RecordingFailed',
];

const EXPECTED_MODELS: Record<string, string[]> = {
  system: [
    'SystemInfo',
    'BuildInfo',
    'SystemVersionInfo',
    'ConfigInfo',
    'SetId',
    'StatusInfo',
    'SystemPing',
    'Variable',
    'Module',
    'LogChannel',
    'ConfigTuple',
  ],
  channels: ['Channel', 'CallerID', 'DialplanCEP'],
  sounds: ['Sound', 'FormatLangPair'],
  playbacks: ['Playback'],
  bridges: ['Bridge'],
  recordings: ['StoredRecording', 'LiveRecording'],
  applications: ['Application'],
  deviceStates: ['DeviceState'],
  mailboxes: ['Mailbox'],
  endpoints: ['Endpoint', 'TextMessage'],
  events: ['Message', 'MissingParams', 'Event', 'ContactInfo', 'Peer', ...SENT_EVENTS],
};

const PRIMITIVES = new Set(['string', 'int', 'long', 'double', 'boolean', 'Date', 'object', 'containers', 'binary', 'void']);
const HOST = 'pbx.example:8088';

describe('api-docs', () => {
  let h: Harness;
  let listing: SwaggerListing;
  const docs = new Map<string, SwaggerResourceDoc>();

  before(async () => {
    h = await startHarness();
    const res = await h.inject({ method: 'GET', url: '/ari/api-docs/resources.json', headers: { host: HOST } });
    assert.equal(res.statusCode, 200);
    listing = res.json();
    for (const entry of listing.apis) {
      const name = /^\/api-docs\/(.+)\.\{format\}$/.exec(entry.path)?.[1] as string;
      const doc = await h.inject({ method: 'GET', url: `/ari/api-docs/${name}.json`, headers: { host: HOST } });
      assert.equal(doc.statusCode, 200, name);
      docs.set(name, doc.json());
    }
  });
  after(() => h.close());

  const allModels = () => new Set([...docs.values()].flatMap((doc) => Object.keys(doc.models)));

  function assertTypeKnown(type: string, where: string) {
    const inner = /^List\[(.+)\]$/.exec(type)?.[1] ?? type;
    assert.ok(PRIMITIVES.has(inner) || allModels().has(inner), `${where}: unknown type ${type}`);
  }

  test('the listing is exactly SPEC §2.1', () => {
    assert.equal(listing.apiVersion, '10.0.0');
    assert.equal(listing.swaggerVersion, '1.1');
    assert.equal(listing.basePath, `http://${HOST}/ari`);
    assert.deepEqual(
      listing.apis.map((a) => [a.path, a.description]),
      EXPECTED_LISTING,
    );
  });

  test('every resource document is a valid swagger 1.1 declaration', () => {
    assert.equal(docs.size, 11);
    for (const [name, doc] of docs) {
      assert.equal(doc.apiVersion, '2.0.0', name);
      assert.equal(doc.swaggerVersion, name === 'events' ? '1.2' : '1.1', name);
      assert.equal(doc.basePath, listing.basePath, name);
      assert.equal(doc.resourcePath, `/api-docs/${name}.{format}`);
      assert.ok(Array.isArray(doc.apis), name);
      const nicknames = new Set<string>();
      for (const api of doc.apis) {
        assert.match(api.path, /^\/[A-Za-z]/, `${name} path`);
        assert.equal(typeof api.description, 'string');
        const pathParams = [...api.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        for (const op of api.operations) {
          const where = `${name} ${op.httpMethod} ${api.path}`;
          assert.ok(['GET', 'POST', 'PUT', 'DELETE'].includes(op.httpMethod), where);
          assert.ok(op.nickname.length > 0 && !nicknames.has(op.nickname), `${where}: nickname`);
          nicknames.add(op.nickname);
          // SPEC §2.1 rule 5: nicknames do not repeat the (plural) resource name.
          assert.ok(!op.nickname.toLowerCase().includes(name.toLowerCase()), `${where}: nickname repeats the resource`);
          assert.equal(typeof op.summary, 'string');
          assertTypeKnown(op.responseClass, where);
          assert.deepEqual(
            op.parameters.filter((p) => p.paramType === 'path').map((p) => p.name),
            pathParams,
            `${where}: path parameters`,
          );
          for (const p of op.parameters) {
            assert.ok(['query', 'path', 'body'].includes(p.paramType), `${where} ${p.name}`);
            assert.ok(PRIMITIVES.has(p.dataType), `${where} ${p.name} dataType`);
            assert.equal(typeof p.required, 'boolean');
            assert.equal(typeof p.allowMultiple, 'boolean');
            if (p.allowableValues?.valueType === 'LIST') assert.ok(p.allowableValues.values.length > 0);
            if (p.allowableValues?.valueType === 'RANGE') assert.equal(typeof p.allowableValues.min, 'number');
          }
          const codes = op.errorResponses.map((e) => e.code);
          assert.equal(new Set(codes).size, codes.length, `${where}: duplicate error codes`);
          for (const e of op.errorResponses) assert.ok(Number.isInteger(e.code) && typeof e.reason === 'string', where);
        }
      }
      for (const [id, model] of Object.entries(doc.models)) {
        assert.equal(model.id, id);
        for (const [prop, decl] of Object.entries(model.properties)) {
          assertTypeKnown(decl.type, `${name} ${id}.${prop}`);
          assert.equal(typeof decl.required, 'boolean');
        }
        for (const sub of model.subTypes ?? []) assert.ok(allModels().has(sub), `${id} subtype ${sub} has no model`);
      }
    }
  });

  test('each resource carries the models of what it shows', () => {
    for (const [name, models] of Object.entries(EXPECTED_MODELS)) {
      const have = Object.keys(docs.get(name)?.models ?? {});
      for (const model of models) assert.ok(have.includes(model), `${name}.json lacks ${model}`);
    }
  });

  test('events.json declares Message → Event → every event we send', () => {
    const events = docs.get('events') as SwaggerResourceDoc;
    const message = events.models.Message;
    assert.equal(message?.discriminator, 'type');
    assert.deepEqual(message?.subTypes, ['MissingParams', 'Event']);
    assert.equal(events.models.MissingParams?.properties.params?.type, 'List[string]');
    const event = events.models.Event;
    assert.equal(event?.properties.application?.required, true);
    assert.equal(event?.properties.timestamp?.type, 'Date');
    for (const type of SENT_EVENTS) assert.ok(event?.subTypes?.includes(type), `Event.subTypes lacks ${type}`);
    assert.equal(events.models.AppStart?.properties.channel?.type, 'Channel');
    assert.equal(events.models.PlaybackFinished?.properties.playback?.type, 'Playback');
    const ws = events.apis.find((a) => a.path === '/events')?.operations[0];
    assert.equal(ws?.nickname, 'eventWebsocket');
    assert.equal(ws?.upgrade, 'websocket');
    assert.equal(ws?.websocketProtocol, 'ari');
  });

  test('no identifier we publish carries the reference product words', () => {
    const forbidden = /asterisk|stasis/i;
    for (const [name, doc] of docs) {
      for (const api of doc.apis) {
        assert.doesNotMatch(api.path, forbidden);
        for (const op of api.operations) {
          assert.doesNotMatch(op.nickname, forbidden);
          assert.doesNotMatch(op.responseClass, forbidden);
          for (const p of op.parameters) assert.doesNotMatch(p.name, forbidden);
        }
      }
      for (const [id, model] of Object.entries(doc.models)) {
        assert.doesNotMatch(id, forbidden, name);
        // `asterisk_id` is the one field name the spec keeps (reference README §9).
        for (const prop of Object.keys(model.properties)) if (prop !== 'asterisk_id') assert.doesNotMatch(prop, forbidden);
      }
    }
  });

  test('an unknown resource document is 404', async () => {
    const res = await h.inject({ method: 'GET', url: '/ari/api-docs/nothing.json' });
    assert.equal(res.statusCode, 404);
  });
});

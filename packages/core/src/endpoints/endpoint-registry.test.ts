import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChannelRegistry } from '../channels/channel-registry.js';
import { CoreError } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { EventBus } from '../events/event-bus.js';
import { sipChannelInit, RecordingTechnology } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import { startTestCore } from '../user-events/test-core.js';
import type { DriverStateServices } from './driver-services.js';
import { EndpointRegistry } from './endpoint-registry.js';
import { registrarStatusListener } from './registrar-status.js';
import { type OutboundTextMessage, TextMessageService } from './text-messages.js';

function setup() {
  const bus = new EventBus();
  const events: TimedDomainEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const channels = new ChannelRegistry(bus, silentLogger);
  const endpoints = new EndpointRegistry(bus, channels);
  endpoints.add('SIP', 'alice');
  endpoints.add('SIP', 'bob');
  return { bus, events, channels, endpoints, messages: new TextMessageService(bus, endpoints) };
}

/** A call from the endpoint's phone, ringing in. */
function inboundCall(channels: ChannelRegistry, resource: string) {
  return channels.create(sipChannelInit(resource, new RecordingTechnology(), { state: 'Ring' }));
}

const rejects = async (work: Promise<unknown>, code: string) => {
  await assert.rejects(work, (err) => err instanceof CoreError && err.code === code);
};

describe('EndpointRegistry', () => {
  it('lists endpoints with state and live channel ids, by technology and with the PJSIP alias', async () => {
    const { endpoints, channels, events } = setup();
    endpoints.setEndpointState('PJSIP', 'alice', 'online');
    endpoints.setEndpointState('SIP', 'alice', 'online');
    const channel = inboundCall(channels, 'alice');
    assert.deepEqual(endpoints.get('pjsip', 'alice'), { technology: 'SIP', resource: 'alice', state: 'online', channel_ids: [channel.id] });
    assert.deepEqual(
      endpoints.listByTechnology('SIP').map((e) => e.resource),
      ['alice', 'bob'],
    );
    assert.throws(
      () => endpoints.listByTechnology('IAX2'),
      (err) => err instanceof CoreError && err.code === 'not_found',
    );
    await channel.hangup(16);
    assert.deepEqual(endpoints.get('SIP', 'alice')?.channel_ids, []);
    const changes = events.flatMap((e) =>
      e.type === 'EndpointStateChange' ? [`${e.endpoint.state}:${e.endpoint.channel_ids.length}`] : [],
    );
    assert.deepEqual(changes, ['online:0', 'online:1', 'online:0']);
    endpoints.contactStatusChanged('SIP', 'alice', {
      uri: 'sip:alice@192.0.2.1:5060',
      contact_status: 'Reachable',
      aor: 'alice',
      roundtrip_usec: '1200',
    });
    endpoints.peerStatusChanged('PJSIP', 'alice', { peer_status: 'Reachable' });
    endpoints.peerStatusChanged('SIP', 'nobody', { peer_status: 'Reachable' });
    const statuses = events.flatMap((e) =>
      e.type === 'ContactStatusChange' ? [e.contact_info.contact_status] : e.type === 'PeerStatusChange' ? [e.peer.peer_status] : [],
    );
    assert.deepEqual(statuses, ['Reachable', 'Reachable']);
    assert.equal(endpoints.has('SIP'), true);
    assert.equal(endpoints.has('SIP', 'carol'), false);
  });

  it("publishes a channel's coming and going only for endpoints someone takes the events of", async () => {
    const { endpoints, channels, events } = setup();
    const wanted = new Set(['SIP/bob']);
    endpoints.publishChannelChangesWhen((technology, resource) => wanted.has(`${technology}/${resource}`));
    const call = (resource: string) => inboundCall(channels, resource);
    const alice = call('alice');
    const bob = call('bob');
    await alice.hangup(16);
    await bob.hangup(16);
    const changes = events.flatMap((e) =>
      e.type === 'EndpointStateChange' ? [`${e.endpoint.resource}:${e.endpoint.channel_ids.length}`] : [],
    );
    assert.deepEqual(changes, ['bob:1', 'bob:0']);
    // Reachability is always published; the snapshot still lists the channels.
    const again = call('alice');
    endpoints.setEndpointState('SIP', 'alice', 'online');
    const last = events.at(-1);
    assert.ok(last?.type === 'EndpointStateChange');
    assert.deepEqual(last.endpoint.channel_ids, [again.id]);
    assert.deepEqual(endpoints.get('SIP', 'alice')?.channel_ids, [again.id]);
  });
});

describe('TextMessageService', () => {
  it('hands messages to the sender of the technology and refuses technologies without one', async () => {
    const { messages } = setup();
    const sent: OutboundTextMessage[] = [];
    const unregister = messages.registerSender('SIP', { send: async (m) => void sent.push(m) });
    await messages.send({ to: 'pjsip:alice', from: 'sip:app@pbx', body: 'hi', variables: { 'X-Tag': '1' } });
    assert.deepEqual(sent, [
      { to: 'pjsip:alice', from: 'sip:app@pbx', body: 'hi', variables: { 'X-Tag': '1' }, technology: 'SIP', destination: 'alice' },
    ]);
    await rejects(messages.send({ to: 'xmpp:bob', from: 'x', body: '', variables: {} }), 'not_found');
    await rejects(messages.send({ to: 'alice', from: 'x', body: '', variables: {} }), 'invalid_argument');
    unregister();
    await rejects(messages.send({ to: 'sip:alice', from: 'x', body: '', variables: {} }), 'not_found');
  });

  it('publishes inbound messages with the receiving endpoint', () => {
    const { messages, events } = setup();
    messages.received('SIP', 'bob', { from: 'sip:alice@pbx', to: 'sip:bob@pbx', body: 'hello' });
    const event = events.find((e) => e.type === 'TextMessageReceived');
    assert.ok(event && event.type === 'TextMessageReceived');
    assert.deepEqual(event.message, { from: 'sip:alice@pbx', to: 'sip:bob@pbx', body: 'hello' });
    assert.equal(event.endpoint?.resource, 'bob');
  });
});

describe('DriverStateServices', () => {
  it('is satisfied by the core, so the server can hand the core to the SIP driver', async () => {
    const t = await startTestCore();
    const services: DriverStateServices = t.core;
    services.endpoints.setEndpointState('SIP', 'alice', 'online');
    assert.equal(t.core.endpoints.stateOf('SIP', 'alice'), 'online');
    await t.close();
    t.remove();
  });
});

describe('registrarStatusListener', () => {
  it('turns registrar reports into endpoint state, contact and peer events', () => {
    const { endpoints, events } = setup();
    const listener = registrarStatusListener(endpoints);
    listener.contactChanged({ kind: 'created', aor: 'alice', endpoint: 'alice', uri: 'sip:alice@192.0.2.1' });
    listener.endpointStateChanged('alice', 'online');
    listener.contactChanged({ kind: 'expired', aor: 'alice', endpoint: 'alice', uri: 'sip:alice@192.0.2.1' });
    listener.endpointStateChanged('alice', 'offline');
    const seen = events.flatMap((e) => {
      if (e.type === 'ContactStatusChange') return [`contact:${e.contact_info.contact_status}`];
      if (e.type === 'PeerStatusChange') return [`peer:${e.peer.peer_status}`];
      if (e.type === 'EndpointStateChange') return [`state:${e.endpoint.state}`];
      return [];
    });
    assert.deepEqual(seen, [
      'contact:NonQualified',
      'state:online',
      'peer:Reachable',
      'contact:Removed',
      'state:offline',
      'peer:Unreachable',
    ]);
  });
});

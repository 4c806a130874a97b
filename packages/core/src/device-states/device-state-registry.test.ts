import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ChannelRegistry } from '../channels/channel-registry.js';
import { EndpointRegistry } from '../endpoints/endpoint-registry.js';
import { CoreError } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { EventBus } from '../events/event-bus.js';
import { openStore } from '../store/sqlite-store.js';
import type { DeviceStateStore } from '../store/types.js';
import { sipChannelInit, RecordingTechnology } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import { DeviceStateRegistry, mergeDeviceStates } from './device-state-registry.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function setup(dataDir = mkdtempSync(join(tmpdir(), 'switchboard-devstate-'))) {
  dirs.push(dataDir);
  const store = openStore(dataDir);
  const bus = new EventBus();
  const events: TimedDomainEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const channels = new ChannelRegistry(bus, silentLogger);
  const endpoints = new EndpointRegistry(bus, channels);
  endpoints.add('SIP', 'alice');
  const registry = new DeviceStateRegistry({ bus, channels, endpoints, store: store.deviceStates });
  const changes = () => events.flatMap((e) => (e.type === 'DeviceStateChanged' ? [`${e.device_state.name}=${e.device_state.state}`] : []));
  return { store, bus, channels, endpoints, registry, changes, dataDir };
}

const codeOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'ok';
  } catch (err) {
    assert.ok(err instanceof CoreError);
    return err.code;
  }
};

describe('DeviceStateRegistry', () => {
  it('sets controlled devices, announces them, and keeps them across a reopen', async () => {
    const first = setup();
    await first.registry.update('App:door', 'INUSE');
    assert.deepEqual(await first.registry.get('App:door'), { name: 'App:door', state: 'INUSE' });
    assert.deepEqual(first.changes(), ['App:door=INUSE']);
    await first.store.close();

    const second = setup(first.dataDir);
    assert.deepEqual(await second.registry.list(), [{ name: 'App:door', state: 'INUSE' }]);
    await second.registry.delete('App:door');
    assert.deepEqual(second.changes(), ['App:door=UNKNOWN']);
    assert.equal(await codeOf(second.registry.get('App:door')), 'not_found');
    await second.store.close();
  });

  it('refuses uncontrolled names (409) and an empty controlled name (404)', async () => {
    const { registry, store } = setup();
    assert.equal(await codeOf(registry.update('SIP/alice', 'BUSY')), 'conflict');
    assert.equal(await codeOf(registry.update('App:', 'BUSY')), 'not_found');
    assert.equal(await codeOf(registry.delete('door')), 'conflict');
    assert.equal(await codeOf(registry.delete('App:nothing')), 'not_found');
    await store.close();
  });

  it('derives endpoint devices from reachability and channels', async () => {
    const { registry, endpoints, channels, changes, store } = setup();
    assert.deepEqual(await registry.get('PJSIP/alice'), { name: 'SIP/alice', state: 'UNKNOWN' });
    endpoints.setEndpointState('SIP', 'alice', 'online');
    const channel = channels.create(sipChannelInit('alice', new RecordingTechnology(), { direction: 'outbound', state: 'Dialing' }));
    channel.setState('Ringing');
    assert.equal((await registry.get('SIP/alice')).state, 'RINGING');
    channel.setState('Up');
    await channel.hangup(16);
    endpoints.setEndpointState('SIP', 'alice', 'offline');
    assert.deepEqual(changes(), [
      'SIP/alice=NOT_INUSE',
      'SIP/alice=INUSE',
      'SIP/alice=RINGING',
      'SIP/alice=INUSE',
      'SIP/alice=NOT_INUSE',
      'SIP/alice=UNAVAILABLE',
    ]);
    assert.equal(await codeOf(registry.get('SIP/nobody')), 'not_found');
    await store.close();
  });

  it('keeps the counts it derives from right through many channels ringing, answered and hung up', async () => {
    const { registry, endpoints, channels, store } = setup();
    endpoints.setEndpointState('SIP', 'alice', 'online');
    const make = (n: number, direction: 'inbound' | 'outbound') =>
      channels.create(
        sipChannelInit('alice', new RecordingTechnology(), {
          name: `SIP/alice-${n}`,
          direction,
          state: direction === 'outbound' ? 'Dialing' : 'Ring',
        }),
      );
    const ringing = Array.from({ length: 50 }, (_, n) => make(n, 'outbound'));
    for (const channel of ringing) channel.setState('Ringing');
    assert.deepEqual(channels.endpointChannelCounts('SIP', 'alice'), { live: 50, alerting: 50 });
    assert.equal((await registry.get('SIP/alice')).state, 'RINGING');
    const caller = make(99, 'inbound');
    assert.equal((await registry.get('SIP/alice')).state, 'RINGINUSE');
    for (const channel of ringing.slice(0, 25)) channel.setState('Up');
    for (const channel of ringing.slice(25)) await channel.hangup(16);
    assert.deepEqual(channels.endpointChannelCounts('SIP', 'alice'), { live: 26, alerting: 0 });
    assert.equal((await registry.get('SIP/alice')).state, 'INUSE');
    for (const channel of [...ringing.slice(0, 25), caller]) await channel.hangup(16);
    assert.deepEqual(channels.endpointChannelCounts('SIP', 'alice'), { live: 0, alerting: 0 });
    assert.equal((await registry.get('SIP/alice')).state, 'NOT_INUSE');
    await store.close();
  });
});

describe('mergeDeviceStates (one endpoint device over several cluster nodes)', () => {
  it("forgets a dead node's endpoint announcements at once", async () => {
    const { store, bus, channels, endpoints } = setup();
    let tell: ((nodeId: string, name: string, state: string) => void) | undefined;
    // The shared store's hooks, as PostgreSQL has them (SQLite has none).
    const shared: DeviceStateStore = Object.assign(Object.create(store.deviceStates) as DeviceStateStore, {
      announceEndpoint: async () => undefined,
      onRemoteEndpoint: (listener: (nodeId: string, name: string, state: string) => void) => {
        tell = listener;
        return () => undefined;
      },
    });
    const registry = new DeviceStateRegistry({ bus, channels, endpoints, store: shared });
    const own = registry.endpointDeviceState('SIP/alice')?.state;
    assert.notEqual(own, 'INUSE');
    tell?.('store-of-node-3', 'SIP/alice', 'INUSE');
    assert.equal(registry.endpointDeviceState('SIP/alice')?.state, 'INUSE');
    registry.forgetNode('store-of-node-2');
    assert.equal(registry.endpointDeviceState('SIP/alice')?.state, 'INUSE', 'another node forgotten changes nothing');
    registry.forgetNode('store-of-node-3');
    assert.equal(registry.endpointDeviceState('SIP/alice')?.state, own);
    await store.close();
  });

  it('is in use when any node has a call, ringing when any alerts, both when both', () => {
    assert.equal(mergeDeviceStates('NOT_INUSE', ['INUSE']), 'INUSE');
    assert.equal(mergeDeviceStates('UNAVAILABLE', ['RINGING']), 'RINGING');
    assert.equal(mergeDeviceStates('RINGING', ['INUSE']), 'RINGINUSE');
    assert.equal(mergeDeviceStates('INUSE', ['RINGING', 'INUSE']), 'RINGINUSE');
  });

  it('keeps the local reachability when no node has a call', () => {
    assert.equal(mergeDeviceStates('NOT_INUSE', []), 'NOT_INUSE');
    assert.equal(mergeDeviceStates('UNAVAILABLE', ['NOT_INUSE']), 'UNAVAILABLE');
  });
});

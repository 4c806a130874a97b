import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import type { ApplicationEvent } from '../apps/application.js';
import { ApplicationRegistry } from '../apps/application-registry.js';
import { BridgeMusic } from '../bridges/bridge-music.js';
import { BridgeRegistry } from '../bridges/bridge-registry.js';
import { ChannelRegistry } from '../channels/channel-registry.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { EventBus } from '../events/event-bus.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, settle } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import { type AttachAnswer, type AttachRequest, type ClusterLegTransport, ClusterMediaLegs } from './cluster-media-legs.js';

const NODE1 = { name: 'node1', ari: 'http://127.0.0.11:8088/ari' };
const NODE3 = { name: 'node3', ari: 'http://127.0.0.13:8088/ari' };

class LegTechnology extends RecordingTechnology {
  override readonly mediaLegId = 'phone-leg';
}

/** What the other node was asked, and a channel snapshot it answers attach with. */
class RecordingTransport implements ClusterLegTransport {
  readonly detached: string[] = [];
  async attach(owner: typeof NODE3, request: AttachRequest): Promise<AttachAnswer> {
    return {
      address: '127.0.0.13',
      port: 20002,
      application: 'demo',
      channel: {
        id: request.channelId,
        name: 'SIP/alice-00000001',
        state: 'Up',
        caller: { name: '', number: 'alice' },
        connected: { name: '', number: '' },
        accountcode: '',
        dialplan: { context: 'from-internal', exten: '100', priority: 1, app_name: '', app_data: '' },
        creationtime: new Date().toISOString(),
        language: 'en',
        protocol_id: owner.name,
      },
    };
  }
  async detach(node: typeof NODE3, channelId: string): Promise<void> {
    this.detached.push(`${node.name}:${channelId}`);
  }
}

describe('ClusterMediaLegs when a node is gone', () => {
  let bus: EventBus;
  let media: RecordingMediaEngine;
  let apps: ApplicationRegistry;
  let channels: ChannelRegistry;
  let bridges: BridgeRegistry;
  let legs: ClusterMediaLegs;
  let transport: RecordingTransport;
  let events: TimedDomainEvent[];
  let appEvents: ApplicationEvent[];

  const make = (nodeName: string) => {
    legs = new ClusterMediaLegs({
      nodeName,
      address: '127.0.0.12',
      peers: [NODE1, NODE3],
      channels,
      bridges,
      applications: apps,
      media,
      bus,
      log: silentLogger,
    });
    legs.setTransport(transport);
  };

  beforeEach(() => {
    bus = new EventBus();
    events = [];
    appEvents = [];
    bus.subscribe((e) => events.push(e));
    media = new RecordingMediaEngine();
    apps = new ApplicationRegistry(bus, silentLogger);
    apps.register('demo', (e) => appEvents.push(e));
    channels = new ChannelRegistry(bus, silentLogger);
    const mohDir = mkdtempSync(join(tmpdir(), 'moh-'));
    const music = new BridgeMusic({ config: { classes: {} }, confDir: mohDir, media, log: silentLogger });
    bridges = new BridgeRegistry({ bus, media, applications: apps, channels, music, log: silentLogger });
    transport = new RecordingTransport();
  });

  it("bridge side: the owner's stand-ins leave the bridge and hang up, and the application hears their end", async () => {
    make('node1');
    const bridge = await bridges.create({ id: 'b' });
    await legs.join(bridge, 'chan-a', NODE3, {});
    assert.deepEqual(bridge.snapshot().channels, ['chan-a']);
    assert.equal(channels.get('chan-a')?.name.startsWith('Cluster/node3-'), true);

    await legs.nodeDown('node1');
    assert.deepEqual(bridge.snapshot().channels, ['chan-a'], "another node's end touches nothing");
    await legs.nodeDown('node3');
    await settle();
    assert.deepEqual(bridge.snapshot().channels, []);
    assert.equal(channels.get('chan-a'), undefined);
    assert.deepEqual(transport.detached, [], 'the dead owner is not called');
    const left = events.findIndex((e) => e.type === 'ChannelLeftBridge' && e.channel.id === 'chan-a');
    const destroyed = events.findIndex((e) => e.type === 'ChannelDestroyed' && e.channel.id === 'chan-a');
    assert.ok(left >= 0 && destroyed > left, 'ChannelLeftBridge, then ChannelDestroyed');
    const ended = appEvents.find((e) => e.type === 'ChannelDestroyed');
    assert.ok(
      ended?.type === 'ChannelDestroyed' && ended.channel.id === 'chan-a' && ended.cause === 38,
      'the application hears it (cause 38)',
    );
  });

  it("owner side: legs toward the dead node's bridges are freed; the channel stays up", async () => {
    make('node2');
    const channel = channels.create(sipChannelInit('bob', new LegTechnology(), { id: 'chan-b' }));
    void apps.enter(channel, 'demo', []);
    await legs.attach({ channelId: 'chan-b', address: '127.0.0.11', port: 20000, node: 'node1' });
    const joined = media.requests.find((r) => r.method === 'createBridge');
    assert.ok(joined);
    const mediaBridge = (joined.args[0] as { bridgeId: string }).bridgeId;

    await legs.nodeDown('node1');
    assert.ok(media.requests.some((r) => r.method === 'destroyBridge' && r.args[0] === mediaBridge));
    assert.equal(channels.get('chan-b')?.state, 'Up');
    await channel.hangup();
    await settle();
    assert.deepEqual(transport.detached, [], 'the dead bridge node is not told of the hangup');
  });
});

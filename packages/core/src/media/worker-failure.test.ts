import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationRegistry } from '../apps/application-registry.js';
import { BridgeMusic } from '../bridges/bridge-music.js';
import { BridgeRegistry } from '../bridges/bridge-registry.js';
import { ChannelRegistry } from '../channels/channel-registry.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { EventBus } from '../events/event-bus.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, settle } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import { watchWorkerFailures } from './worker-failure.js';

class LegTechnology extends RecordingTechnology {
  override readonly mediaLegId: string;
  constructor(legId: string) {
    super();
    this.mediaLegId = legId;
  }
}

describe('a media worker that dies', () => {
  it('hangs up the calls whose legs it held and rebuilds their bridges for the others', async () => {
    const bus = new EventBus();
    const events: TimedDomainEvent[] = [];
    bus.subscribe((e) => events.push(e));
    const media = new RecordingMediaEngine();
    const applications = new ApplicationRegistry(bus, silentLogger);
    const channels = new ChannelRegistry(bus, silentLogger);
    const music = new BridgeMusic({ config: { classes: {} }, confDir: '/nonexistent', media, log: silentLogger });
    const bridges = new BridgeRegistry({ bus, media, applications, channels, music, log: silentLogger });
    watchWorkerFailures({ media, channels, bridges, log: silentLogger });
    const make = (n: number) => channels.create(sipChannelInit('p', new LegTechnology(`leg-${n}`), { name: `SIP/p-0000000${n}` }));
    const lost = make(1);
    const survivor = make(2);
    const untouched = make(3);
    const bridge = await bridges.create({ id: 'b1', type: 'mixing' });
    await bridges.addChannels(bridge, [lost, survivor], {});
    media.requests.length = 0;

    media.emit({ type: 'workerDied', workerIndex: 0, legIds: ['leg-1'], bridgeIds: ['b1'], error: 'exited unexpectedly' });
    await settle();
    await settle();

    assert.ok(lost.isDestroyed);
    const destroyed = events.find((e) => e.type === 'ChannelDestroyed');
    assert.ok(destroyed?.type === 'ChannelDestroyed' && destroyed.cause === 38);
    assert.ok(!survivor.isDestroyed && !untouched.isDestroyed, 'other calls go on');
    assert.deepEqual(
      media.requests.map((r) => r.method),
      ['createBridge', 'joinBridge'],
      'the bridge is rebuilt with the surviving leg only',
    );
    assert.equal(media.requests[1].args[1], 'leg-2');
    assert.deepEqual(bridge.snapshot().channels, [survivor.id]);
  });

  it('a leg whose DTLS-SRTP handshake failed ends its call; a failed playback does not', async () => {
    const bus = new EventBus();
    const media = new RecordingMediaEngine();
    const applications = new ApplicationRegistry(bus, silentLogger);
    const channels = new ChannelRegistry(bus, silentLogger);
    const music = new BridgeMusic({ config: { classes: {} }, confDir: '/nonexistent', media, log: silentLogger });
    const bridges = new BridgeRegistry({ bus, media, applications, channels, music, log: silentLogger });
    watchWorkerFailures({ media, channels, bridges, log: silentLogger });
    const make = (n: number) =>
      channels.create(sipChannelInit('browser', new LegTechnology(`leg-${n}`), { name: `SIP/browser-0000000${n}` }));
    const failed = make(1);
    const playing = make(2);
    media.emit({ type: 'legFailed', legId: 'leg-2', error: 'playback failed: no such file' });
    media.emit({ type: 'legFailed', legId: 'leg-1', error: "DTLS-SRTP: the peer's certificate does not match", fatal: true });
    await settle();
    assert.ok(failed.isDestroyed);
    assert.ok(!playing.isDestroyed);
  });
});

/**
 * Far-end transfer requests on application channels, against a real core (registries, bus,
 * dialplan, Local channels) with a recording media engine: refusal, ari-only hand-off
 * (ChannelTransfer), blind transfer in a bridge through a Local channel, attended transfer
 * merging two bridges; and calls replacing an application's channel (INVITE with Replaces).
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { ApplicationEvent } from '../apps/application.js';
import { parseIni } from '../config/ini.js';
import { SwitchboardCore } from '../core.js';
import { parseDialplan } from '../dialplan/parse-extensions.js';
import type { ChannelTechnologyEvents, TransferDecision } from '../drivers/channel-technology.js';
import { RecordingMediaEngine, RecordingTechnology, settle, testCoreConfig } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import type { Clock } from '../util/time.js';
import type { Channel } from './channel.js';
import { TRANSFERER_HANGUP_MS } from './channel-transfer.js';

const DIALPLAN = `
[default]
exten => 100,1,App(demo)
exten => 200,1,Answer()
 same => n,Wait(30)
exten => 300,1,Wait(30)
`;

/** Timers run only when the test says so. */
class ManualClock implements Clock {
  #now = 0;
  readonly #timers = new Map<number, { at: number; fn: () => void }>();
  #next = 0;
  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    this.#next += 1;
    this.#timers.set(this.#next, { at: this.#now + ms, fn });
    return this.#next;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  advance(ms: number): void {
    this.#now += ms;
    for (const [id, timer] of [...this.#timers]) {
      if (timer.at > this.#now) continue;
      this.#timers.delete(id);
      timer.fn();
    }
  }
}

describe('transfers asked by the far end of an application channel', () => {
  let core: SwitchboardCore;
  let clock: ManualClock;
  let received: ApplicationEvent[];
  let count = 0;

  beforeEach(() => {
    const dialplan = parseDialplan(parseIni(DIALPLAN, 'extensions.conf'), silentLogger);
    clock = new ManualClock();
    core = new SwitchboardCore({ config: testCoreConfig({ dialplan }), media: new RecordingMediaEngine(), clock });
    received = [];
    core.applications.register('demo', (e) => received.push(e));
  });

  /** An inbound SIP call to `exten`; returns its channel and the events its driver reports through. */
  const call = async (exten = '100') => {
    count += 1;
    const tech = new RecordingTechnology();
    const events = core.acceptInbound({
      technology: 'SIP',
      name: `SIP/p${count}-0000000${count}`,
      endpoint: `p${count}`,
      exten,
      context: 'default',
      caller: { name: '', number: String(count) },
      tech,
    });
    await settle();
    const channel = core.channels.list().find((c) => c.tech === tech);
    assert.ok(channel);
    return { channel, events, tech };
  };

  const bridgeWith = async (...channels: Channel[]) => {
    const bridge = await core.bridges.create({ type: 'mixing' });
    await core.bridges.addChannels(bridge, channels);
    return bridge;
  };

  const ask = (events: ChannelTechnologyEvents, request: Parameters<NonNullable<ChannelTechnologyEvents['transferRequested']>>[0]) => {
    const ask = events.transferRequested;
    assert.ok(ask);
    return ask(request);
  };

  const run = async (decision: TransferDecision) => {
    assert.equal(decision.kind, 'started');
    if (decision.kind !== 'started') throw new Error('not started');
    return await decision.run();
  };

  it('refuses a transfer outside an application, and a blind one outside a bridge', async () => {
    const outside = await call('300');
    assert.deepEqual(ask(outside.events, { kind: 'blind', destination: '200', context: 'default' }), { kind: 'refused' });
    const alone = await call();
    assert.deepEqual(ask(alone.events, { kind: 'blind', destination: '200', context: 'default' }), { kind: 'refused' });
    assert.deepEqual(ask(alone.events, { kind: 'attended', protocolId: 'x' }), { kind: 'refused' });
  });

  it('PJSIP_TRANSFER_HANDLING() ari-only leaves it to the application with ChannelTransfer', async () => {
    const transferer = await call();
    const peer = await call();
    const bridge = await bridgeWith(transferer.channel, peer.channel);
    await core.channelVariables.set(transferer.channel, { name: 'PJSIP_TRANSFER_HANDLING()', value: 'ari-only', reportEvents: false });
    assert.deepEqual(ask(transferer.events, { kind: 'blind', destination: '555', context: 'default' }), { kind: 'application' });
    const event = received.find((e) => e.type === 'ChannelTransfer');
    assert.ok(event?.type === 'ChannelTransfer');
    assert.deepEqual(event.refer_to.requested_destination, { destination: '555' });
    assert.equal(event.referred_by.source_channel.id, transferer.channel.id);
    assert.equal(event.referred_by.connected_channel?.id, peer.channel.id);
    assert.equal(event.referred_by.bridge?.id, bridge.id);

    // Attended: the dialog to replace is named by Call-ID, with the channel that holds it.
    const other = await call();
    const otherPeer = await call();
    const otherBridge = await bridgeWith(other.channel, otherPeer.channel);
    received.length = 0;
    assert.deepEqual(ask(transferer.events, { kind: 'attended', protocolId: 'abc', replaced: other.tech }), { kind: 'application' });
    const attended = received.find((e) => e.type === 'ChannelTransfer');
    assert.ok(attended?.type === 'ChannelTransfer');
    assert.deepEqual(attended.refer_to.requested_destination, { protocol_id: 'abc' });
    assert.equal(attended.refer_to.destination_channel?.id, other.channel.id);
    assert.equal(attended.refer_to.connected_channel?.id, otherPeer.channel.id);
    assert.equal(attended.refer_to.bridge?.id, otherBridge.id);
  });

  it('blind transfer in a bridge: a Local channel takes the transferer’s place and runs the extension', async () => {
    const transferer = await call();
    const transferee = await call();
    const bridge = await bridgeWith(transferer.channel, transferee.channel);
    const outcome = await run(ask(transferer.events, { kind: 'blind', destination: '200', context: 'default' }));
    assert.equal(outcome.ok, true);
    await settle();
    const members = [...bridge.participants.values()].map((p) => p.channel);
    assert.equal(members.length, 2);
    assert.ok(members.includes(transferee.channel));
    const local = members.find((c) => c !== transferee.channel);
    assert.match(local?.name ?? '', /^Local\/200@default-[0-9a-f]{8};1$/);
    const start = received.find((e) => e.type === 'AppStart' && e.channel.id === local?.id);
    assert.ok(start?.type === 'AppStart');
    assert.equal(start.replace_channel?.id, transferer.channel.id);
    const blind = received.find((e) => e.type === 'BridgeBlindTransfer');
    assert.ok(blind?.type === 'BridgeBlindTransfer');
    assert.equal(blind.channel.id, transferer.channel.id);
    assert.equal(blind.replace_channel?.id, local?.id);
    assert.equal(blind.transferee?.id, transferee.channel.id);
    assert.equal(blind.bridge?.id, bridge.id);
    // The transferer is hung up if it has not left TRANSFERER_HANGUP_MS after hearing the outcome.
    outcome.afterNotify?.();
    clock.advance(TRANSFERER_HANGUP_MS - 1);
    assert.equal(transferer.channel.isDestroyed, false);
    clock.advance(1);
    assert.equal(transferer.channel.isDestroyed, true);
    assert.deepEqual(
      transferer.tech.calls.filter((c) => c.startsWith('hangup')),
      ['hangup:16'],
    );
  });

  it('attended transfer does not merge a bridge no application owns (a Dial() bridge)', async () => {
    const firstLeg = await call();
    const transferee = await call();
    const secondLeg = await call();
    const target = await call();
    await bridgeWith(firstLeg.channel, transferee.channel);
    const system = await core.bridges.create({ type: 'mixing', appOwned: false, bridgeClass: 'basic' });
    await core.bridges.addChannels(system, [secondLeg.channel, target.channel]);
    assert.deepEqual(ask(firstLeg.events, { kind: 'attended', protocolId: 'c2', replaced: secondLeg.tech }), { kind: 'refused' });
    assert.equal(system.participants.size, 2);
    assert.equal(received.filter((e) => e.type === 'BridgeMerged').length, 0);
  });

  it('attended transfer between two bridges merges the second into the first', async () => {
    const firstLeg = await call();
    const transferee = await call();
    const secondLeg = await call();
    const target = await call();
    const first = await bridgeWith(firstLeg.channel, transferee.channel);
    const second = await bridgeWith(secondLeg.channel, target.channel);
    const outcome = await run(ask(firstLeg.events, { kind: 'attended', protocolId: 'c2', replaced: secondLeg.tech }));
    assert.equal(outcome.ok, true);
    await settle();
    assert.deepEqual([...first.participants.values()].map((p) => p.channel.id).sort(), [transferee.channel.id, target.channel.id].sort());
    assert.equal(second.participants.size, 0);
    assert.equal(secondLeg.channel.isDestroyed, true);
    assert.equal(firstLeg.channel.isDestroyed, false);
    const merged = received.find((e) => e.type === 'BridgeMerged');
    assert.ok(merged?.type === 'BridgeMerged');
    assert.equal(merged.bridge.id, first.id);
    assert.equal(merged.bridge_from.id, second.id);
    const attended = received.find((e) => e.type === 'BridgeAttendedTransfer');
    assert.ok(attended?.type === 'BridgeAttendedTransfer');
    assert.equal(attended.transferer_first_leg.id, firstLeg.channel.id);
    assert.equal(attended.transferer_second_leg.id, secondLeg.channel.id);
    assert.equal(attended.transferee?.id, transferee.channel.id);
    assert.equal(attended.transfer_target?.id, target.channel.id);
    assert.equal(attended.destination_type, 'bridge');
    assert.equal(attended.destination_bridge, first.id);
    outcome.afterNotify?.();
    clock.advance(TRANSFERER_HANGUP_MS);
    assert.equal(firstLeg.channel.isDestroyed, true);
  });

  it('a call replacing an application channel enters the application and its bridge', async () => {
    const old = await call();
    const peer = await call();
    const bridge = await bridgeWith(old.channel, peer.channel);
    const tech = new RecordingTechnology();
    const replacement = core.acceptReplacement(
      {
        technology: 'SIP',
        name: 'SIP/p9-00000009',
        endpoint: 'p9',
        exten: 'p1',
        context: 'default',
        caller: { name: '', number: '9' },
        tech,
      },
      old.tech,
    );
    await settle();
    assert.equal(replacement.application, 'demo');
    assert.equal(replacement.replaced, old.channel);
    const start = received.find((e) => e.type === 'AppStart' && e.channel.id === replacement.channel.id);
    assert.ok(start?.type === 'AppStart');
    assert.equal(start.replace_channel?.id, old.channel.id);
    assert.ok(bridge.participants.has(replacement.channel.id));
    assert.ok(tech.calls.includes('answer'), 'an unanswered call is answered on entering the bridge');
  });
});

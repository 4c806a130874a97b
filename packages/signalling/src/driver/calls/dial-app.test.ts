/**
 * Dial() against core's real channel registry and event bus, with a fake driver and fake bridges:
 * the decisions (who wins, what the losers get, DIALSTATUS, bridging, what happens at the end).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type BridgeSnapshot,
  type Channel,
  type ChannelDriver,
  ChannelRegistry,
  type ChannelTechnology,
  type ChannelTechnologyEvents,
  type DialplanAppContext,
  type DomainEvent,
  EventBus,
  type OutboundCall,
  type OutboundCallRequest,
  silentLogger,
} from '@switchboard/core';
import { FakeClock } from '../../test-support/fake-clock.js';
import { BridgedCall } from './bridged-call.js';
import { aggregateDialStatus, createDialApplication } from './dial-app.js';
import type { DialBridgeEntry, DialBridges } from './dial-bridges.js';
import type { TransferHandler } from './transfer.js';

class FakeTech implements ChannelTechnology {
  readonly protocolId: string;
  readonly mediaLegId: string;
  hangups: number[] = [];
  /** A SIP call's REFER entry point, set by Dial while bridged. */
  transferHandler: TransferHandler | undefined = undefined;
  answered = false;
  ringing = false;
  progress = 0;
  /** Read by Dial: whether the far end sent SDP in a provisional response. */
  hasEarlyMedia = false;
  constructor(id: string) {
    this.protocolId = id;
    this.mediaLegId = `leg-${id}`;
  }
  async answer(): Promise<void> {
    this.answered = true;
  }
  async indicateRinging(): Promise<void> {
    this.ringing = true;
  }
  async indicateProgress(): Promise<void> {
    this.progress++;
  }
  async hangup(cause: number): Promise<void> {
    this.hangups.push(cause);
  }
}

class FakeDriver implements ChannelDriver {
  readonly technology = 'SIP';
  readonly aliases = ['PJSIP'];
  calls = new Map<string, { tech: FakeTech; events?: ChannelTechnologyEvents }>();
  readonly requests: OutboundCallRequest[] = [];
  prepareOutbound(request: OutboundCallRequest): OutboundCall {
    this.requests.push(request);
    const tech = new FakeTech(request.resource);
    const entry: { tech: FakeTech; events?: ChannelTechnologyEvents } = { tech };
    this.calls.set(request.resource, entry);
    return {
      name: `SIP/${request.resource}-00000001`,
      endpoint: request.resource,
      tech,
      dial: async (events) => {
        entry.events = events;
      },
    };
  }
  async close(): Promise<void> {}
}

/** Bridges b1, b2, … that record what Dial asks of them; a channel is in one bridge at a time. */
class FakeBridges implements DialBridges {
  log: string[] = [];
  readonly members = new Map<string, Channel[]>();
  #next = 1;
  async create(): Promise<string> {
    const id = `b${this.#next++}`;
    this.members.set(id, []);
    this.log.push(`create ${id}`);
    return id;
  }
  async add(bridgeId: string, channels: readonly Channel[], entry?: DialBridgeEntry): Promise<void> {
    this.#require(bridgeId);
    for (const channel of channels) {
      // Entering moves a channel out of the bridge it was in.
      for (const [id, others] of this.members)
        this.members.set(
          id,
          others.filter((c) => c !== channel),
        );
      this.#require(bridgeId).push(channel);
    }
    this.log.push(`add ${bridgeId} ${channels.map(label).join(',')}${entry?.earlyMedia === true ? ' early' : ''}`);
  }
  async remove(bridgeId: string, channels: readonly Channel[]): Promise<void> {
    const members = this.#require(bridgeId);
    this.members.set(
      bridgeId,
      members.filter((c) => !channels.includes(c)),
    );
    this.log.push(`remove ${bridgeId} ${channels.map(label).join(',')}`);
  }
  async destroy(bridgeId: string): Promise<void> {
    this.#require(bridgeId);
    this.members.delete(bridgeId);
    this.log.push(`destroy ${bridgeId}`);
  }
  snapshot(bridgeId: string): BridgeSnapshot | undefined {
    const members = this.members.get(bridgeId);
    if (members === undefined) return undefined;
    return {
      id: bridgeId,
      technology: 'simple_bridge',
      bridge_type: 'mixing',
      bridge_class: 'basic',
      creator: '',
      name: '',
      channels: members.map((c) => c.id),
      video_mode: 'talker',
      creationtime: '',
    };
  }
  #require(bridgeId: string): Channel[] {
    const members = this.members.get(bridgeId);
    if (members === undefined) throw new Error(`no bridge ${bridgeId}`);
    return members;
  }
}

/** A channel as the bridge log names it: its fake media leg without the `leg-` prefix. */
function label(channel: Channel): string {
  return (channel.tech.mediaLegId ?? channel.name).replace(/^leg-/, '');
}

function setup() {
  const bus = new EventBus();
  const events: DomainEvent[] = [];
  bus.subscribe((event) => {
    events.push(event);
  });
  const channels = new ChannelRegistry(bus, silentLogger);
  const driver = new FakeDriver();
  const bridges = new FakeBridges();
  const clock = new FakeClock();
  const callerTech = new FakeTech('caller');
  const caller = channels.create({
    name: 'SIP/carol-00000001',
    technology: 'SIP',
    endpoint: 'carol',
    direction: 'inbound',
    state: 'Ring',
    caller: { name: 'Carol', number: '300' },
    language: 'en',
    dialplan: { context: 'default', exten: '100', priority: 1 },
    tech: callerTech,
    snapshotVariables: [],
  });
  const dial = createDialApplication({
    channels,
    driverFor: (tech) => (tech.toUpperCase() === 'SIP' || tech.toUpperCase() === 'PJSIP' ? driver : undefined),
    bridges,
    clock,
    publish: (event) => bus.publish(event),
  });
  const ctx = {
    channel: caller,
    log: silentLogger,
    globals: new Map<string, string>(),
    sleep: async () => {},
  } as unknown as DialplanAppContext;
  return { events, channels, driver, bridges, clock, caller, callerTech, dial, ctx };
}

/** The transfer target of the (only) attended transfer among `events`. */
function transferTargetId(events: DomainEvent[]): string | undefined {
  const transfer = events.find((e) => e.type === 'BridgeAttendedTransfer');
  return transfer?.type === 'BridgeAttendedTransfer' ? transfer.transfer_target?.id : undefined;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function dialStatuses(events: DomainEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'Dial' ? [`${e.peer.name.split('-')[0]}:${e.dialstatus}`] : []));
}

describe('Dial()', () => {
  it('rings every target; the first answer is bridged with the caller and the others get cause 26', async () => {
    const { events, driver, bridges, caller, callerTech, dial, ctx } = setup();
    const running = dial(ctx, ['SIP/alice&PJSIP/bob', '30']);
    await settle();
    const alice = driver.calls.get('alice');
    const bob = driver.calls.get('bob');
    assert.ok(alice?.events && bob?.events);
    // Each callee's media leg is asked for on the caller's media worker.
    assert.deepEqual(
      driver.requests.map((request) => request.mediaNear),
      [callerTech.mediaLegId, callerTech.mediaLegId],
    );
    alice.events.ringing();
    await settle();
    assert.equal(callerTech.ringing, true);
    bob.events.answered();
    await settle();
    assert.equal(callerTech.answered, true);
    assert.deepEqual(alice.tech.hangups, [26]);
    assert.equal(caller.getVariable('DIALSTATUS'), 'ANSWER');
    assert.deepEqual(bridges.log, ['create b1', 'add b1 caller,bob']);
    assert.deepEqual(bridges.members.get('b1')?.map(label), ['caller', 'bob']);
    // Connected line: each side is now connected to the other's caller id.
    const lines = events.flatMap((e) => (e.type === 'ChannelConnectedLine' ? [e.channel] : []));
    const callee = lines.find((c) => c.name.startsWith('SIP/bob'));
    assert.deepEqual(caller.connected, callee?.caller);
    assert.deepEqual(callee?.connected, { name: 'Carol', number: '300' });
    assert.equal(lines.length, 2);
    // The callee hangs up: the caller is hung up and the dialplan stops.
    bob.events.hungUp(16);
    assert.deepEqual(await running, { kind: 'stop' });
    assert.deepEqual(callerTech.hangups, [16]);
    assert.equal(bridges.log.at(-1), 'destroy b1');
    assert.equal(bridges.members.size, 0, 'the bridge goes with the call');
    assert.deepEqual(dialStatuses(events), ['SIP/alice:', 'SIP/bob:', 'SIP/alice:RINGING', 'SIP/bob:ANSWER', 'SIP/alice:CANCEL']);
  });

  it('with option g the dialplan goes on after the callee hangs up', async () => {
    const { driver, callerTech, dial, ctx } = setup();
    const running = dial(ctx, ['SIP/alice', '', 'g']);
    await settle();
    const alice = driver.calls.get('alice');
    alice?.events?.answered();
    await settle();
    alice?.events?.hungUp(16);
    assert.deepEqual(await running, { kind: 'next' });
    assert.deepEqual(callerTech.hangups, []);
  });

  it('sets BUSY when every target is busy and goes on with the next priority', async () => {
    const { driver, caller, dial, ctx } = setup();
    const running = dial(ctx, ['SIP/alice&SIP/bob']);
    await settle();
    driver.calls.get('alice')?.events?.hungUp(17);
    driver.calls.get('bob')?.events?.hungUp(20);
    assert.deepEqual(await running, { kind: 'next' });
    assert.equal(caller.getVariable('DIALSTATUS'), 'BUSY');
  });

  it('sets NOANSWER when the timeout runs out and hangs up the targets with cause 19', async () => {
    const { driver, clock, caller, dial, ctx } = setup();
    const running = dial(ctx, ['SIP/alice', '20']);
    await settle();
    clock.advance(20_000);
    assert.deepEqual(await running, { kind: 'next' });
    assert.equal(caller.getVariable('DIALSTATUS'), 'NOANSWER');
    assert.deepEqual(driver.calls.get('alice')?.tech.hangups, [19]);
  });

  it('sets CHANUNAVAIL for unknown technologies and endpoints, CANCEL when the caller hangs up', async () => {
    const first = setup();
    assert.deepEqual(await first.dial(first.ctx, ['IAX2/foo&SIP/']), { kind: 'next' });
    assert.equal(first.caller.getVariable('DIALSTATUS'), 'CHANUNAVAIL');

    const { driver, caller, dial, ctx } = setup();
    const running = dial(ctx, ['SIP/alice']);
    await settle();
    await caller.hangup(16);
    assert.deepEqual(await running, { kind: 'stop' });
    assert.deepEqual(driver.calls.get('alice')?.tech.hangups, [16]);
  });

  it('early media: the first callee with SDP in a 18x is heard before the answer and keeps its bridge', async () => {
    const { driver, bridges, callerTech, dial, ctx } = setup();
    const running = dial(ctx, ['SIP/alice&SIP/bob', '30']);
    await settle();
    const alice = driver.calls.get('alice');
    const bob = driver.calls.get('bob');
    assert.ok(alice?.events && bob?.events);
    // 183 without SDP: no early bridges, nothing bridged.
    alice.events.progress?.();
    await settle();
    assert.equal(callerTech.progress, 0);
    assert.deepEqual(bridges.log, []);
    bob.tech.hasEarlyMedia = true;
    bob.events.progress?.();
    await settle();
    assert.equal(callerTech.progress, 1, 'the caller gets 183 with our SDP');
    assert.deepEqual(bridges.log, ['create b1', 'add b1 caller,bob early']);
    // A later early-media callee does not take the path; a 180 no longer sends ringing.
    alice.tech.hasEarlyMedia = true;
    alice.events.progress?.();
    alice.events.ringing();
    await settle();
    assert.equal(callerTech.progress, 1);
    assert.equal(callerTech.ringing, false);
    bob.events.answered();
    await settle();
    assert.equal(callerTech.answered, true);
    assert.deepEqual(bridges.log, ['create b1', 'add b1 caller,bob early'], 'the early bridge carries the call');
    bob.events.hungUp(16);
    assert.deepEqual(await running, { kind: 'stop' });
    assert.deepEqual(bridges.log.at(-1), 'destroy b1');
  });

  it("early media: another callee answering takes the owner's place in the bridge", async () => {
    const { driver, bridges, dial, ctx } = setup();
    const running = dial(ctx, ['SIP/alice&SIP/bob', '30']);
    await settle();
    const alice = driver.calls.get('alice');
    const bob = driver.calls.get('bob');
    assert.ok(alice?.events && bob?.events);
    alice.tech.hasEarlyMedia = true;
    alice.events.progress?.();
    await settle();
    bob.events.answered();
    await settle();
    assert.deepEqual(bridges.log, ['create b1', 'add b1 caller,alice early', 'remove b1 alice', 'add b1 bob']);
    assert.deepEqual(bridges.members.get('b1')?.map(label), ['caller', 'bob']);
    assert.deepEqual(alice.tech.hangups, [26]);
    bob.events.hungUp(16);
    await running;
    assert.equal(bridges.log.at(-1), 'destroy b1');
  });

  it('early media: the bridge goes when nobody answers; a failed owner frees the path', async () => {
    const { driver, bridges, clock, callerTech, dial, ctx } = setup();
    const running = dial(ctx, ['SIP/alice&SIP/bob', '20']);
    await settle();
    const alice = driver.calls.get('alice');
    const bob = driver.calls.get('bob');
    assert.ok(alice?.events && bob?.events);
    alice.tech.hasEarlyMedia = true;
    alice.events.progress?.();
    await settle();
    alice.events.hungUp(17);
    await settle();
    bob.tech.hasEarlyMedia = true;
    bob.events.progress?.();
    await settle();
    assert.equal(callerTech.progress, 2);
    assert.deepEqual(bridges.log, ['create b1', 'add b1 caller,alice early', 'remove b1 alice', 'add b1 bob early']);
    clock.advance(20_000);
    assert.deepEqual(await running, { kind: 'next' });
    assert.equal(bridges.log.at(-1), 'destroy b1');
    assert.equal(bridges.members.size, 0);
  });

  it('early media reaches a caller that is already answered, without a 183', async () => {
    const { driver, bridges, caller, callerTech, dial, ctx } = setup();
    caller.setState('Up');
    const running = dial(ctx, ['SIP/alice', '30']);
    await settle();
    const alice = driver.calls.get('alice');
    assert.ok(alice?.events);
    alice.tech.hasEarlyMedia = true;
    alice.events.progress?.();
    await settle();
    assert.equal(callerTech.progress, 0);
    assert.deepEqual(bridges.log, ['create b1', 'add b1 caller,alice early']);
    alice.events.answered();
    await settle();
    alice.events.hungUp(16);
    await running;
  });

  it('aggregates statuses in Asterisk order', () => {
    assert.equal(aggregateDialStatus(['CHANUNAVAIL', 'NOANSWER', 'BUSY']), 'BUSY');
    assert.equal(aggregateDialStatus(['CHANUNAVAIL', 'CONGESTION']), 'CONGESTION');
    assert.equal(aggregateDialStatus([]), 'CHANUNAVAIL');
  });

  it('attended transfer: the transferer REFERs one call with Replaces naming its other; the far parties are joined', async () => {
    // Call 1: A (caller) → bob. Call 2: B's second line (caller) → carol. Bob transfers A to carol.
    const { events, channels, driver, bridges, caller: a, callerTech: aTech, dial, ctx } = setup();
    const first = dial(ctx, ['SIP/bob']);
    await settle();
    const bob = driver.calls.get('bob');
    bob?.events?.answered();
    await settle();
    const secondTech = new FakeTech('b-second');
    const second = channels.create({
      name: 'SIP/bob-00000002',
      technology: 'SIP',
      endpoint: 'bob',
      direction: 'inbound',
      state: 'Ring',
      caller: { name: 'Bob', number: '200' },
      language: 'en',
      dialplan: { context: 'default', exten: '300', priority: 1 },
      tech: secondTech,
      snapshotVariables: [],
    });
    const secondRun = dial({ ...ctx, channel: second } as DialplanAppContext, ['SIP/carol']);
    await settle();
    const carol = driver.calls.get('carol');
    carol?.events?.answered();
    await settle();
    assert.ok(bob && carol && bob.tech.transferHandler && secondTech.transferHandler);

    const outcome = await bob.tech.transferHandler({
      kind: 'attended',
      replaced: secondTech,
      replaces: { callId: 'b-second', toTag: 'x', fromTag: 'y', earlyOnly: false },
    });
    assert.equal(outcome.ok, true);
    // The replaced leg is hung up at once; the second Dial() ends with it.
    assert.deepEqual(await secondRun, { kind: 'stop' });
    assert.deepEqual(secondTech.hangups, [16]);
    assert.deepEqual(carol.tech.hangups, []);
    assert.deepEqual(bob.tech.hangups, []);
    // The REFER's own leg goes after the final NOTIFY.
    outcome.afterNotify?.();
    await settle();
    assert.deepEqual(bob.tech.hangups, [16]);
    // A's bridge carries on: bob leaves it, carol moves in from the consultation call's bridge, which goes.
    assert.deepEqual(bridges.log, [
      'create b1',
      'add b1 caller,bob',
      'create b2',
      'add b2 b-second,carol',
      'remove b2 b-second',
      'remove b1 bob',
      'add b1 carol',
      'destroy b2',
    ]);
    assert.deepEqual(bridges.members.get('b1')?.map(label), ['caller', 'carol']);
    assert.equal(bob.tech.transferHandler, undefined);
    assert.equal(secondTech.transferHandler, undefined);
    assert.ok(aTech.transferHandler && carol.tech.transferHandler, 'the joined parties can transfer again');

    const merged = events.find((e) => e.type === 'BridgeMerged');
    assert.ok(merged?.type === 'BridgeMerged');
    assert.equal(merged.bridge.id, 'b1');
    assert.deepEqual(merged.bridge.channels, [a.id, transferTargetId(events)]);
    assert.equal(merged.bridge_from.id, 'b2');
    assert.deepEqual(merged.bridge_from.channels, []);
    const transfer = events.find((e) => e.type === 'BridgeAttendedTransfer');
    assert.ok(transfer?.type === 'BridgeAttendedTransfer');
    assert.ok(events.indexOf(merged) < events.indexOf(transfer), 'BridgeMerged comes first');
    assert.equal(transfer.transferer_first_leg.name, 'SIP/bob-00000001');
    assert.equal(transfer.transferer_second_leg.name, 'SIP/bob-00000002');
    assert.equal(transfer.transferee?.id, a.id);
    assert.equal(transfer.transfer_target?.name, 'SIP/carol-00000001');
    assert.equal(transfer.result, 'Success');
    assert.equal(transfer.is_external, true);
    assert.equal(transfer.destination_type, 'bridge');
    assert.equal(transfer.destination_bridge, 'b1');
    // The leg bridges as they were when the transfer began.
    assert.equal(transfer.transferer_first_leg_bridge?.id, 'b1');
    assert.equal(transfer.transferer_first_leg_bridge?.channels.length, 2);
    assert.equal(transfer.transferer_first_leg_bridge?.channels[0], a.id);
    assert.equal(transfer.transferer_second_leg_bridge?.id, 'b2');
    assert.equal(transfer.transferer_second_leg_bridge?.channels[0], second.id);

    // A's Dial() now follows the joined call: carol hanging up ends A.
    carol.events?.hungUp(16);
    assert.deepEqual(await first, { kind: 'stop' });
    assert.deepEqual(aTech.hangups, [16]);
    assert.equal(aTech.transferHandler, undefined);
    assert.equal(bridges.log.at(-1), 'destroy b1');
    assert.equal(bridges.members.size, 0);
  });

  it("INVITE with Replaces: the new channel takes the replaced party's place in the same bridge", async () => {
    const { channels, driver, bridges, caller, callerTech, dial, ctx } = setup();
    const running = dial(ctx, ['SIP/bob']);
    await settle();
    const bob = driver.calls.get('bob');
    bob?.events?.answered();
    await settle();
    assert.ok(bob);
    const newTech = new FakeTech('bob-new');
    const replacement = channels.create({
      name: 'SIP/bob-00000002',
      technology: 'SIP',
      endpoint: 'bob',
      direction: 'inbound',
      state: 'Up',
      caller: { name: 'Bob', number: '200' },
      language: 'en',
      dialplan: { context: 'default', exten: '', priority: 1 },
      tech: newTech,
      snapshotVariables: [],
    });
    assert.equal(await BridgedCall.replaceParty(bob.tech, replacement), true);
    assert.deepEqual(bridges.log, ['create b1', 'add b1 caller,bob', 'remove b1 bob', 'add b1 bob-new']);
    assert.deepEqual(bridges.members.get('b1')?.map(label), ['caller', 'bob-new']);
    // The replaced dialog ending does not end the call; the new one does.
    bob.events?.hungUp(16);
    await settle();
    assert.deepEqual(callerTech.hangups, []);
    await replacement.hangup(16);
    assert.deepEqual(await running, { kind: 'stop' });
    assert.deepEqual(callerTech.hangups, [16]);
    assert.equal(caller.isDestroyed, true);
    assert.equal(bridges.log.at(-1), 'destroy b1');
  });

  it('attended transfer fails when the Replaces names a call that is not bridged', async () => {
    const { driver, dial, ctx } = setup();
    const running = dial(ctx, ['SIP/bob']);
    await settle();
    const bob = driver.calls.get('bob');
    bob?.events?.answered();
    await settle();
    assert.ok(bob?.tech.transferHandler);
    const outcome = await bob.tech.transferHandler({
      kind: 'attended',
      replaced: new FakeTech('loose'),
      replaces: { callId: 'loose', toTag: 'x', fromTag: 'y', earlyOnly: false },
    });
    assert.deepEqual(outcome, { ok: false });
    assert.deepEqual(bob.tech.hangups, []);
    bob.events?.hungUp(16);
    assert.deepEqual(await running, { kind: 'stop' });
  });

  it('attended transfer from the other side: the REFER comes on the consultation call, naming the first', async () => {
    const { events, channels, driver, caller: a, callerTech: aTech, dial, ctx } = setup();
    const first = dial(ctx, ['SIP/bob']);
    await settle();
    const bob = driver.calls.get('bob');
    bob?.events?.answered();
    await settle();
    const secondTech = new FakeTech('b-second');
    const second = channels.create({
      name: 'SIP/bob-00000002',
      technology: 'SIP',
      endpoint: 'bob',
      direction: 'inbound',
      state: 'Ring',
      caller: { name: 'Bob', number: '200' },
      language: 'en',
      dialplan: { context: 'default', exten: '300', priority: 1 },
      tech: secondTech,
      snapshotVariables: [],
    });
    const secondRun = dial({ ...ctx, channel: second } as DialplanAppContext, ['SIP/carol']);
    await settle();
    const carol = driver.calls.get('carol');
    carol?.events?.answered();
    await settle();
    assert.ok(bob && carol && secondTech.transferHandler);
    const outcome = await secondTech.transferHandler({
      kind: 'attended',
      replaced: bob.tech,
      replaces: { callId: 'bob', toTag: 'x', fromTag: 'y', earlyOnly: false },
    });
    assert.equal(outcome.ok, true);
    // Bob's first leg (the replaced one) goes at once; the REFER's leg after the NOTIFY.
    assert.deepEqual(bob.tech.hangups, [16]);
    outcome.afterNotify?.();
    assert.deepEqual(await secondRun, { kind: 'stop' });
    assert.deepEqual(secondTech.hangups, [16]);
    const transfer = events.find((e) => e.type === 'BridgeAttendedTransfer');
    assert.ok(transfer?.type === 'BridgeAttendedTransfer');
    assert.equal(transfer.transferer_first_leg.name, 'SIP/bob-00000002');
    assert.equal(transfer.transferee?.name, 'SIP/carol-00000001');
    assert.equal(transfer.transfer_target?.id, a.id);
    // A hangs up: carol is hung up and A's Dial() ends.
    await a.hangup(16);
    assert.deepEqual(await first, { kind: 'stop' });
    assert.deepEqual(carol.tech.hangups, [16]);
    assert.equal(aTech.transferHandler, undefined);
    assert.equal(carol.tech.transferHandler, undefined);
  });

  it('a call joined by an attended transfer that no Dial() watches hangs one party up when the other leaves', async () => {
    // Bob called alice and carol (bob is the caller of both Dial()s); he transfers alice to carol.
    const { channels, driver, dial, ctx, caller: bobFirst, callerTech: bobFirstTech } = setup();
    const first = dial(ctx, ['SIP/alice']);
    await settle();
    const alice = driver.calls.get('alice');
    alice?.events?.answered();
    await settle();
    const secondTech = new FakeTech('b-second');
    const bobSecond = channels.create({
      name: 'SIP/bob-00000002',
      technology: 'SIP',
      endpoint: 'bob',
      direction: 'inbound',
      state: 'Ring',
      caller: { name: 'Bob', number: '200' },
      language: 'en',
      dialplan: { context: 'default', exten: '300', priority: 1 },
      tech: secondTech,
      snapshotVariables: [],
    });
    const secondRun = dial({ ...ctx, channel: bobSecond } as DialplanAppContext, ['SIP/carol']);
    await settle();
    const carol = driver.calls.get('carol');
    carol?.events?.answered();
    await settle();
    assert.ok(alice && carol && bobFirstTech.transferHandler);
    const outcome = await bobFirstTech.transferHandler({
      kind: 'attended',
      replaced: secondTech,
      replaces: { callId: 'b-second', toTag: 'x', fromTag: 'y', earlyOnly: false },
    });
    assert.equal(outcome.ok, true);
    outcome.afterNotify?.();
    assert.deepEqual(await first, { kind: 'stop' });
    assert.deepEqual(await secondRun, { kind: 'stop' });
    assert.equal(bobFirst.isDestroyed, true);
    assert.equal(bobSecond.isDestroyed, true);
    assert.deepEqual(alice.tech.hangups, []);
    assert.deepEqual(carol.tech.hangups, []);
    // Nobody's dialplan waits on alice–carol; alice leaving ends carol.
    alice.events?.hungUp(16);
    await settle();
    await settle();
    assert.deepEqual(carol.tech.hangups, [16]);
    assert.equal(carol.tech.transferHandler, undefined);
  });
});

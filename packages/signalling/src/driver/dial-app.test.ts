/**
 * Dial() against core's real channel registry and event bus, with a fake driver and media engine:
 * the decisions (who wins, what the losers get, DIALSTATUS, bridging, what happens at the end).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
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
import { FakeClock } from '../test-support/fake-clock.js';
import { aggregateDialStatus, createDialApplication } from './dial-app.js';

class FakeTech implements ChannelTechnology {
  readonly protocolId: string;
  readonly mediaLegId: string;
  hangups: number[] = [];
  answered = false;
  ringing = false;
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
  async indicateProgress(): Promise<void> {}
  async hangup(cause: number): Promise<void> {
    this.hangups.push(cause);
  }
}

class FakeDriver implements ChannelDriver {
  readonly technology = 'SIP';
  readonly aliases = ['PJSIP'];
  calls = new Map<string, { tech: FakeTech; events?: ChannelTechnologyEvents }>();
  prepareOutbound(request: OutboundCallRequest): OutboundCall {
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

class FakeBridges {
  log: string[] = [];
  async createBridge(request: { bridgeId: string; kind: string }): Promise<void> {
    this.log.push(`create ${request.kind}`);
  }
  async joinBridge(_bridgeId: string, legId: string): Promise<void> {
    this.log.push(`join ${legId}`);
  }
  async destroyBridge(): Promise<void> {
    this.log.push('destroy');
  }
}

function setup() {
  const bus = new EventBus();
  const events: DomainEvent[] = [];
  bus.subscribe((event) => {
    events.push(event);
  });
  const channels = new ChannelRegistry(bus, silentLogger);
  const driver = new FakeDriver();
  const media = new FakeBridges();
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
    media,
    clock,
    publish: (event) => bus.publish(event),
  });
  const ctx = {
    channel: caller,
    log: silentLogger,
    globals: new Map<string, string>(),
    sleep: async () => {},
  } as unknown as DialplanAppContext;
  return { events, driver, media, clock, caller, callerTech, dial, ctx };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function dialStatuses(events: DomainEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'Dial' ? [`${e.peer.name.split('-')[0]}:${e.dialstatus}`] : []));
}

describe('Dial()', () => {
  it('rings every target; the first answer is bridged with the caller and the others get cause 26', async () => {
    const { events, driver, media, caller, callerTech, dial, ctx } = setup();
    const running = dial(ctx, ['SIP/alice&PJSIP/bob', '30']);
    await settle();
    const alice = driver.calls.get('alice');
    const bob = driver.calls.get('bob');
    assert.ok(alice?.events && bob?.events);
    alice.events.ringing();
    await settle();
    assert.equal(callerTech.ringing, true);
    bob.events.answered();
    await settle();
    assert.equal(callerTech.answered, true);
    assert.deepEqual(alice.tech.hangups, [26]);
    assert.equal(caller.getVariable('DIALSTATUS'), 'ANSWER');
    assert.deepEqual(media.log, ['create mixing', 'join leg-caller', 'join leg-bob']);
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
    assert.equal(media.log.at(-1), 'destroy');
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

  it('aggregates statuses in Asterisk order', () => {
    assert.equal(aggregateDialStatus(['CHANUNAVAIL', 'NOANSWER', 'BUSY']), 'BUSY');
    assert.equal(aggregateDialStatus(['CHANUNAVAIL', 'CONGESTION']), 'CONGESTION');
    assert.equal(aggregateDialStatus([]), 'CHANUNAVAIL');
  });
});

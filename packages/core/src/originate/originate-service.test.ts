import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { ApplicationEvent } from '../apps/application.js';
import { parseIni } from '../config/ini.js';
import { SwitchboardCore } from '../core.js';
import { parseDialplan } from '../dialplan/parse-extensions.js';
import type { ChannelTechnology } from '../drivers/channel-technology.js';
import { CoreError } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { sipChannelInit, FakeChannelDriver, RecordingMediaEngine, RecordingTechnology, settle, testCoreConfig } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import type { Clock } from '../util/time.js';

const DIALPLAN = `
[default]
exten => 500,1,Answer()
 same => n,Set(REACHED=start)
 same => n(greet),Set(REACHED=greet)
 same => n,Wait(60)
`;

/** A clock whose timers fire only when the test says so. */
class ManualClock implements Clock {
  readonly timers = new Map<number, { fn: () => void; ms: number }>();
  #next = 0;
  now() {
    return 0;
  }
  setTimeout(fn: () => void, ms: number) {
    this.#next += 1;
    this.timers.set(this.#next, { fn, ms });
    return this.#next;
  }
  clearTimeout(handle: unknown) {
    this.timers.delete(handle as number);
  }
  fireAll() {
    const due = [...this.timers.values()];
    this.timers.clear();
    for (const t of due) t.fn();
  }
}

const isCode = (code: CoreError['code']) => (err: unknown) => err instanceof CoreError && err.code === code;

describe('OriginateService', () => {
  let core: SwitchboardCore;
  let driver: FakeChannelDriver;
  let events: TimedDomainEvent[];
  let appEvents: ApplicationEvent[];
  let clock: ManualClock;

  beforeEach(() => {
    clock = new ManualClock();
    const dialplan = parseDialplan(parseIni(DIALPLAN, 'extensions.conf'), silentLogger);
    core = new SwitchboardCore({ config: testCoreConfig({ dialplan }), media: new RecordingMediaEngine(), clock });
    driver = new FakeChannelDriver();
    core.registerDriver(driver);
    events = [];
    core.bus.subscribe((e) => events.push(e));
    appEvents = [];
    core.applications.register('demo', (e) => appEvents.push(e));
  });

  const dialStatuses = () => events.flatMap((e) => (e.type === 'Dial' ? [e.dialstatus] : []));

  /** An answered inbound channel on `tech`, to be named as an originator or to take an id. */
  const answeredChannel = (id: string, tech: ChannelTechnology) => core.channels.create(sipChannelInit(id, tech, { id }));

  it('dials, and on answer hands the channel to the application, which was subscribed from the start', async () => {
    const channel = await core.originator.originate({
      endpoint: 'PJSIP/alice',
      app: 'demo',
      appArgs: 'one,two',
      callerId: '"Bob" <200>',
      channelId: 'chosen-id',
      variables: [
        { name: 'FOO', value: 'bar', reportEvents: true },
        { name: 'CALLERID(name)', value: 'Robert', reportEvents: false },
      ],
    });
    assert.equal(channel.id, 'chosen-id');
    assert.equal(channel.state, 'Down');
    assert.equal(channel.direction, 'outbound');
    assert.deepEqual(channel.caller, { name: 'Robert', number: '200' });
    assert.deepEqual(driver.requests[0]?.variables, { FOO: 'bar' });
    assert.deepEqual(driver.requests[0]?.caller, { name: 'Robert', number: '200' }, 'the far end sees CALLERID(name)');
    assert.equal(driver.requests[0]?.resource, 'alice');
    assert.deepEqual(channel.snapshot().channelvars, { FOO: 'bar' });
    assert.equal(driver.lastCall().dialOptions?.timeoutSeconds, 30);
    assert.ok(
      appEvents.some((e) => e.type === 'ChannelVarset'),
      'the application hears the channel before it answers',
    );

    const call = driver.lastCall();
    call.events?.ringing();
    assert.equal(channel.state, 'Ringing');
    call.events?.answered();
    await settle();
    assert.equal(channel.state, 'Up');
    assert.deepEqual(dialStatuses(), ['', 'RINGING', 'ANSWER']);
    const start = appEvents.find((e) => e.type === 'AppStart');
    assert.ok(start && start.type === 'AppStart');
    assert.deepEqual(start.args, ['one', 'two']);
    assert.equal(core.applications.requireControlled(channel), 'demo');
  });

  it('runs the dialplan from a label on answer', async () => {
    const channel = await core.originator.originate({ endpoint: 'SIP/alice', extension: '500', label: 'greet' });
    driver.lastCall().events?.answered();
    await settle();
    assert.equal(channel.getVariable('REACHED'), 'greet');
    await channel.hangup();
  });

  it('reports busy and unanswered calls with their Dial status and hangup cause', async () => {
    const busy = await core.originator.originate({ endpoint: 'SIP/alice', app: 'demo' });
    driver.lastCall().events?.hungUp(17);
    assert.ok(busy.isDestroyed);
    assert.equal(busy.hangupCause, 17);
    assert.deepEqual(dialStatuses(), ['', 'BUSY']);

    events.length = 0;
    const unanswered = await core.originator.originate({ endpoint: 'SIP/alice', app: 'demo', timeout: 5 });
    assert.equal([...clock.timers.values()][0]?.ms, 5000);
    clock.fireAll();
    await settle();
    assert.ok(unanswered.isDestroyed);
    assert.equal(unanswered.hangupCause, 19);
    assert.deepEqual(dialStatuses(), ['', 'NOANSWER']);
    assert.deepEqual(driver.lastCall().tech.calls, ['hangup:19']);

    events.length = 0;
    const cancelled = await core.originator.originate({ endpoint: 'SIP/alice', app: 'demo', timeout: -1 });
    assert.equal(clock.timers.size, 0, 'timeout -1 waits for ever');
    await cancelled.hangup();
    assert.deepEqual(dialStatuses(), ['', 'CANCEL']);

    events.length = 0;
    driver.configure = (call) => {
      call.failDial = true;
    };
    const unreachable = await core.originator.originate({ endpoint: 'SIP/alice', app: 'demo' });
    await settle();
    assert.ok(unreachable.isDestroyed);
    assert.deepEqual(dialStatuses(), ['', 'CHANUNAVAIL']);
  });

  it('refuses bad requests before anything is created', async () => {
    answeredChannel('taken', driver.prepareOutbound({ resource: 'x', caller: { name: '', number: '' }, variables: {} }).tech);
    const before = driver.calls.length;
    const cases: [Parameters<typeof core.originator.originate>[0], CoreError['code']][] = [
      [{ endpoint: 'SIP/alice', app: 'demo', channelId: 'taken' }, 'conflict'],
      [{ endpoint: 'SIP/alice', app: 'demo', channelId: 'x'.repeat(150) }, 'invalid_argument'],
      [{ endpoint: 'SIP/alice', app: 'demo', extension: '500' }, 'invalid_argument'],
      [{ endpoint: 'SIP/alice' }, 'invalid_argument'],
      [{ endpoint: 'alice', app: 'demo' }, 'invalid_argument'],
      [{ endpoint: 'IAX2/alice', app: 'demo' }, 'invalid_argument'],
      [{ endpoint: 'SIP/nobody', app: 'demo' }, 'not_found'],
      [{ endpoint: 'SIP/alice', extension: '500', label: 'missing' }, 'not_found'],
      [{ endpoint: 'SIP/alice', app: 'demo', formats: ['ulaw'], originator: 'taken' }, 'invalid_argument'],
      [{ endpoint: 'SIP/alice', app: 'demo', formats: ['gsm'] }, 'invalid_argument'],
      [{ endpoint: 'SIP/alice', app: 'demo', originator: 'ghost' }, 'invalid_argument'],
      [{ endpoint: 'SIP/alice', app: 'demo', timeout: -5 }, 'invalid_argument'],
    ];
    for (const [request, code] of cases) {
      await assert.rejects(core.originator.originate(request), isCode(code), JSON.stringify(request));
    }
    assert.equal(driver.calls.length, before);
  });

  it("asks for the new channel's media beside the originator's", async () => {
    const originator = answeredChannel('origin', new RecordingTechnology());
    await core.originator.originate({ endpoint: 'SIP/alice', app: 'demo', originator: 'origin' });
    assert.equal(driver.requests.at(-1)?.mediaNear, originator.tech.mediaLegId);
    await core.originator.create({ endpoint: 'SIP/alice', app: 'demo', originator: 'origin' });
    assert.equal(driver.requests.at(-1)?.mediaNear, originator.tech.mediaLegId);
    await core.originator.originate({ endpoint: 'SIP/alice', app: 'demo' });
    assert.equal(driver.requests.at(-1)?.mediaNear, undefined, 'no originator, no hint');
  });

  it('passes formats to the driver as codec names', async () => {
    await core.originator.originate({ endpoint: 'SIP/alice', app: 'demo', formats: ['ulaw', 'alaw', 'ulaw'] });
    assert.deepEqual(driver.requests.at(-1)?.formats, ['PCMU', 'PCMA']);
  });

  it('create places the channel in the application at once; dial starts the call later', async () => {
    const channel = await core.originator.create({ endpoint: 'SIP/alice', app: 'demo', channelId: 'created' });
    await settle();
    assert.ok(appEvents.some((e) => e.type === 'AppStart' && e.channel.id === 'created'));
    assert.equal(driver.lastCall().events, undefined, 'not dialled yet');
    core.originator.dial(channel, { timeout: 0 });
    assert.equal(driver.lastCall().dialOptions?.timeoutSeconds, 0);
    assert.throws(() => core.originator.dial(channel, {}), isCode('conflict'), 'a second dial is refused');
    driver.lastCall().events?.answered();
    assert.equal(channel.state, 'Up');
    assert.equal(appEvents.filter((e) => e.type === 'AppStart').length, 1, 'answering does not enter the application again');
    await assert.rejects(core.originator.create({ endpoint: 'SIP/alice', app: undefined }), isCode('invalid_argument'));
  });
});

import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { SwitchboardCore } from '../core.js';
import { CoreError } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, testCoreConfig } from '../test-support.js';
import type { Channel } from './channel.js';

const isCode = (code: CoreError['code']) => (err: unknown) => err instanceof CoreError && err.code === code;

describe('ChannelVariableAccess', () => {
  let core: SwitchboardCore;
  let media: RecordingMediaEngine;
  let channel: Channel;
  let events: TimedDomainEvent[];

  beforeEach(() => {
    media = new RecordingMediaEngine();
    core = new SwitchboardCore({ config: testCoreConfig(), media });
    events = [];
    core.bus.subscribe((e) => events.push(e));
    channel = core.channels.create(sipChannelInit('alice', new RecordingTechnology(), { caller: { name: 'Alice', number: '100' } }));
  });

  it('reads variables, built-ins and functions; an unknown variable is 404', async () => {
    await core.channelVariables.set(channel, { name: 'FOO', value: 'bar', reportEvents: false });
    assert.equal(core.channelVariables.get(channel, 'FOO'), 'bar');
    assert.equal(core.channelVariables.get(channel, 'CALLERID(num)'), '100');
    assert.equal(core.channelVariables.get(channel, 'CHANNEL'), 'SIP/alice-1');
    assert.throws(() => core.channelVariables.get(channel, 'NOPE'), isCode('not_found'));
    assert.throws(() => core.channelVariables.get(channel, ''), isCode('invalid_argument'));
    assert.throws(() => core.channelVariables.get(channel, 'NOSUCHFUNC(x)'), isCode('invalid_argument'));
    assert.ok(events.some((e) => e.type === 'ChannelVarset' && e.variable === 'FOO' && e.value === 'bar'));
  });

  it('report_events adds the variable to every snapshot; no value removes it', async () => {
    await core.channelVariables.set(channel, { name: 'SHOWN', value: '1', reportEvents: true });
    assert.deepEqual(channel.snapshot().channelvars, { SHOWN: '1' });
    await core.channelVariables.set(channel, { name: 'SHOWN', value: undefined, reportEvents: false });
    assert.throws(() => core.channelVariables.get(channel, 'SHOWN'), isCode('not_found'));
  });

  it('writes CALLERID and turns talk detection on and off', async () => {
    await core.channelVariables.set(channel, { name: 'CALLERID(all)', value: '"Bob" <200>', reportEvents: false });
    assert.deepEqual(channel.caller, { name: 'Bob', number: '200' });
    assert.ok(events.some((e) => e.type === 'ChannelCallerId'));
    await core.channelVariables.set(channel, { name: 'TALK_DETECT(set)', value: '1200,300', reportEvents: false });
    await core.channelVariables.set(channel, { name: 'TALK_DETECT(remove)', value: '', reportEvents: false });
    assert.deepEqual(
      media.requests.filter((r) => r.method === 'setTalkDetection').map((r) => r.args),
      [
        ['leg-1', { energyThreshold: 300, talkMs: 0, silenceMs: 1200 }],
        ['leg-1', null],
      ],
    );
    await assert.rejects(
      core.channelVariables.set(channel, { name: 'TALK_DETECT(set)', value: 'x', reportEvents: false }),
      isCode('invalid_argument'),
    );
    await assert.rejects(
      core.channelVariables.set(channel, { name: 'HASH(a)', value: 'x', reportEvents: false }),
      isCode('invalid_argument'),
    );
  });
});

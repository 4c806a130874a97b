import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIni } from '../config/ini.js';
import { SwitchboardCore } from '../core.js';
import { parseDialplan } from '../dialplan/parse-extensions.js';
import { CoreError } from '../errors.js';
import { FakeChannelDriver, sipChannelInit, RecordingMediaEngine, RecordingTechnology, testCoreConfig } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import { formatWireDate } from '../util/time.js';

function newCore(): SwitchboardCore {
  const dialplan = parseDialplan(parseIni('[in]\nexten => 100,1,NoOp()\n', 'extensions.conf'), silentLogger);
  const core = new SwitchboardCore({ config: testCoreConfig({ dialplan }), media: new RecordingMediaEngine() });
  core.registerDriver(new FakeChannelDriver());
  return core;
}

const newChannel = (core: SwitchboardCore, name: string) =>
  core.channels.create(
    sipChannelInit('alice', new RecordingTechnology(), { name, dialplan: { context: 'in', exten: '100', priority: 1 } }),
  );

describe('Channel.hangupSignal (created on first read)', () => {
  it('aborts a signal read before the hangup, with a conflict CoreError as its reason', () => {
    const core = newCore();
    const channel = newChannel(core, 'SIP/alice-1');
    const signal = channel.hangupSignal;
    assert.equal(signal.aborted, false);
    assert.equal(channel.hangupSignal, signal, 'one signal per channel');
    channel.destroy(16);
    assert.equal(signal.aborted, true);
    assert.ok(signal.reason instanceof CoreError);
    assert.equal(signal.reason.code, 'conflict');
    assert.equal(signal.reason.message, 'Channel hung up');
  });

  it('gives an already aborted signal when first read after the hangup', () => {
    const core = newCore();
    const channel = newChannel(core, 'SIP/alice-2');
    channel.destroy(16);
    const signal = channel.hangupSignal;
    assert.equal(signal.aborted, true);
    assert.ok(signal.reason instanceof CoreError && signal.reason.code === 'conflict');
    // Error.stackTraceLimit is restored after the reason is built.
    assert.ok((new Error('probe').stack ?? '').split('\n').length > 1);
  });
});

describe('Channel.whenHungUp', () => {
  it('calls each listener once at the hangup, with the signal already aborted, unless removed first', () => {
    const core = newCore();
    const channel = newChannel(core, 'SIP/alice-4');
    const signal = channel.hangupSignal;
    const calls: string[] = [];
    const kept = () => calls.push(`kept, signal aborted: ${signal.aborted}`);
    channel.whenHungUp(kept);
    channel.whenHungUp(kept); // one function added twice is called once
    const stop = channel.whenHungUp(() => calls.push('removed'));
    channel.whenHungUp(() => {
      throw new Error('a failing listener does not stop the others');
    });
    channel.whenHungUp(() => calls.push('after the failing one'));
    stop();
    channel.destroy(16);
    channel.destroy(16);
    assert.deepEqual(calls, ['kept, signal aborted: true', 'after the failing one']);
  });

  it('never calls a listener added after the hangup, and its remover is harmless', () => {
    const core = newCore();
    const channel = newChannel(core, 'SIP/alice-5');
    channel.destroy(16);
    let called = false;
    const stop = channel.whenHungUp(() => {
      called = true;
    });
    stop();
    assert.equal(called, false);
  });
});

describe('Channel.snapshot creationtime (formatted once)', () => {
  it('shows createdAt in the wire format, the same in every snapshot', () => {
    const core = newCore();
    const channel = newChannel(core, 'SIP/alice-3');
    const first = channel.snapshot().creationtime;
    assert.equal(first, formatWireDate(channel.createdAt));
    assert.match(first, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{4}$/);
    assert.equal(channel.snapshot().creationtime, first);
  });
});

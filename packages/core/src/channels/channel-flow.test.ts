import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { ApplicationEvent } from '../apps/application.js';
import type { ApplicationExit } from '../apps/application-registry.js';
import { parseIni } from '../config/ini.js';
import { SwitchboardCore } from '../core.js';
import { parseDialplan } from '../dialplan/parse-extensions.js';
import { CoreError } from '../errors.js';
import { FakeChannelDriver, sipChannelInit, RecordingMediaEngine, RecordingTechnology, testCoreConfig } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import type { Channel } from './channel.js';

const isCode = (code: CoreError['code']) => (err: unknown) => err instanceof CoreError && err.code === code;

class RedirectingTechnology extends RecordingTechnology {
  async redirect(resource: string) {
    this.calls.push(`redirect:${resource}`);
  }
}

describe('ChannelFlowControl', () => {
  let core: SwitchboardCore;
  let first: ApplicationEvent[];
  let second: ApplicationEvent[];
  let channel: Channel;
  let exit: Promise<ApplicationExit>;

  const newChannel = (tech = new RecordingTechnology()) =>
    core.channels.create(sipChannelInit('alice', tech, { dialplan: { context: 'in', exten: '100', priority: 1 } }));

  beforeEach(() => {
    const dialplan = parseDialplan(parseIni('[in]\nexten => 100,1,NoOp()\n same => n(here),NoOp()\n', 'extensions.conf'), silentLogger);
    core = new SwitchboardCore({ config: testCoreConfig({ dialplan }), media: new RecordingMediaEngine() });
    core.registerDriver(new FakeChannelDriver());
    first = [];
    second = [];
    core.applications.register('first', (e) => first.push(e));
    core.applications.register('second', (e) => second.push(e));
    channel = newChannel(new RedirectingTechnology());
    exit = core.applications.enter(channel, 'first', []);
  });

  it('moves a channel between applications, or tells the first one the move failed', () => {
    assert.equal(core.channelFlow.move(channel, 'nowhere', ['x']), false);
    const failed = first.find((e) => e.type === 'ApplicationMoveFailed');
    assert.ok(failed?.type === 'ApplicationMoveFailed' && failed.destination === 'nowhere');
    assert.deepEqual(failed.args, ['x']);
    assert.equal(core.applications.requireControlled(channel), 'first');

    assert.equal(core.channelFlow.move(channel, 'second', ['y']), true);
    assert.ok(first.some((e) => e.type === 'AppEnd'));
    const start = second.find((e) => e.type === 'AppStart');
    assert.ok(start?.type === 'AppStart');
    assert.deepEqual(start.args, ['y']);
    assert.equal(core.applications.requireControlled(channel), 'second');
  });

  it('continues at a label, refuses an unknown one, and defaults the extension to s with a context', async () => {
    assert.throws(() => core.channelFlow.continueInDialplan(channel, { label: 'missing' }), isCode('not_found'));
    core.channelFlow.continueInDialplan(channel, { label: 'here' });
    assert.deepEqual(await exit, { kind: 'continue', priority: 2 });

    const other = newChannel();
    const otherExit = core.applications.enter(other, 'first', []);
    core.channelFlow.continueInDialplan(other, { context: 'elsewhere' });
    assert.deepEqual(await otherExit, { kind: 'continue', context: 'elsewhere', exten: 's', priority: 1 });
  });

  it('redirects within the technology only, and says when the driver cannot', async () => {
    await assert.rejects(core.channelFlow.redirect(channel, 'IAX2/bob'), isCode('unprocessable'));
    await assert.rejects(core.channelFlow.redirect(channel, 'bob'), isCode('unprocessable'));
    await core.channelFlow.redirect(channel, 'PJSIP/bob');
    assert.deepEqual((channel.tech as RecordingTechnology).calls, ['redirect:bob']);
    const plain = newChannel();
    await assert.rejects(core.channelFlow.redirect(plain, 'SIP/bob'), isCode('not_implemented'));
  });
});

import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { ApplicationEvent } from '../apps/application.js';
import { parseIni } from '../config/ini.js';
import { SwitchboardCore } from '../core.js';
import { parseDialplan } from '../dialplan/parse-extensions.js';
import { CoreError } from '../errors.js';
import { RecordingMediaEngine, settle, testCoreConfig } from '../test-support.js';
import { silentLogger } from '../util/logger.js';

const DIALPLAN = `
[default]
exten => 100,1,Ringing()
 same => n,Answer()
 same => n,Set(HALF=two)
 same => n,Wait(30)
exten => 200,1,Hangup(busy)
`;

describe('Local channels', () => {
  let core: SwitchboardCore;
  let received: ApplicationEvent[];

  beforeEach(() => {
    const dialplan = parseDialplan(parseIni(DIALPLAN, 'extensions.conf'), silentLogger);
    core = new SwitchboardCore({ config: testCoreConfig({ dialplan }), media: new RecordingMediaEngine() });
    received = [];
    core.applications.register('demo', (e) => received.push(e));
  });

  const waitUntil = async (condition: () => boolean) => {
    for (let i = 0; i < 50 && !condition(); i++) await settle();
  };

  it('runs ;2 in the dialplan and answers ;1 when the dialplan answers; hangups cross over', async () => {
    const one = await core.originator.originate({ endpoint: 'Local/100@default', app: 'demo', otherChannelId: 'half-two' });
    assert.match(one.name, /^Local\/100@default-[0-9a-f]{8};1$/);
    await waitUntil(() => one.state === 'Up');
    const two = core.channels.get('half-two');
    assert.ok(two, 'the ;2 half exists with the id asked for');
    assert.equal(two.name, one.name.replace(/;1$/, ';2'));
    assert.equal(one.state, 'Up');
    assert.equal(two.getVariable('HALF'), 'two');
    assert.ok(received.some((e) => e.type === 'AppStart' && e.channel.id === one.id));
    assert.ok(received.some((e) => e.type === 'Dial' && e.dialstatus === 'RINGING'));
    await one.hangup();
    await settle();
    assert.ok(two.isDestroyed, ';2 goes when ;1 hangs up');
  });

  it('reports the dialplan hanging up ;2 as the cause of ;1', async () => {
    const one = await core.originator.originate({ endpoint: 'Local/200', app: 'demo' });
    await waitUntil(() => one.isDestroyed);
    assert.equal(one.hangupCause, 17);
    assert.ok(received.some((e) => e.type === 'Dial' && e.dialstatus === 'BUSY'));
  });

  it('refuses a target without an extension', async () => {
    await assert.rejects(
      core.originator.originate({ endpoint: 'Local/@default', app: 'demo' }),
      (err: unknown) => err instanceof CoreError && err.code === 'invalid_argument',
    );
  });
});

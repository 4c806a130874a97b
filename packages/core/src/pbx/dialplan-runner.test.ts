import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ApplicationRegistry } from '../apps/application-registry.js';
import { ChannelRegistry } from '../channels/channel-registry.js';
import { parseIni } from '../config/ini.js';
import { Dialplan } from '../dialplan/dialplan.js';
import { expand } from '../dialplan/expand.js';
import { parseDialplan } from '../dialplan/parse-extensions.js';
import { splitArgs } from '../dialplan/split-args.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { EventBus } from '../events/event-bus.js';
import { PlaybackManager } from '../playback/playback-manager.js';
import { SoundIndex } from '../sounds/sound-index.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, settle } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import { systemClock } from '../util/time.js';
import { DialplanRunner } from './dialplan-runner.js';

function setup(extensions: string) {
  const bus = new EventBus();
  const events: TimedDomainEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const sounds = mkdtempSync(join(tmpdir(), 'runner-sounds-'));
  mkdirSync(join(sounds, 'en'));
  writeFileSync(join(sounds, 'en', 'hello-world.wav'), 'x');
  const media = new RecordingMediaEngine();
  const applications = new ApplicationRegistry(bus, silentLogger);
  const playbacks = new PlaybackManager({
    bus,
    media,
    sounds: new SoundIndex([sounds], 'en', silentLogger),
    log: silentLogger,
    clock: systemClock,
  });
  const config = parseDialplan(parseIni(extensions, 'extensions.conf'), silentLogger);
  const dialplan = new Dialplan(config);
  const globals = new Map(Object.entries(config.globals));
  const runner = new DialplanRunner({
    dialplan: () => dialplan,
    text: { expand, splitArgs },
    applications,
    playbacks,
    globals,
    log: silentLogger,
  });
  const tech = new RecordingTechnology();
  const channel = new ChannelRegistry(bus, silentLogger).create(
    sipChannelInit('a', tech, {
      state: 'Ring',
      caller: { name: 'Alice', number: '1001' },
      dialplan: { context: 'in', exten: '100', priority: 1 },
    }),
  );
  return { runner, channel, tech, media, events, applications, globals };
}

describe('DialplanRunner', () => {
  it('answers, plays, and hangs up in order; expands variables and follows labels', async () => {
    const { runner, channel, tech, media } = setup(`
[globals]
GREETING=hello-world
[in]
exten => 100,1,Set(WHO=\${CALLERID(num)}-\${EXTEN})
 same => n,Goto(play)
 same => n,Hangup(busy)
 same => n(play),Answer()
 same => n,Playback(\${GREETING})
 same => n,Hangup()
`);
    const run = runner.run(channel, { context: 'in', exten: '100', priority: 1 });
    await settle();
    assert.equal(channel.getVariable('WHO'), '1001-100');
    assert.equal(media.plays.length, 1);
    assert.match(media.plays[0].request.file, /hello-world\.wav$/);
    media.finishLast();
    await run;
    assert.equal(channel.getVariable('PLAYBACKSTATUS'), 'SUCCESS');
    assert.deepEqual(tech.calls, ['answer', 'hangup:16']);
    assert.ok(channel.isDestroyed);
  });

  it('hands the channel to an application and continues where it is sent', async () => {
    const { runner, channel, tech, applications } = setup(`
[in]
exten => 100,1,App(demo,one,two)
 same => n,Hangup(17)
exten => 300,1,Hangup(21)
`);
    const received: TimedDomainEvent[] = [];
    applications.register('demo', (e) => {
      if (e.type !== 'ApplicationReplaced') received.push(e);
    });
    const run = runner.run(channel, { context: 'in', exten: '100', priority: 1 });
    await settle();
    const start = received.find((e) => e.type === 'AppStart');
    assert.ok(start && start.type === 'AppStart');
    assert.deepEqual(start.args, ['one', 'two']);
    assert.equal(start.channel.dialplan.app_name, 'App');
    assert.equal(start.channel.dialplan.app_data, 'demo,one,two');
    applications.continueInDialplan(channel, { exten: '300', priority: 1 });
    await run;
    assert.deepEqual(tech.calls, ['hangup:21']);
    assert.ok(received.some((e) => e.type === 'AppEnd'));
  });

  it('falls through when the application is not registered, and hangs up at the end', async () => {
    const { runner, channel, tech } = setup(`
[in]
exten => 100,1,Stasis(nobody)
 same => n,NoOp(\${STASISSTATUS})
`);
    await runner.run(channel, { context: 'in', exten: '100', priority: 1 });
    assert.equal(channel.getVariable('STASISSTATUS'), 'FAILED');
    assert.deepEqual(tech.calls, ['hangup:16']);
  });

  it('stops waiting when the caller hangs up', async () => {
    const { runner, channel, tech } = setup(`
[in]
exten => 100,1,Wait(30)
 same => n,Answer()
`);
    const run = runner.run(channel, { context: 'in', exten: '100', priority: 1 });
    await settle();
    channel.remoteHangup(16);
    await run;
    assert.deepEqual(tech.calls, []);
  });

  it('Busy() refuses an unanswered call as busy; Congestion() plays the congestion tone to an answered one', async () => {
    const refused = setup(`
[in]
exten => 100,1,Busy()
`);
    await refused.runner.run(refused.channel, { context: 'in', exten: '100', priority: 1 });
    assert.deepEqual(refused.tech.calls, ['hangup:17']);

    const { runner, channel, tech, media } = setup(`
[in]
exten => 100,1,Answer()
 same => n,Congestion()
`);
    const run = runner.run(channel, { context: 'in', exten: '100', priority: 1 });
    await settle();
    await settle();
    const tone = media.requests.find((r) => r.method === 'playTone')?.args[1] as { segments: unknown; repeat: boolean } | undefined;
    assert.deepEqual(tone?.segments, [
      { frequencies: [480, 620], durationMs: 250 },
      { frequencies: [], durationMs: 250 },
    ]);
    channel.remoteHangup(16);
    await run;
    assert.deepEqual(tech.calls, ['answer']);
  });

  it('hangs up on an unknown application', async () => {
    const { runner, channel, tech } = setup(`
[in]
exten => 100,1,NoSuchThing()
 same => n,Answer()
`);
    await runner.run(channel, { context: 'in', exten: '100', priority: 1 });
    assert.deepEqual(tech.calls, ['hangup:16']);
  });

  it('redirect abandons the running application and continues at the new place', async () => {
    const { runner, channel, tech } = setup(`
[in]
exten => 100,1,Answer()
 same => n,Wait(30)
 same => n,Set(NOT_REACHED=yes)
exten => 200,1,Set(REDIRECTED=yes)
 same => n,Hangup()
`);
    assert.equal(runner.redirect(channel, { context: 'in', exten: '200', priority: 1 }), false, 'not running yet');
    const run = runner.run(channel, { context: 'in', exten: '100', priority: 1 });
    await settle();
    assert.equal(channel.dialplan.app_name, 'Wait');
    assert.equal(runner.isRunning(channel.id), true);
    assert.equal(runner.exists('in', '200', 1), true);
    assert.equal(runner.exists('in', '200', 3), false);
    assert.equal(runner.redirect(channel, { context: 'in', exten: '200', priority: 1 }), true);
    await run;
    assert.equal(channel.getVariable('REDIRECTED'), 'yes');
    assert.equal(channel.getVariable('NOT_REACHED'), undefined);
    assert.equal(channel.isDestroyed, true);
    assert.ok(tech.calls.some((c) => c.startsWith('hangup')));
    assert.equal(runner.isRunning(channel.id), false);
  });

  it('runApplication runs one application on a channel and then hangs it up', async () => {
    const { runner, channel } = setup('[in]\n');
    assert.equal(runner.hasApplication('set'), true);
    assert.equal(runner.hasApplication('NoSuchApp'), false);
    await runner.runApplication(channel, 'Set', `FROM_ORIGINATE=\${CALLERID(num)}`);
    assert.equal(channel.getVariable('FROM_ORIGINATE'), '1001');
    assert.equal(channel.isDestroyed, true);
  });
});

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
import { EventBus } from '../events/event-bus.js';
import { PlaybackManager } from '../playback/playback-manager.js';
import { SoundIndex } from '../sounds/sound-index.js';
import { MemoryAstDb } from '../store/astdb.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, settle } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import { systemClock } from '../util/time.js';
import type { OutgoingHeaders } from '../drivers/channel-technology.js';
import { DialplanRunner } from './dialplan-runner.js';
import { ChannelVolumes } from './functions/volume.js';
import { inheritVariables } from './variable-inheritance.js';

/** A runner over `extensions` with one ringing channel; `now` fixes the wall clock. */
function setup(extensions: string, now?: Date) {
  const bus = new EventBus();
  const sounds = mkdtempSync(join(tmpdir(), 'language-sounds-'));
  mkdirSync(join(sounds, 'en'));
  writeFileSync(join(sounds, 'en', 'hello-world.wav'), 'x');
  mkdirSync(join(sounds, 'en', 'digits'));
  mkdirSync(join(sounds, 'en', 'letters'));
  for (const id of ['digits/2', 'digits/4', 'digits/40', 'letters/a', 'letters/b']) writeFileSync(join(sounds, 'en', `${id}.wav`), 'x');
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
  const dialplan = new Dialplan(config, now ? { now: () => now } : {});
  const globals = new Map(Object.entries(config.globals));
  const astdb = new MemoryAstDb();
  const runner = new DialplanRunner({
    dialplan: () => dialplan,
    text: { expand, splitArgs },
    applications,
    playbacks,
    globals,
    log: silentLogger,
    pbx: { astdb, ...(now ? { now: () => now } : {}) },
  });
  const tech = new RecordingTechnology();
  const channel = new ChannelRegistry(bus, silentLogger).create(
    sipChannelInit('a', tech, {
      state: 'Ring',
      caller: { name: 'Alice', number: '1001' },
      dialplan: { context: 'in', exten: '100', priority: 1 },
    }),
  );
  const run = (exten = '100') => runner.run(channel, { context: 'in', exten, priority: 1 });
  return { runner, channel, tech, media, globals, astdb, run };
}

describe('dialplan language', () => {
  it('GotoIf follows an expression to a label, and the false branch to another context', async () => {
    const { channel, run } = setup(`
[in]
exten => 100,1,Set(N=7)
 same => n,GotoIf($[\${N} > 5 & \${N} < 10]?big:small)
 same => n(small),Set(R=small)
 same => n,Hangup()
 same => n(big),Set(R=big)
 same => n,GotoIf($["\${R}" = "small"]?100,small:other,s,1)
[other]
exten => s,1,Set(WHERE=\${CONTEXT}/\${EXTEN})
 same => n,Hangup()
`);
    await run();
    assert.equal(channel.getVariable('R'), 'big');
    assert.equal(channel.getVariable('WHERE'), 'other/s');
  });

  it('GotoIfTime and a timed include follow a fixed clock', async () => {
    // A Wednesday, 10:30 in Paris.
    const wednesday = new Date('2026-03-11T09:30:00Z');
    const dialplan = `
[in]
include => open,09:00-17:00,mon-fri,*,*,Europe/Paris
exten => 100,1,GotoIfTime(09:00-12:00,mon-fri,*,*,Europe/Paris?morning)
 same => n,Set(T=other)
 same => n,Hangup()
 same => n(morning),Set(T=morning)
 same => n,GotoIfTime(*,sat-sun,*,*?weekend:)
 same => n,Set(W=weekday)
 same => n,Hangup()
 same => n(weekend),Set(W=weekend)
[open]
exten => 200,1,Set(OPEN=yes)
`;
    const day = setup(dialplan, wednesday);
    await day.run();
    assert.equal(day.channel.getVariable('T'), 'morning');
    assert.equal(day.channel.getVariable('W'), 'weekday');
    const open = setup(dialplan, wednesday);
    await open.run('200');
    assert.equal(open.channel.getVariable('OPEN'), 'yes');

    const saturdayNight = new Date('2026-03-14T22:00:00Z');
    const night = setup(dialplan, saturdayNight);
    await night.run();
    assert.equal(night.channel.getVariable('T'), 'other');
    const closed = setup(dialplan, saturdayNight);
    await closed.run('200');
    assert.equal(closed.channel.getVariable('OPEN'), undefined, 'the timed include is closed at night');
  });

  it('Gosub passes arguments, nests, restores the caller’s ARGn and Return sets GOSUB_RETVAL', async () => {
    const { channel, run } = setup(`
[in]
exten => 100,1,Set(ARG1=mine)
 same => n,Gosub(sub-add,s,1(2,3))
 same => n,Set(SUM=\${GOSUB_RETVAL})
 same => n,Set(AFTER=\${ARG1})
 same => n,Hangup()
[sub-add]
exten => s,1,Gosub(sub-double,s,1(\${ARG2}))
 same => n,Return($[\${ARG1} + \${GOSUB_RETVAL}])
[sub-double]
exten => s,1,Return($[\${ARG1} * 2])
`);
    await run();
    assert.equal(channel.getVariable('SUM'), '8');
    assert.equal(channel.getVariable('AFTER'), 'mine');
  });

  it('ExecIf runs one application; functions are read and written (CALLERID, CUT, LEN, IF, DB)', async () => {
    const { channel, run, astdb, globals } = setup(`
[in]
exten => 100,1,ExecIf($[\${LEN(\${CALLERID(num)})} = 4]?Set(FOUR=yes):Set(FOUR=no))
 same => n,Set(CALLERID(name)=Front Desk)
 same => n,Set(LIST=a-b-c-d)
 same => n,Set(PART=\${CUT(LIST,-,2-3)})
 same => n,Set(DB(cf/1001)=2000)
 same => n,Set(GOT=\${DB(cf/1001)}:\${DB_EXISTS(cf/1002)}:\${IF($[1 = 1]?y:n)})
 same => n,Set(GLOBAL(COUNT)=5)
 same => n,Set(M=\${MATH(7/2,int)}:$[7 % 3]:$["abc" =~ "b"])
 same => n,Hangup()
`);
    await run();
    assert.equal(channel.getVariable('FOUR'), 'yes');
    assert.equal(channel.caller.name, 'Front Desk');
    assert.equal(channel.getVariable('PART'), 'b-c');
    assert.equal(astdb.get('cf', '1001'), '2000');
    assert.equal(channel.getVariable('GOT'), '2000:0:y');
    assert.equal(globals.get('COUNT'), '5');
    assert.equal(channel.getVariable('M'), '3:1:1');
  });

  it('VOLUME(TX|RX) sets the leg gains as the original counts them (2 doubles, -2 halves)', async () => {
    const { channel, run, runner, media } = setup(`
[in]
exten => 100,1,Set(VOLUME(TX)=2)
 same => n,Set(VOLUME(RX)=-4)
 same => n,Set(VOLUME(RX)=99)
 same => n,Set(GOT=\${VOLUME(TX)}:\${VOLUME(RX)})
 same => n,Hangup()
`);
    const volumes = new ChannelVolumes(media, silentLogger);
    runner.registerFunction('VOLUME', volumes.function);
    await run();
    await settle();
    assert.equal(channel.getVariable('GOT'), '2:-4', 'an out-of-range value leaves the volume as it was');
    assert.deepEqual(
      media.requests.filter((r) => r.method === 'setLegGain').map((r) => r.args),
      [
        ['leg-1', { inbound: 1, outbound: 2 }],
        ['leg-1', { inbound: 0.25, outbound: 2 }],
      ],
    );
  });

  it('PJSIP_HEADER adds, updates and removes headers of an INVITE not sent yet, and reads them back', async () => {
    const { channel, run, tech } = setup(`
[in]
exten => 100,1,Set(PJSIP_HEADER(add,X-Tenant)=7)
 same => n,Set(PJSIP_HEADER(add,X-Drop-A)=1)
 same => n,Set(PJSIP_HEADER(add,X-Drop-B)=2)
 same => n,Set(PJSIP_HEADER(update,X-Tenant)=8)
 same => n,Set(REMOVED=\${PJSIP_HEADER(remove,X-Drop-*)})
 same => n,Set(PJSIP_HEADER(add,Bad Name)=x)
 same => n,Set(GOT=\${PJSIP_HEADER(read,X-Tenant)})
 same => n,Hangup()
`);
    const headers: OutgoingHeaders = { list: [], sent: false };
    Object.assign(tech, { outgoingHeaders: headers });
    await run();
    assert.deepEqual(headers.list, [['X-Tenant', '8']]);
    assert.equal(channel.getVariable('REMOVED'), '2');
    assert.equal(channel.getVariable('GOT'), '8');
  });

  it('a jump to a missing extension goes to i; h runs after the hangup', async () => {
    const { channel, run, astdb } = setup(`
[in]
exten => 100,1,Goto(555,1)
exten => i,1,Set(BAD=\${INVALID_EXTEN})
 same => n,Hangup()
exten => h,1,Set(DB(calls/last)=\${BAD})
`);
    await run();
    assert.equal(channel.getVariable('BAD'), '555');
    assert.equal(astdb.get('calls', 'last'), '555');
  });

  it('Playback of a missing sound sets PLAYBACKSTATUS=FAILED and goes on', async () => {
    const { channel, run, tech } = setup(`
[in]
exten => 100,1,Playback(no-such-sound)
 same => n,Set(AFTER=\${PLAYBACKSTATUS})
 same => n,Hangup()
`);
    await run();
    assert.equal(channel.getVariable('AFTER'), 'FAILED');
    assert.deepEqual(tech.calls, ['answer', 'hangup:16']);
  });

  it('Background stops at a digit and dials it; WaitExten goes to t, Read gathers digits', async () => {
    const { runner, channel, run, media } = setup(`
[in]
exten => 100,1,Background(hello-world)
 same => n,WaitExten(1)
exten => 2,1,Read(PIN,,4)
 same => n,Set(GOT=\${PIN}/\${READSTATUS})
 same => n,WaitExten(0.05)
exten => t,1,Set(TIMEOUT_HIT=yes)
 same => n,Hangup()
`);
    const done = run();
    await settle();
    assert.equal(media.plays.length, 1);
    runner.pbx.dtmf.push(channel.id, '2');
    await settle();
    for (const digit of ['4', '3', '2', '1']) runner.pbx.dtmf.push(channel.id, digit);
    await done;
    assert.equal(channel.getVariable('GOT'), '4321/OK');
    assert.equal(channel.getVariable('TIMEOUT_HIT'), 'yes');
  });

  it('says numbers, digits and letters from the digits/ and letters/ prompts; Set(_X) is inheritable', async () => {
    const { channel, run, media } = setup(`
[in]
exten => 100,1,Answer()
 same => n,SayNumber(42)
 same => n,SayDigits(24)
 same => n,SayAlpha(ab)
 same => n,Set(__ACCOUNT=sales)
 same => n,Hangup()
`);
    const done = run();
    const files: string[] = [];
    for (let i = 0; i < 6; i++) {
      const deadline = Date.now() + 2000;
      while (media.plays.length <= i && Date.now() < deadline) await settle();
      files.push(media.plays[i].request.file.replace(/^.*\/en\//, '').replace(/\.wav$/, ''));
      media.finishLast();
    }
    await done;
    assert.deepEqual(files, ['digits/40', 'digits/2', 'digits/2', 'digits/4', 'letters/a', 'letters/b']);
    assert.equal(channel.getVariable('ACCOUNT'), 'sales');
    const child = new ChannelRegistry(new EventBus(), silentLogger).create(
      sipChannelInit('b', new RecordingTechnology(), { direction: 'outbound', state: 'Down' }),
    );
    inheritVariables(channel, child);
    assert.equal(child.getVariable('ACCOUNT'), 'sales');
  });

  it('reports unknown applications and functions with file and line', () => {
    const { runner } = setup(`
[in]
exten => 100,1,NoOp(\${NOSUCHFUNC(x)})
 same => n,Frobnicate(1)
 same => n,Set(ALSOBAD(x)=1)
 same => n,Set(X=\${CALLERID(num)}\${DB(a/b)})
`);
    const problems = runner.check();
    assert.deepEqual(
      problems.map((p) => [p.line, p.message]),
      [
        [3, "unknown dialplan function 'NOSUCHFUNC()'"],
        [4, "unknown dialplan application 'Frobnicate'"],
        [5, "unknown dialplan function 'ALSOBAD()'"],
      ],
    );
    assert.ok(problems.every((p) => p.file === 'extensions.conf'));
  });
});

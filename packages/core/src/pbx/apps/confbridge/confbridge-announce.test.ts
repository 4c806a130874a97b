import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import type { Channel } from '../../../channels/channel.js';
import { SwitchboardCore } from '../../../core.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, settle, testCoreConfig } from '../../../test-support.js';
import { defaultBridgeProfile, defaultUserProfile } from './confbridge-config.js';
import { userCountPrompts } from './confbridge-service.js';

/** The shipped prompts (repo sounds/), from packages/core/dist/pbx/apps/confbridge. */
const SOUNDS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../../../sounds');

describe('conference announcements', () => {
  const recordings = mkdtempSync(join(tmpdir(), 'confbridge-names-'));
  after(() => rmSync(recordings, { recursive: true, force: true }));

  it('counts the others for the joining user and says recorded names on join and leave', async () => {
    const config = testCoreConfig({ soundDir: SOUNDS });
    config.general.recordingDir = recordings;
    const media = new RecordingMediaEngine();
    const core = new SwitchboardCore({ config, media });
    const channel = (id: string): Channel =>
      core.channels.create(sipChannelInit(id, new RecordingTechnology(), { id, caller: { name: '', number: id } }));
    const name = 'confbridge/names/room/bob';
    const file = join(recordings, `${name}.wav`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, Buffer.alloc(44 + 1600));

    const profiles = { bridge: defaultBridgeProfile(), user: { ...defaultUserProfile(), announceOnlyUser: false }, menu: undefined };
    const alice = channel('alice');
    const bob = channel('bob');
    const aliceIn = core.conferences.join(alice, 'room', profiles, async () => undefined);
    await settle();
    const counting = { ...profiles, user: { ...profiles.user, announceUserCount: true, announceJoinLeave: true } };
    const bobIn = core.conferences.join(bob, 'room', counting, async () => undefined, name);
    for (let i = 0; i < 20 && !media.plays.some((p) => p.request.file.endsWith('conf-onlyone.wav')); i++) await settle();
    const toBob = media.plays.at(-1);
    assert.equal(toBob?.legId, 'leg-1');
    assert.match(toBob?.request.file ?? '', /conf-onlyone\.wav$/, 'bob hears that one other is in');
    media.finishLast();
    for (let i = 0; i < 20 && !media.plays.some((p) => p.legId.startsWith('bridge:')); i++) await settle();
    const joined = media.plays.filter((p) => p.legId.startsWith('bridge:')).map((p) => p.request.file);
    assert.deepEqual(joined, [file], 'the conference hears bob’s name first, then conf-hasjoin');
    media.finishLast();
    for (let i = 0; i < 20 && media.plays.filter((p) => p.legId.startsWith('bridge:')).length < 2; i++) await settle();
    assert.match(media.plays.at(-1)?.request.file ?? '', /conf-hasjoin\.wav$/);
    media.finishLast();

    await bob.hangup();
    assert.equal(await bobIn, 'HANGUP');
    for (let i = 0; i < 20 && media.plays.filter((p) => p.legId.startsWith('bridge:')).length < 3; i++) await settle();
    assert.equal(media.plays.at(-1)?.request.file, file, 'the name again as bob leaves');
    media.finishLast();
    for (let i = 0; i < 20 && media.plays.filter((p) => p.legId.startsWith('bridge:')).length < 4; i++) await settle();
    assert.match(media.plays.at(-1)?.request.file ?? '', /conf-hasleft\.wav$/);
    media.finishLast();
    for (let i = 0; i < 20 && core.recordings.stored.find(name) !== undefined; i++) await settle();
    assert.equal(core.recordings.stored.find(name), undefined, 'the recorded name is deleted once said');
    await alice.hangup();
    assert.equal(await aliceIn, 'HANGUP');
  });

  it('words the count as the original', () => {
    assert.deepEqual(userCountPrompts(0), []);
    assert.deepEqual(userCountPrompts(1), ['sound:conf-onlyone']);
    assert.deepEqual(userCountPrompts(4), ['sound:conf-thereare', 'number:4', 'sound:conf-otherinparty']);
  });
});

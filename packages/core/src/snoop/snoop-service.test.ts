import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { ApplicationEvent } from '../apps/application.js';
import type { Channel } from '../channels/channel.js';
import { SwitchboardCore } from '../core.js';
import { CoreError } from '../errors.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, settle, testCoreConfig } from '../test-support.js';

const isCode = (code: CoreError['code']) => (err: unknown) => err instanceof CoreError && err.code === code;

describe('SnoopService', () => {
  let core: SwitchboardCore;
  let media: RecordingMediaEngine;
  let source: Channel;
  let received: ApplicationEvent[];

  beforeEach(() => {
    media = new RecordingMediaEngine();
    core = new SwitchboardCore({ config: testCoreConfig(), media });
    received = [];
    core.applications.register('spy', (e) => received.push(e));
    source = core.channels.create(sipChannelInit('alice', new RecordingTechnology(), { id: 'source', language: 'fr' }));
  });

  it('makes an answered Snoop channel over a snoop leg and places it in the application', async () => {
    const snoop = await core.snoops.snoop(source, { spy: 'in', whisper: 'none', app: 'spy', appArgs: 'a,b', snoopId: 'snoop-1' });
    await settle();
    assert.equal(snoop.id, 'snoop-1');
    assert.match(snoop.name, /^Snoop\/source-[0-9a-f]{8}$/);
    assert.equal(snoop.state, 'Up');
    assert.equal(snoop.language, 'fr');
    const request = media.requests.find((r) => r.method === 'createSnoopLeg');
    assert.deepEqual(request?.args, [{ sourceLegId: 'leg-1', spy: 'in', whisper: 'none' }]);
    assert.equal(snoop.tech.mediaLegId?.startsWith('snoop-'), true);
    const start = received.find((e) => e.type === 'AppStart');
    assert.ok(start?.type === 'AppStart' && start.channel.id === 'snoop-1');
    assert.deepEqual(start.args, ['a', 'b']);

    await source.hangup();
    await settle();
    assert.ok(snoop.isDestroyed, 'the snoop channel goes with its source');
  });

  it('refuses spy and whisper both none, bad directions, a missing app and a taken id', async () => {
    await assert.rejects(core.snoops.snoop(source, { app: 'spy' }), isCode('invalid_argument'));
    await assert.rejects(core.snoops.snoop(source, { spy: 'both', app: undefined }), isCode('invalid_argument'));
    await assert.rejects(core.snoops.snoop(source, { spy: 'both', app: 'spy', snoopId: 'source' }), isCode('conflict'));
    assert.equal(media.requests.filter((r) => r.method === 'createSnoopLeg').length, 0);
  });
});

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { SwitchboardCore } from '../core.js';
import { CoreError } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, settle, testCoreConfig } from '../test-support.js';
import type { Clock } from '../util/time.js';
import type { Channel } from './channel.js';
import { parseDtmf } from './dtmf.js';

class LegTechnology extends RecordingTechnology {
  override readonly mediaLegId: string;
  constructor(legId: string) {
    super();
    this.mediaLegId = legId;
  }
}

/** Timers run at once, in order, and the requested delays are kept for the test. */
class InstantClock implements Clock {
  readonly delays: number[] = [];
  now() {
    return Date.now();
  }
  setTimeout(fn: () => void, ms: number) {
    this.delays.push(ms);
    return setImmediate(fn);
  }
  clearTimeout(handle: unknown) {
    clearImmediate(handle as NodeJS.Immediate);
  }
}

describe('ChannelMediaControl', () => {
  let core: SwitchboardCore;
  let media: RecordingMediaEngine;
  let clock: InstantClock;
  let events: TimedDomainEvent[];
  let soundDir: string;
  let count = 0;
  const newChannel = (state: Channel['state'] = 'Up'): Channel => {
    count += 1;
    return core.channels.create(sipChannelInit('alice', new LegTechnology(`leg-${count}`), { name: `SIP/alice-${count}`, state }));
  };
  const requests = (method: string) => media.requests.filter((r) => r.method === method).map((r) => r.args);

  beforeEach(() => {
    soundDir = mkdtempSync(join(tmpdir(), 'moh-'));
    mkdirSync(join(soundDir, 'moh', 'jazz'), { recursive: true });
    writeFileSync(join(soundDir, 'moh', 'jazz', 'b.wav'), '');
    writeFileSync(join(soundDir, 'moh', 'jazz', 'a.wav'), '');
    media = new RecordingMediaEngine();
    clock = new InstantClock();
    const config = testCoreConfig({ soundDir });
    config.musicOnHold = { classes: { jazz: { name: 'jazz', directory: join(soundDir, 'moh', 'jazz'), sort: 'alpha' } } };
    core = new SwitchboardCore({ config, media, clock });
    events = [];
    core.bus.subscribe((e) => events.push(e));
  });

  it('validates DTMF digits and turns commas into pauses', () => {
    assert.deepEqual(parseDtmf('12,a#'), [
      { kind: 'digits', digits: '12' },
      { kind: 'pause', ms: 500 },
      { kind: 'digits', digits: 'A#' },
    ]);
    for (const bad of ['', '12x', 'E', undefined]) {
      assert.throws(
        () => parseDtmf(bad),
        (err: unknown) => err instanceof CoreError && err.code === 'invalid_argument',
        String(bad),
      );
    }
  });

  it('sends DTMF runs with the before, pause and after delays', async () => {
    const channel = newChannel();
    await core.channelMedia.sendDtmf(channel, '12,3', { beforeMs: 40, betweenMs: 80, durationMs: 120, afterMs: 60 });
    assert.deepEqual(requests('sendDtmf'), [
      [channel.tech.mediaLegId, { digits: '12', durationMs: 120, betweenMs: 80 }],
      [channel.tech.mediaLegId, { digits: '3', durationMs: 120, betweenMs: 80 }],
    ]);
    assert.deepEqual(clock.delays, [40, 500, 60]);
    assert.throws(() => core.channelMedia.sendDtmf(channel, '1', { beforeMs: -1, betweenMs: 0, durationMs: 100, afterMs: 0 }));
  });

  it('mutes per direction and keeps hold muting what the channel sends', async () => {
    const channel = newChannel();
    await core.channelMedia.mute(channel, 'out');
    await core.channelMedia.hold(channel);
    await core.channelMedia.unmute(channel, 'both');
    await core.channelMedia.unhold(channel);
    const leg = channel.tech.mediaLegId;
    assert.deepEqual(requests('setLegMute'), [
      [leg, { inbound: false, outbound: true }],
      [leg, { inbound: true, outbound: true }],
      [leg, { inbound: true, outbound: false }],
      [leg, { inbound: false, outbound: false }],
    ]);
    const holds = events.filter((e) => e.type === 'ChannelHold' || e.type === 'ChannelUnhold');
    assert.deepEqual(
      holds.map((e) => e.type),
      ['ChannelHold', 'ChannelUnhold'],
    );
  });

  it('plays a music class file by file, and one generator replaces another', async () => {
    const channel = newChannel();
    await core.channelMedia.startMoh(channel, 'jazz');
    assert.equal(media.plays.length, 1);
    assert.match(media.plays[0]?.request.file ?? '', /jazz\/a\.wav$/);
    media.finishLast();
    await settle();
    assert.match(media.plays[1]?.request.file ?? '', /jazz\/b\.wav$/);
    await core.channelMedia.startSilence(channel);
    const [target, tone] = requests('playTone')[0] ?? [];
    assert.deepEqual(target, { kind: 'leg', legId: channel.tech.mediaLegId });
    assert.deepEqual(tone, {
      playbackId: (tone as { playbackId: string }).playbackId,
      segments: [{ frequencies: [], durationMs: 0 }],
      repeat: true,
    });
    await core.channelMedia.stopMoh(channel);
    assert.deepEqual(media.stops, [], 'stopping music that was replaced stops nothing');
    await core.channelMedia.stopSilence(channel);
    assert.deepEqual(media.stops, [(tone as { playbackId: string }).playbackId]);
  });

  it('rings with a 180 before the answer and with local ringback after it', async () => {
    const early = newChannel('Ring');
    await core.channelMedia.ring(early);
    assert.deepEqual((early.tech as RecordingTechnology).calls, ['ringing']);
    const up = newChannel('Up');
    await core.channelMedia.ring(up);
    const ringback = requests('playTone')[0]?.[1] as { playbackId: string; segments: { frequencies: number[] }[] };
    assert.deepEqual(ringback.segments[0]?.frequencies, [440, 480]);
    await core.channelMedia.ringStop(up);
    assert.deepEqual(media.stops, [ringback.playbackId]);
  });

  it('turns DTMF and talk notifications of a leg into events of its channel, once per key press', async () => {
    const channel = newChannel();
    media.emit({ type: 'dtmfReceived', legId: channel.tech.mediaLegId ?? '', digit: '5', durationMs: 120 });
    core.channelMedia.remoteDtmf(channel, '5', 120);
    media.emit({ type: 'talkingStarted', legId: channel.tech.mediaLegId ?? '' });
    media.emit({ type: 'talkingFinished', legId: channel.tech.mediaLegId ?? '', durationMs: 900 });
    media.emit({ type: 'dtmfReceived', legId: 'unknown-leg', digit: '1', durationMs: 100 });
    const mine = events.filter((e) => e.type.startsWith('ChannelDtmf') || e.type.startsWith('ChannelTalking'));
    assert.deepEqual(
      mine.map((e) => e.type),
      ['ChannelDtmfReceived', 'ChannelTalkingStarted', 'ChannelTalkingFinished'],
    );
    const dtmf = mine[0];
    assert.ok(dtmf?.type === 'ChannelDtmfReceived' && dtmf.digit === '5' && dtmf.duration_ms === 120);
    const finished = mine[2];
    assert.ok(finished?.type === 'ChannelTalkingFinished' && finished.duration === 900);
  });
});

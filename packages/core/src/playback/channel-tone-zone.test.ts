/**
 * A channel's tone zone: TONEZONE variable, then its endpoint's pjsip.conf `tone_zone`, then the
 * default zone of indications.conf; `tone:` playbacks and announcer formats follow it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Channel } from '../channels/channel.js';
import { ChannelRegistry } from '../channels/channel-registry.js';
import { readIndicationsConfig } from '../config/indications-config.js';
import { parseIni } from '../config/ini.js';
import { readSipConfig } from '../config/pjsip-config.js';
import { EventBus } from '../events/event-bus.js';
import type { MediaTarget, PlayToneRequest } from '../media/media-engine.js';
import { SoundIndex } from '../sounds/sound-index.js';
import { sipChannelInit, RecordingMediaEngine, RecordingTechnology, settle } from '../test-support.js';
import { silentLogger } from '../util/logger.js';
import { systemClock } from '../util/time.js';
import { channelToneZone } from './channel-tone-zone.js';
import { PlaybackManager } from './playback-manager.js';
import { parseTonePattern } from './tone-pattern.js';
import { ToneResolver } from './tone-resolver.js';

const INDICATIONS = ['[general]', 'country = us', '', '[uk]', 'ring = 400+450/400,0/200,400+450/400,0/2000', 'busy = 400/375,0/375'].join(
  '\n',
);
const indications = readIndicationsConfig(parseIni(INDICATIONS, 'indications.conf'), silentLogger);
const sip = readSipConfig(
  parseIni(['[london]', 'type = endpoint', 'tone_zone = UK', '', '[plain]', 'type = endpoint'].join('\n'), 'pjsip.conf'),
  '/tmp',
  silentLogger,
);

function newChannel(endpoint: string, registry = new ChannelRegistry(new EventBus(), silentLogger)): Channel {
  return registry.create(sipChannelInit(endpoint, new RecordingTechnology()));
}

const segments = (pattern: string) => {
  const parsed = parseTonePattern(pattern);
  assert.ok(parsed.ok);
  return parsed.segments;
};

describe('channel tone zone', () => {
  it('pjsip.conf tone_zone is read per endpoint (lower case)', () => {
    assert.equal(sip.endpoints.find((e) => e.name === 'london')?.toneZone, 'uk');
    assert.equal(sip.endpoints.find((e) => e.name === 'plain')?.toneZone, undefined);
  });

  it('TONEZONE wins over the endpoint, which wins over the default', () => {
    const london = newChannel('london');
    const plain = newChannel('plain');
    assert.equal(channelToneZone(london, sip.endpoints), 'uk');
    assert.equal(channelToneZone(plain, sip.endpoints), undefined);
    plain.setVariable('TONEZONE', 'UK');
    assert.equal(channelToneZone(plain, sip.endpoints), 'uk');
    london.setVariable('TONEZONE', 'us');
    assert.equal(channelToneZone(london, sip.endpoints), 'us');
  });

  it('the resolver uses the channel zone, a URI zone over it, and the default for a zone it does not know', () => {
    const tones = new ToneResolver(indications);
    assert.deepEqual(tones.resolve('ring', 'uk'), { ok: true, segments: segments('400+450/400,0/200,400+450/400,0/2000') });
    assert.deepEqual(tones.resolve('ring;tonezone=us', 'uk'), { ok: true, segments: segments('440+480/2000,0/4000') });
    assert.deepEqual(tones.resolve('ring', 'atlantis'), { ok: true, segments: segments('440+480/2000,0/4000') });
    assert.equal(tones.resolve('ring;tonezone=atlantis').ok, false, "a URI's zone must exist");
  });

  it("tone: playbacks on a channel without ;tonezone= use the channel's zone", async () => {
    const bus = new EventBus();
    const media = new RecordingMediaEngine();
    const sounds = mkdtempSync(join(tmpdir(), 'sounds-'));
    mkdirSync(join(sounds, 'en'));
    const manager = new PlaybackManager({
      bus,
      media,
      sounds: new SoundIndex([sounds], 'en', silentLogger),
      log: silentLogger,
      clock: systemClock,
      tones: new ToneResolver(indications),
      toneZoneOf: (channel) => channelToneZone(channel, sip.endpoints),
    });
    const registry = new ChannelRegistry(bus, silentLogger);
    const london = newChannel('london', registry);
    const plain = newChannel('plain', registry);
    manager.playOnChannel(london, ['tone:busy']);
    manager.playOnChannel(plain, ['tone:busy']);
    await settle();
    const tones = media.requests.filter((r) => r.method === 'playTone').map((r) => r.args as [MediaTarget, PlayToneRequest]);
    assert.equal(tones.length, 2);
    assert.deepEqual(tones[0]?.[1].segments, segments('400/375,0/375'), 'UK busy for the london endpoint');
    assert.deepEqual(tones[1]?.[1].segments, segments('480+620/500,0/500'), 'US busy (the default zone) otherwise');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultIndicationsConfig } from '../config/indications-config.js';
import { looksLikeTonePattern, parseTonePattern, splitToneUri } from './tone-pattern.js';
import { ToneResolver } from './tone-resolver.js';

describe('tone patterns', () => {
  it('parses sums, silences, play-once steps and modulation', () => {
    assert.deepEqual(parseTonePattern('!350+440/100,!0/100,425/500,0/500'), {
      ok: true,
      segments: [
        { frequencies: [350, 440], durationMs: 100, once: true },
        { frequencies: [], durationMs: 100, once: true },
        { frequencies: [425], durationMs: 500 },
        { frequencies: [], durationMs: 500 },
      ],
    });
    assert.deepEqual(parseTonePattern('425*50/1000'), {
      ok: true,
      segments: [{ frequencies: [425, 50], durationMs: 1000, modulated: true }],
    });
    // No duration: the step lasts until stopped.
    assert.deepEqual(parseTonePattern('350+440'), { ok: true, segments: [{ frequencies: [350, 440], durationMs: 0 }] });
  });

  it('refuses what it cannot play', () => {
    for (const bad of ['', '350+440+480/100', 'abc', '350/x', '9000/100', 'M60/100', '350+/100', '350//100']) {
      assert.equal(parseTonePattern(bad).ok, false, bad);
    }
  });

  it('splits the tone zone off a tone URI and tells patterns from names', () => {
    assert.deepEqual(splitToneUri('busy;tonezone=fr'), { tone: 'busy', zone: 'fr' });
    assert.deepEqual(splitToneUri('ring'), { tone: 'ring' });
    assert.ok(looksLikeTonePattern('!350+440/100,!0/100'));
    assert.ok(!looksLikeTonePattern('ring'));
  });
});

describe('ToneResolver', () => {
  const config = defaultIndicationsConfig();
  config.zones.fr = { description: 'France', tones: { busy: '440/500,0/500' } };
  const tones = new ToneResolver(config);

  it('looks a name up in the default zone, or in the zone the URI names', () => {
    const ring = tones.resolve('ring');
    assert.ok(ring.ok);
    assert.deepEqual(ring.segments[0], { frequencies: [440, 480], durationMs: 2000 });
    const busyFr = tones.resolve('busy;tonezone=fr');
    assert.ok(busyFr.ok);
    assert.deepEqual(busyFr.segments[0], { frequencies: [440], durationMs: 500 });
  });

  it('takes a raw pattern as it is and reports unknown names and zones', () => {
    const raw = tones.resolve('425/500,0/500;tonezone=fr');
    assert.ok(raw.ok && raw.segments.length === 2);
    assert.match((tones.resolve('nosuch') as { error: string }).error, /not defined in zone 'us'/);
    assert.match((tones.resolve('busy;tonezone=xx') as { error: string }).error, /zone 'xx'/);
  });
});

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ConfigError } from '../errors.js';
import { readIndicationsConfig } from './indications-config.js';
import { parseIni } from './ini.js';
import { musicOnHoldClassFiles, readMusicOnHoldConfig } from './musiconhold-config.js';
import { recordingLogger } from './test-support.js';

const doc = (text: string, file = '/etc/sb/test.conf') => parseIni(text, file);

describe('indications.conf', () => {
  it('reads the default country and every tone of every zone', () => {
    const config = readIndicationsConfig(
      doc('[general]\ncountry = fr\n[fr]\ndescription = France\nringcadence = 1500,3500\nring = 440/1500,0/3500\nbusy = 440/500,0/500\n'),
      recordingLogger(),
    );
    assert.equal(config.country, 'fr');
    assert.deepEqual(config.zones.fr, { description: 'France', tones: { ring: '440/1500,0/3500', busy: '440/500,0/500' } });
  });

  it('stops startup on a pattern that cannot be played, naming the line', () => {
    assert.throws(
      () => readIndicationsConfig(doc('[us]\nbusy = 480+620/abc\n'), recordingLogger()),
      (e: ConfigError) => e.line === 2,
    );
  });

  it('falls back to the built-in US tones when the country has no zone, with a warning', () => {
    const log = recordingLogger();
    const config = readIndicationsConfig(doc('[general]\ncountry = xx\n'), log);
    assert.ok(config.zones.xx?.tones.busy);
    assert.equal(log.warnings().length, 1);
    assert.ok(readIndicationsConfig(undefined, log).zones.us?.tones.ring);
  });
});

describe('musiconhold.conf', () => {
  it('reads files classes, resolving directories against the conf directory, and lists their WAV files', () => {
    const root = mkdtempSync(join(tmpdir(), 'moh-'));
    mkdirSync(join(root, 'sounds', 'moh', 'jazz'), { recursive: true });
    for (const f of ['b.wav', 'a.wav', 'notes.txt']) writeFileSync(join(root, 'sounds', 'moh', 'jazz', f), '');
    const log = recordingLogger();
    const config = readMusicOnHoldConfig(
      doc('[jazz]\nmode = files\ndirectory = ../sounds/moh/jazz\n[stream]\nmode = custom\napplication = /bin/true\n'),
      join(root, 'conf'),
      log,
    );
    assert.deepEqual(Object.keys(config.classes), ['jazz']);
    assert.deepEqual(musicOnHoldClassFiles(config)('jazz'), [join(root, 'sounds/moh/jazz/a.wav'), join(root, 'sounds/moh/jazz/b.wav')]);
    assert.deepEqual(musicOnHoldClassFiles(config)('constructor'), []);
    assert.ok(log.warnings().some((w) => w.includes('mode=custom')));
  });

  it('has a default class under sounds/moh/default when the file is missing', () => {
    const config = readMusicOnHoldConfig(undefined, '/srv/sb/conf', recordingLogger());
    assert.equal(config.classes.default?.directory, '/srv/sb/sounds/moh/default');
  });
});

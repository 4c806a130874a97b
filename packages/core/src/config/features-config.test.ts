import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import { silentLogger } from '../util/logger.js';
import { defaultFeaturesConfig, readFeaturesConfig } from './features-config.js';
import { parseIni } from './ini.js';

const SHIPPED = join(fileURLToPath(new URL('.', import.meta.url)), '../../../../conf/features.conf');

describe('features.conf', () => {
  it('has the original built-in codes without a file, and the shipped file says the same', () => {
    const defaults = defaultFeaturesConfig();
    assert.deepEqual(defaults.featureMap, { blindxfer: '#', disconnect: '*', automixmon: '*1', atxfer: '', parkcall: '' });
    assert.deepEqual(readFeaturesConfig(undefined, silentLogger), defaults);
    assert.deepEqual(readFeaturesConfig(parseIni(readFileSync(SHIPPED, 'utf8'), 'features.conf'), silentLogger), defaults);
  });

  it('reads the codes and timeouts, takes automon as automixmon and refuses a code that is not DTMF', () => {
    const config = readFeaturesConfig(
      parseIni(
        '[general]\nfeaturedigittimeout = 1500\ntransferdigittimeout = 5\n[featuremap]\nautomon = *3\ndisconnect = **\nparkcall = #72\n',
        'features.conf',
      ),
      silentLogger,
    );
    assert.equal(config.featureDigitTimeoutMs, 1500);
    assert.equal(config.transferDigitTimeoutMs, 5000);
    assert.deepEqual(config.featureMap, { blindxfer: '#', disconnect: '**', automixmon: '*3', atxfer: '', parkcall: '#72' });
    assert.throws(() => readFeaturesConfig(parseIni('[featuremap]\nblindxfer = #x\n', 'features.conf'), silentLogger), ConfigError);
  });
});

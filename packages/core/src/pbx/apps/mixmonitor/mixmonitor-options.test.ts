import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MixMonitorOptionError, parseMixMonitorOptions, volumeFactor } from './mixmonitor-options.js';

describe('MixMonitor options', () => {
  it('reads flags and options with arguments in any order', () => {
    const options = parseMixMonitorOptions('abv(2)V(-2)r(in/leg.wav)t(out/leg.wav)i(MIXID)');
    assert.deepEqual(options, {
      append: true,
      bridgedOnly: true,
      heardGain: 2,
      spokenGain: 0.5,
      receivedFile: 'in/leg.wav',
      transmittedFile: 'out/leg.wav',
      idVariable: 'MIXID',
    });
  });

  it('W() sets both volumes and no options leaves everything unchanged', () => {
    assert.deepEqual(parseMixMonitorOptions('W(3)'), { append: false, bridgedOnly: false, heardGain: 3, spokenGain: 3 });
    assert.deepEqual(parseMixMonitorOptions(''), { append: false, bridgedOnly: false, heardGain: 1, spokenGain: 1 });
  });

  it('refuses unknown letters, volumes outside -4..4 and missing arguments', () => {
    assert.throws(() => parseMixMonitorOptions('z'), MixMonitorOptionError);
    assert.throws(() => parseMixMonitorOptions('v(5)'), MixMonitorOptionError);
    assert.throws(() => parseMixMonitorOptions('v(x)'), MixMonitorOptionError);
    assert.throws(() => parseMixMonitorOptions('r()'), MixMonitorOptionError);
    assert.throws(() => parseMixMonitorOptions('i(MIXID'), MixMonitorOptionError);
  });

  it('turns volume adjustments into gain factors as the original does', () => {
    assert.equal(volumeFactor(0), 1);
    assert.equal(volumeFactor(4), 4);
    assert.equal(volumeFactor(-4), 0.25);
  });
});

/** pjsip.conf `rtp_timeout` and `rtp_timeout_hold`, as operators write them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../errors.js';
import { parseIni } from './ini.js';
import { readSipConfig } from './pjsip-config.js';
import { endpointRtpTimeouts } from './pjsip-rtp-timeout.js';
import { recordingLogger } from './test-support.js';

const endpointWith = (...lines: string[]) => {
  const log = recordingLogger();
  const sip = readSipConfig(parseIni(['[phone]', 'type = endpoint', ...lines, ''].join('\n'), '/conf/pjsip.conf'), '/conf', log);
  return { endpoint: sip.endpoints[0], log };
};

describe('pjsip.conf rtp_timeout and rtp_timeout_hold', () => {
  it('reads both as seconds, without a warning', () => {
    const { endpoint, log } = endpointWith('rtp_timeout = 30', 'rtp_timeout_hold = 600');
    assert.equal(endpoint.rtpTimeout, 30);
    assert.equal(endpoint.rtpTimeoutHold, 600);
    assert.deepEqual(endpointRtpTimeouts(endpoint), { active: 30, hold: 600 });
    assert.deepEqual(log.warnings(), [], 'implemented options are not reported as unsupported');
  });

  it('is off (0) when absent, and 0 may be written', () => {
    assert.deepEqual(endpointRtpTimeouts(endpointWith().endpoint), { active: 0, hold: 0 });
    assert.deepEqual(endpointRtpTimeouts(endpointWith('rtp_timeout = 0', 'rtp_timeout_hold = 0').endpoint), { active: 0, hold: 0 });
    assert.deepEqual(endpointRtpTimeouts(endpointWith('rtp_timeout_hold = 60').endpoint), { active: 0, hold: 60 });
  });

  it('stops startup on a value that is not a whole number of seconds, naming the line', () => {
    for (const [line, value] of [
      [3, 'rtp_timeout = -5'],
      [3, 'rtp_timeout = 1.5'],
      [3, 'rtp_timeout = soon'],
      [3, 'rtp_timeout ='],
      [4, 'rtp_timeout_hold = 99999999999'],
    ] as const) {
      const lines = line === 4 ? ['rtp_timeout = 10', value] : [value];
      assert.throws(
        () => endpointWith(...lines),
        (e: unknown) => e instanceof ConfigError && e.line === line && /rtp_timeout/.test(e.message),
        value,
      );
    }
  });
});

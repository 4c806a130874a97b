/** The options of the limits against hostile input and overload, as operators write them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../util/logger.js';
import { readAriConfig } from './ari-config.js';
import { DEFAULT_HTTP_LIMITS, readHttpConfig } from './http-config.js';
import { parseIni } from './ini.js';
import { readSipConfig } from './pjsip-config.js';
import { defaultSipGlobal } from './pjsip-global.js';

describe('limit options', () => {
  it('reads http.conf connection limits, keeping defaults for the others', () => {
    const http = readHttpConfig(
      parseIni('[general]\nsessionlimit = 10\nsessionlimit_per_address = 2\nheader_timeout = 500\n', 'http.conf'),
      silentLogger,
    );
    assert.deepEqual(http.limits, { ...DEFAULT_HTTP_LIMITS, maxConnections: 10, maxConnectionsPerAddress: 2, headersTimeoutMs: 500 });
    assert.throws(() => readHttpConfig(parseIni('[general]\nsessionlimit = 0\n', 'http.conf'), silentLogger), /from 1/);
  });

  it('reads pjsip.conf global overload and auth limits and transport connection limits', () => {
    const sip = readSipConfig(
      parseIni(
        '[global]\ntype = global\noverload_max_loop_lag = 0\noverload_max_calls_in_setup = 50\noverload_retry_after = 9\nauth_max_failures = 3\nauth_block_time = 30\n\n' +
          '[tcp]\ntype = transport\nprotocol = tcp\nbind = 127.0.0.1:5060\nmax_connections_per_address = 4\nidle_timeout = 120\nunauthenticated_idle_timeout = 5\nmessage_timeout = 2\n',
        'pjsip.conf',
      ),
      '/conf',
      silentLogger,
    );
    assert.deepEqual(sip.global, {
      ...defaultSipGlobal(),
      overloadMaxLoopLagMs: 0,
      overloadMaxCallsInSetup: 50,
      overloadRetryAfterS: 9,
      authLimits: { maxFailures: 3, blockMs: 30_000 },
    });
    const tcp = sip.transports[0];
    assert.equal(tcp.maxConnectionsPerAddress, 4);
    assert.equal(tcp.idleTimeoutMs, 120_000);
    assert.equal(tcp.unauthenticatedIdleTimeoutMs, 5_000);
    assert.equal(tcp.messageTimeoutMs, 2_000);
  });

  it('reads a UDP transport native_socket, absent unless written, and refuses a value that is not a boolean', () => {
    const read = (lines: string) =>
      readSipConfig(
        parseIni(`[udp]\ntype = transport\nprotocol = udp\nbind = 127.0.0.1:5060\n${lines}`, 'pjsip.conf'),
        '/conf',
        silentLogger,
      ).transports[0];
    assert.equal(read('').nativeSocket, undefined);
    assert.equal(read('native_socket = no\n').nativeSocket, false);
    assert.equal(read('native_socket = yes\n').nativeSocket, true);
    assert.throws(() => read('native_socket = sometimes\n'), /native_socket/);
  });

  it('reads the API login limits from ari.conf [general]', () => {
    const ari = readAriConfig(
      parseIni('[general]\nauth_max_failures = 5\nauth_failure_window = 10\nauth_max_global_failures = 50\n', 'ari.conf'),
      silentLogger,
    );
    assert.deepEqual(ari.loginLimits, { maxFailures: 5, windowMs: 10_000, maxGlobalFailures: 50 });
  });
});

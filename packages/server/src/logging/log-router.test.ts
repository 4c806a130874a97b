import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LogLevelName } from '@switchboard/core';
import { LogRouter, plainLine } from './log-router.js';

function router(pretty = false) {
  const out: string[] = [];
  const channels: [LogLevelName, string][] = [];
  const remote: string[] = [];
  const r = new LogRouter({ pretty, out: (text) => out.push(text) });
  r.channels = { write: (level, line) => channels.push([level, line]) };
  r.remote = (text) => remote.push(text);
  return { r, out, channels, remote };
}

const record = (fields: Record<string, unknown>) => `${JSON.stringify({ time: 0, pid: 7, ...fields })}\n`;

describe('LogRouter', () => {
  it('shows on the console only the levels of logger.conf, and gives every line to the channels', () => {
    const { r, out, channels } = router();
    r.consoleLevels = new Set<LogLevelName>(['warning', 'error']);
    r.write(record({ level: 30, msg: 'started' }));
    r.write(record({ level: 40, msg: 'careful' }));
    r.write(record({ level: 20, msg: 'details' }));
    assert.deepEqual(
      out.map((l) => JSON.parse(l).msg),
      ['careful'],
    );
    assert.deepEqual(
      channels.map(([level]) => level),
      ['notice', 'warning', 'debug'],
    );
  });

  it('routes verbose records by their own level and sends them to remote consoles in the original form', () => {
    const { r, out, remote } = router();
    r.consoleLevels = new Set<LogLevelName>(['verbose']);
    r.write(record({ level: 30, verbose: 3, msg: 'Executing [200@from-internal:1] Answer("SIP/a-1") in new stack' }));
    assert.equal(out.length, 1);
    assert.deepEqual(remote, ['    -- Executing [200@from-internal:1] Answer("SIP/a-1") in new stack']);
  });

  it('adds the fail2ban line of a security event to the security channels', () => {
    const { r, channels } = router();
    r.write(
      record({
        level: 40,
        securityEvent: 'auth_failed',
        address: '192.0.2.1',
        port: 5060,
        method: 'REGISTER',
        username: 'bob',
        msg: 'authentication failed',
      }),
    );
    const security = channels.filter(([level]) => level === 'security');
    assert.equal(security.length, 1);
    assert.match(
      security[0]?.[1] ?? '',
      /SECURITY\[\d+\] res_pjsip: Request 'REGISTER' from '<sip:bob@192\.0\.2\.1>' failed for '192\.0\.2\.1:5060'/,
    );
    assert.ok(channels.some(([level]) => level === 'warning'));
  });

  it('prints readable coloured lines through pino-pretty when asked', () => {
    const { r, out } = router(true);
    r.write(record({ level: 30, msg: 'control API listening', module: 'switchboard:api' }));
    assert.equal(out.length, 1);
    assert.ok(!(out[0] ?? '').startsWith('{'), 'not JSON');
    assert.match(out[0] ?? '', /INFO.*control API listening/);
  });

  it('formats plain lines for remote consoles', () => {
    assert.match(
      plainLine({ time: Date.now(), pid: 9, module: 'switchboard:api', msg: 'hello' }, 'notice'),
      /^\[[\d-]+ [\d:]+\] NOTICE\[9\] switchboard:api: hello$/,
    );
  });
});

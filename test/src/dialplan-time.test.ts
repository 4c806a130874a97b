/**
 * GotoIfTime() and a timed `include =>` against the real process, on a clock the test pins down:
 * the conditions are written for the UTC weekday, day and month of the moment of the call (and for
 * the next weekday, which must not match), with the timezone argument the original takes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** The dialplan for `now` (UTC): today's weekday/day/month match, tomorrow's weekday does not. */
function dialplan(now: Date): string {
  const today = WEEKDAYS[now.getUTCDay()];
  const tomorrow = WEEKDAYS[(now.getUTCDay() + 1) % 7];
  const day = now.getUTCDate();
  const month = MONTHS[now.getUTCMonth()];
  return `
include => open-today,*,${today},${day},${month},UTC
include => open-tomorrow,*,${tomorrow},*,*,UTC

exten => 360,1,Answer()
 same => n,GotoIfTime(*,${today},${day},${month},UTC?today)
 same => n,Log(NOTICE,time: today did not match)
 same => n,Hangup()
 same => n(today),GotoIfTime(00:00-23:59,${tomorrow},*,*,UTC?wrong:right)
 same => n(wrong),Log(NOTICE,time: tomorrow matched)
 same => n,Hangup()
 same => n(right),Log(NOTICE,time: today and not tomorrow)
 same => n,Hangup()

[open-today]
exten => 361,1,Answer()
 same => n,Log(NOTICE,time: included today)
 same => n,Hangup()

[open-tomorrow]
exten => 361,1,Answer()
 same => n,Log(NOTICE,time: included tomorrow)
 same => n,Hangup()
`;
}

describe('dialplan: time conditions', () => {
  let sb: RunningSwitchboard;

  before(async () => {
    // Not across midnight UTC: the conditions are for the day the calls are made.
    const untilMidnight = 86_400_000 - (Date.now() % 86_400_000);
    if (untilMidnight < 30_000) await new Promise((resolve) => setTimeout(resolve, untilMidnight + 1000));
    sb = await startSwitchboard({ dialplan: dialplan(new Date()) });
  });
  after(async () => {
    await sb.stop();
  });

  it('GotoIfTime branches on the weekday, day and month in the given timezone', { timeout: 20_000 }, async () => {
    const call = await runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '360', keys: { rtpport: 4420 } });
    assert.equal(call.code, 0, call.stdout.slice(-2000));
    const said = sb.logs.filter((l) => String(l.msg).startsWith('time: ')).map((l) => l.msg);
    assert.deepEqual(said, ['time: today and not tomorrow']);
  });

  it('a timed include is searched only while its condition holds', { timeout: 20_000 }, async () => {
    const call = await runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '361', keys: { rtpport: 4422 } });
    assert.equal(call.code, 0, call.stdout.slice(-2000));
    assert.ok(sb.logs.some((l) => l.msg === 'time: included today'));
    assert.ok(!sb.logs.some((l) => l.msg === 'time: included tomorrow'));
  });
});

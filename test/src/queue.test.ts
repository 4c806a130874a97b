/**
 * A call queue against the real process and sipp phones: two registered agent phones are static
 * members of a `leastrecent` queue with `ringinuse = no`; four callers arrive together. Two are
 * answered at once (one per agent), two wait until an agent is free again; each agent takes two
 * calls, no agent is rung while on a call, and the queue log (SQLite-backed file) shows it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, type RunningSwitchboard, runSipp, startSwitchboard, switchboardCli } from './harness.js';
import { digestPhone, udpTransport } from './pjsip-phones.js';

const QUEUES_CONF = `
[support]
strategy = leastrecent
ringinuse = no
timeout = 8
retry = 1
member => SIP/agent1
member => SIP/agent2
`;

describe('Queue', () => {
  let sb: RunningSwitchboard;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });
  const credentials = (user: string, password: string) => ['-au', user, '-ap', password];

  before(async () => {
    sb = await startSwitchboard({
      extraFiles: { 'queues.conf': QUEUES_CONF },
      dialplan: `
exten => 900,1,Queue(support,,,,60)
 same => n,Hangup()
`,
    });
    writeFileSync(
      join(sb.confDir, 'pjsip.conf'),
      [
        udpTransport(sb.sipPort),
        digestPhone('agent1', 'a1-pass'),
        digestPhone('agent2', 'a2-pass'),
        digestPhone('carl', 'caller-pass'),
      ].join('\n'),
    );
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  it('leastrecent with ringinuse=no spreads four callers over two agents, two calls each', { timeout: 120_000 }, async () => {
    const agents = [
      { name: 'agent1', password: 'a1-pass', port: await freePort('udp'), rtp: 4710 },
      { name: 'agent2', password: 'a2-pass', port: await freePort('udp'), rtp: 4712 },
    ];
    for (const agent of agents) {
      const registered = await runSipp('register-auth.xml', target(), {
        service: agent.name,
        keys: { expires: 300 },
        extra: [...credentials(agent.name, agent.password), '-p', String(agent.port)],
      });
      assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    }
    // Each agent answers, talks four seconds and hangs up, twice.
    const answering = agents.map((agent) =>
      runSipp('uas-answer-talk-bye.xml', target(), {
        service: agent.name,
        keys: { rtpport: agent.rtp },
        calls: 2,
        timeoutSeconds: 60,
        extra: ['-p', String(agent.port)],
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const callers = [0, 1, 2, 3].map((i) =>
      runSipp('uac-auth-wait-bye.xml', target(), {
        service: '900',
        keys: { rtpport: 4720 + 2 * i, user: 'carl' },
        extra: credentials('carl', 'caller-pass'),
        timeoutSeconds: 60,
      }),
    );
    const results = await Promise.all([...callers, ...answering]);
    for (const result of results) assert.equal(result.code, 0, result.stdout.slice(-1500));

    const logFile = join(sb.dataDir, 'log', 'queue_log');
    assert.ok(existsSync(logFile), 'queue_log written');
    const lines = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split('|'));
    const events = (name: string) => lines.filter((l) => l[4] === name);
    assert.equal(events('ENTERQUEUE').length, 4, 'four callers entered');
    const connects = events('CONNECT');
    assert.equal(connects.length, 4, `four calls answered:\n${lines.map((l) => l.join('|')).join('\n')}`);
    assert.deepEqual(
      connects.map((l) => l[3]).sort(),
      ['SIP/agent1', 'SIP/agent1', 'SIP/agent2', 'SIP/agent2'],
      'each agent took two calls',
    );
    assert.equal(events('COMPLETEAGENT').length, 4, 'the agents ended the calls');
    assert.equal(events('RINGNOANSWER').length, 0, 'no agent was rung while on a call');
    // The two callers who waited were answered only after the first calls had ended (hold time ≥ 3 s).
    const holds = connects.map((l) => Number(l[5])).sort((x, y) => x - y);
    assert.ok(holds[0] <= 2 && holds[1] <= 2, `the first two were answered at once: ${holds}`);
    assert.ok(holds[2] >= 3 && holds[3] >= 3, `the last two waited for a free agent: ${holds}`);

    // The operator's view: `queue show` on the console.
    const shown = (await switchboardCli(sb, ['-rx', 'queue show support'])).stdout;
    assert.match(shown, /^support has 0 calls \(max unlimited\) in 'leastrecent' strategy/m, shown);
    assert.match(shown, /agent1.* has taken 2 calls/, shown);
    assert.match(shown, /agent2.* has taken 2 calls/, shown);
    assert.match(shown, /No Callers/, shown);
    // Averages of the four completed calls: each agent call lasted seconds, so the talk time is not 0.
    const [, talk] = /\((\d+)s holdtime, (\d+)s talktime\), C:4, A:0/.exec(shown)?.slice(1) ?? [];
    assert.ok(Number(talk) >= 1, `talk time in: ${shown}`);
  });
});

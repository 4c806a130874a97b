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
import { toneShare, ulawPayloadsToLinear } from './audio-analysis.js';
import { basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard, switchboardCli } from './harness.js';
import { digestPhone, udpTransport } from './pjsip-phones.js';
import { RtpPeer } from './rtp-peer.js';

const QUEUES_CONF = `
[support]
strategy = leastrecent
ringinuse = no
timeout = 8
retry = 1
member => SIP/agent1
member => SIP/agent2

[ringing]
strategy = linear
timeout = 2
retry = 1
member => SIP/agent3

[desk]
timeout = 10
member => SIP/agent3
`;

describe('Queue', () => {
  let sb: RunningSwitchboard;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });
  const credentials = (user: string, password: string) => ['-au', user, '-ap', password];
  const globalVariable = async (name: string) =>
    (
      (await (await fetch(`${sb.baseUrl}/ari/system/variable?variable=${name}`, { headers: { authorization: basicAuth() } })).json()) as {
        value: string;
      }
    ).value;
  /** agent3 registers once, on one port, for the tests that use it. */
  let agent3Port: number | undefined;
  const agent3 = async (): Promise<number> => {
    if (agent3Port !== undefined) return agent3Port;
    const port = await freePort('udp');
    const registered = await runSipp('register-auth.xml', target(), {
      service: 'agent3',
      keys: { expires: 300 },
      extra: [...credentials('agent3', 'a3-pass'), '-p', String(port)],
    });
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    agent3Port = port;
    return port;
  };

  before(async () => {
    sb = await startSwitchboard({
      extraFiles: { 'queues.conf': QUEUES_CONF },
      dialplan: `
exten => 900,1,Queue(support,,,,60)
 same => n,Hangup()
exten => 901,1,Queue(ringing,nr,,,30)
 same => n,Set(GLOBAL(Q_STATUS)=\${QUEUESTATUS})
 same => n,Hangup()
exten => 902,1,Queue(desk,H)
 same => n,Hangup()
exten => 903,1,Queue(desk,c)
 same => n,Set(GLOBAL(Q_AFTER)=continued)
 same => n,Hangup()
`,
    });
    writeFileSync(
      join(sb.confDir, 'pjsip.conf'),
      [
        udpTransport(sb.sipPort),
        digestPhone('agent1', 'a1-pass'),
        digestPhone('agent2', 'a2-pass'),
        digestPhone('agent3', 'a3-pass'),
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

  it('r plays ringing instead of music and n leaves with TIMEOUT once every member was tried', { timeout: 60_000 }, async () => {
    const port = await agent3();
    const unanswered = runSipp('uas-ring-cancel.xml', target(), { service: 'agent3', timeoutSeconds: 30, extra: ['-p', String(port)] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const phone = await RtpPeer.open();
    const started = Date.now();
    try {
      const call = await runSipp('uac-auth-wait-bye.xml', target(), {
        service: '901',
        keys: { rtpport: phone.port, user: 'carl' },
        extra: credentials('carl', 'caller-pass'),
        timeoutSeconds: 30,
      });
      assert.equal(call.code, 0, call.stdout.slice(-1500));
    } finally {
      phone.close();
    }
    const rang = await unanswered;
    assert.equal(rang.code, 0, `agent3 rang once and was cancelled\n${rang.stdout.slice(-1500)}`);
    assert.ok(Date.now() - started < 15_000, 'the caller left after one round, not at the 30 s timeout');
    // What the caller heard: the ring tone (440 + 480 Hz), not music.
    const heard = ulawPayloadsToLinear(phone.packets.filter((p) => p.payloadType === 0).map((p) => p.payload));
    assert.ok(toneShare(heard, 8000, 440) > 0.2 && toneShare(heard, 8000, 480) > 0.2, 'the caller heard ringing');
    assert.equal(await globalVariable('Q_STATUS'), 'TIMEOUT');
    const lines = readFileSync(join(sb.dataDir, 'log', 'queue_log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split('|'))
      .filter((l) => l[2] === 'ringing');
    assert.deepEqual(
      lines.map((l) => `${l[3]} ${l[4]}`).filter((l) => !l.endsWith('QUEUESTART')),
      ['NONE ENTERQUEUE', 'SIP/agent3 RINGNOANSWER', 'NONE EXITWITHTIMEOUT'],
    );
  });

  it('H lets the caller hang up with *; c continues in the dialplan when the member hangs up', { timeout: 60_000 }, async () => {
    const port = await agent3();
    const connectsIn = (queue: string) =>
      readFileSync(join(sb.dataDir, 'log', 'queue_log'), 'utf8')
        .split('\n')
        .filter((l) => l.includes(`|${queue}|`) && l.includes('|CONNECT|')).length;
    // H: the member answers and waits; the caller presses * and the call ends for both.
    const member = runSipp('uas-answer-wait-bye.xml', target(), {
      service: 'agent3',
      keys: { rtpport: 4740 },
      timeoutSeconds: 30,
      extra: ['-p', String(port)],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const phone = await RtpPeer.open();
    try {
      const call = runSipp('uac-auth-wait-bye.xml', target(), {
        service: '902',
        keys: { rtpport: phone.port, user: 'carl' },
        extra: credentials('carl', 'caller-pass'),
        timeoutSeconds: 30,
      });
      const until = Date.now() + 15_000;
      while (connectsIn('desk') < 1 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(connectsIn('desk'), 1, 'the member answered');
      await new Promise((resolve) => setTimeout(resolve, 500));
      await phone.sendDtmf('*');
      const [caller, agent] = await Promise.all([call, member]);
      assert.equal(caller.code, 0, caller.stdout.slice(-1500));
      assert.equal(agent.code, 0, `the member got the BYE\n${agent.stdout.slice(-1500)}`);
    } finally {
      phone.close();
    }
    // c: the member talks and hangs up; the caller goes on in the dialplan.
    const talking = runSipp('uas-answer-talk-bye.xml', target(), {
      service: 'agent3',
      keys: { rtpport: 4742 },
      timeoutSeconds: 30,
      extra: ['-p', String(port)],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const continued = await runSipp('uac-auth-wait-bye.xml', target(), {
      service: '903',
      keys: { rtpport: 4744, user: 'carl' },
      extra: credentials('carl', 'caller-pass'),
      timeoutSeconds: 30,
    });
    assert.equal(continued.code, 0, continued.stdout.slice(-1500));
    assert.equal((await talking).code, 0);
    assert.equal(await globalVariable('Q_AFTER'), 'continued');
  });
});

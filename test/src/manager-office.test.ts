/**
 * The manager's queue and ConfBridge families end to end with sipp phones: a caller waits in a
 * queue whose member is a sipp UAS, and the npm `asterisk-manager` client sees the call's agent
 * events in the original's order with the member's channel as the Dest… block, and a member who
 * lets it ring gives AgentRingNoAnswer; two callers in a
 * ConfBridge are listed, muted, recorded and kicked over a raw manager connection.
 */
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Manager, { type AmiMessage as NpmAmiMessage, type AsteriskManager } from 'asterisk-manager';
import { type AmiMessage, RawAmi } from './ami-raw.js';
import { freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const DIALPLAN = `
exten => 900,1,Queue(support,,,,20)
 same => n,Hangup()
exten => 901,1,Queue(sales,,,,4)
 same => n,Hangup()
exten => 800,1,ConfBridge(office,,quiet_user)
 same => n,Hangup()
`;

const QUEUES_CONF = `
[support]
strategy = ringall
timeout = 10
retry = 1
member => PJSIP/agent,0,Agent Smith

[sales]
strategy = ringall
timeout = 2
retry = 10
member => PJSIP/agent,0,Agent Smith
`;

const CONFBRIDGE_CONF = `
[quiet_user]
type = user
quiet = yes
announce_only_user = no
`;

async function waitUntil<T>(find: () => T | undefined, what: string, timeoutMs = 15000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function npmAction(ami: AsteriskManager, action: Record<string, string | number>): Promise<NpmAmiMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reply to ${action.action}`)), 15000);
    ami.action(action, (err, res) => {
      clearTimeout(timer);
      if (err) reject(new Error(JSON.stringify(err)));
      else resolve(res);
    });
  });
}

describe('manager: queue and ConfBridge families with sipp phones', () => {
  let sb: RunningSwitchboard;
  let port: number;
  /** The UDP port of the sipp UAS that is the queue member `PJSIP/agent` (its static contact). */
  let agentPort: number;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });

  before(async () => {
    port = await freePort('tcp');
    agentPort = await freePort('udp');
    sb = await startSwitchboard({
      dialplan: DIALPLAN,
      extraFiles: {
        'manager.conf': `[general]\nenabled = yes\nport = ${port}\nbindaddr = 127.0.0.1\n\n[admin]\nsecret = admin-secret\nread = all\nwrite = all\n`,
        'queues.conf': QUEUES_CONF,
        'confbridge.conf': CONFBRIDGE_CONF,
      },
      endpointLines: [
        '',
        '[agent]',
        'type = endpoint',
        'context = from-internal',
        'disallow = all',
        'allow = ulaw',
        'aors = agent',
        '',
        '[agent]',
        'type = aor',
        `contact = sip:agent@127.0.0.1:${agentPort}`,
      ],
    });
  });

  after(async () => {
    await sb.stop();
  });

  it(
    'a queue call: QueueCallerJoin, AgentCalled with the member as Dest…, QueueCallerLeave, AgentConnect, AgentComplete',
    { timeout: 60_000 },
    async () => {
      const ami = Manager(port, '127.0.0.1', 'admin', 'admin-secret', true);
      const events: NpmAmiMessage[] = [];
      ami.on('managerevent', (event: NpmAmiMessage) => events.push(event));
      try {
        await npmAction(ami, { action: 'Ping' });
        const status = await npmAction(ami, { action: 'QueueStatus', queue: 'support' });
        assert.equal(status.response, 'Success');
        const member = await waitUntil(
          () => events.find((e) => e.event === 'QueueMember' && e.actionid === status.actionid),
          'QueueMember',
        );
        assert.deepEqual(
          [member.queue, member.name, member.location, member.membership],
          ['support', 'Agent Smith', 'PJSIP/agent', 'static'],
        );

        // The member answers, talks four seconds and hangs up; the caller then leaves the queue's dialplan.
        const agent = runSipp('uas-answer-talk-bye.xml', target(), {
          service: 'agent',
          keys: { rtpport: await freePort('udp') },
          timeoutSeconds: 30,
          extra: ['-p', String(agentPort)],
        });
        await sleep(300);
        const caller = runSipp('uac-wait-bye.xml', target(), {
          service: '900',
          keys: { rtpport: await freePort('udp') },
          timeoutSeconds: 30,
        });
        const [agentResult, callerResult] = await Promise.all([agent, caller]);
        assert.equal(agentResult.code, 0, agentResult.stdout.slice(-1500));
        assert.equal(callerResult.code, 0, callerResult.stdout.slice(-1500));

        const complete = await waitUntil(() => events.find((e) => e.event === 'AgentComplete'), 'AgentComplete');
        const callerId = complete.uniqueid;
        const mine = events.filter((e) => e.uniqueid === callerId && typeof e.event === 'string');
        const names = mine.map((e) => String(e.event));
        const order = ['QueueCallerJoin', 'DialBegin', 'AgentCalled', 'QueueCallerLeave', 'AgentConnect', 'AgentComplete'];
        let at = -1;
        for (const name of order) {
          const index = names.indexOf(name, at + 1);
          assert.ok(index > at, `${name} after position ${at} in ${names.join(',')}`);
          at = index;
        }
        const called = mine.find((e) => e.event === 'AgentCalled');
        const connect = mine.find((e) => e.event === 'AgentConnect');
        const dialBegin = mine.find((e) => e.event === 'DialBegin');
        assert.deepEqual([called?.queue, called?.membername, called?.interface], ['support', 'Agent Smith', 'PJSIP/agent']);
        // Channels of the SIP driver are named SIP/<endpoint>-<id> whichever technology name dialled them.
        assert.match(String(called?.destchannel), /^SIP\/agent-/);
        assert.equal(called?.destuniqueid, dialBegin?.destuniqueid, 'AgentCalled names the channel Dial() made for the member');
        assert.equal(called?.destlinkedid, callerId, 'the member channel belongs to the caller’s call');
        for (const name of ['destchannelstate', 'destchannelstatedesc', 'destcalleridnum', 'destcontext', 'destexten', 'destpriority']) {
          assert.ok(called?.[name] !== undefined, `AgentCalled has ${name}`);
        }
        assert.equal(connect?.destuniqueid, called?.destuniqueid);
        assert.equal(connect?.destchannelstatedesc, 'Up');
        assert.ok(Number(connect?.ringtime) >= 0 && Number(connect?.holdtime) >= 0);
        assert.equal(complete.destuniqueid, called?.destuniqueid);
        assert.equal(complete.destlinkedid, callerId, 'the member who hung up first is still linked to the call');
        assert.equal(complete.reason, 'agent');
        assert.ok(Number(complete.talktime) >= 3, `talk time ${complete.talktime}`);

        // The call's detail record (core's CDR engine) names the member's channel as its destination.
        const cdr = await waitUntil(() => events.find((e) => e.event === 'Cdr' && e.uniqueid === callerId), 'the Cdr');
        assert.deepEqual([cdr.destination, cdr.disposition, cdr.destinationchannel], ['900', 'ANSWERED', called?.destchannel]);

        const after = await npmAction(ami, { action: 'QueueStatus', queue: 'support' });
        const params = await waitUntil(() => events.find((e) => e.event === 'QueueParams' && e.actionid === after.actionid), 'QueueParams');
        assert.deepEqual([params.calls, params.completed], ['0', '1']);
        const taken = await waitUntil(() => events.find((e) => e.event === 'QueueMember' && e.actionid === after.actionid), 'QueueMember');
        assert.equal(taken.callstaken, '1');
      } finally {
        ami.disconnect();
      }
    },
  );

  it(
    'a member who does not answer: AgentCalled, then AgentRingNoAnswer with the member as Dest…, and no AgentConnect',
    { timeout: 60_000 },
    async () => {
      const admin = await RawAmi.connect(port);
      try {
        await admin.login('admin', 'admin-secret');
        // The member rings until Dial() gives up after the queue's timeout (2 s) and cancels it.
        const agent = runSipp('uas-ring-cancel.xml', target(), { service: 'agent', timeoutSeconds: 30, extra: ['-p', String(agentPort)] });
        await sleep(300);
        const caller = runSipp('uac-wait-bye.xml', target(), {
          service: '901',
          keys: { rtpport: await freePort('udp') },
          timeoutSeconds: 30,
        });
        const [agentResult, callerResult] = await Promise.all([agent, caller]);
        assert.equal(agentResult.code, 0, agentResult.stdout.slice(-1500));
        assert.equal(callerResult.code, 0, callerResult.stdout.slice(-1500));
        const noAnswer = await admin.waitFor((m) => m.get('Event') === 'AgentRingNoAnswer', 5000, 'AgentRingNoAnswer');
        const called = admin.received.find((m) => m.get('Event') === 'AgentCalled');
        assert.deepEqual(
          [noAnswer.get('Queue'), noAnswer.get('MemberName'), noAnswer.get('Interface')],
          ['sales', 'Agent Smith', 'PJSIP/agent'],
        );
        assert.match(noAnswer.get('DestChannel') ?? '', /^SIP\/agent-/);
        assert.equal(noAnswer.get('DestUniqueid'), called?.get('DestUniqueid'));
        assert.equal(noAnswer.get('Uniqueid'), called?.get('Uniqueid'));
        assert.ok(Number(noAnswer.get('RingTime')) >= 1, `RingTime ${noAnswer.get('RingTime')}`);
        const mine = admin.received.filter((m) => m.get('Uniqueid') === called?.get('Uniqueid')).map((m) => m.get('Event'));
        assert.ok(mine.indexOf('AgentCalled') < mine.indexOf('AgentRingNoAnswer'), mine.join(','));
        assert.ok(!mine.includes('AgentConnect'), mine.join(','));
        assert.ok(mine.includes('QueueCallerLeave'), mine.join(','));
      } finally {
        admin.close();
      }
    },
  );

  it(
    'two callers in a ConfBridge: ConfbridgeList, ConfbridgeMute, ConfbridgeStartRecord/StopRecord and ConfbridgeKick',
    { timeout: 60_000 },
    async () => {
      const admin = await RawAmi.connect(port);
      try {
        await admin.login('admin', 'admin-secret');
        const callers = [0, 1].map(async () =>
          runSipp('uac-wait-bye.xml', target(), { service: '800', keys: { rtpport: await freePort('udp') }, timeoutSeconds: 30 }),
        );
        const joined = () => admin.received.filter((m) => m.get('Event') === 'ConfbridgeJoin');
        await waitUntil(() => (joined().length === 2 ? true : undefined), 'two ConfbridgeJoin events');
        const channels = joined().map((m) => m.get('Channel') ?? '');

        const list = async (): Promise<AmiMessage[]> => {
          const reply = await admin.action([
            ['Action', 'ConfbridgeList'],
            ['Conference', 'office'],
          ]);
          assert.equal(reply.get('Response'), 'Success', reply.get('Message'));
          const id = reply.get('ActionID');
          const done = await admin.waitFor((m) => m.get('ActionID') === id && m.get('Event') === 'ConfbridgeListComplete', 5000);
          const items = admin.received.filter((m) => m.get('ActionID') === id && m.get('Event') === 'ConfbridgeList');
          assert.equal(done.get('ListItems'), String(items.length));
          return items;
        };
        const listed = await list();
        assert.deepEqual(listed.map((m) => m.get('Channel')).sort(), [...channels].sort());

        const [first = '', second = ''] = channels;
        const muted = await admin.action([
          ['Action', 'ConfbridgeMute'],
          ['Conference', 'office'],
          ['Channel', first],
        ]);
        assert.equal(muted.get('Message'), 'User muted');
        const muteEvent = await admin.waitFor((m) => m.get('Event') === 'ConfbridgeMute', 5000, 'ConfbridgeMute');
        assert.deepEqual([muteEvent.get('Channel'), muteEvent.get('Admin'), muteEvent.get('Conference')], [first, 'No', 'office']);
        const afterMute = await list();
        assert.equal(afterMute.find((m) => m.get('Channel') === first)?.get('Muted'), 'Yes');
        assert.equal(afterMute.find((m) => m.get('Channel') === second)?.get('Muted'), 'No');

        const recording = await admin.action([
          ['Action', 'ConfbridgeStartRecord'],
          ['Conference', 'office'],
          ['RecordFile', 'ami-conference.wav'],
        ]);
        assert.equal(recording.get('Message'), 'Conference Recording Started.');
        const recordEvent = await admin.waitFor((m) => m.get('Event') === 'ConfbridgeRecord', 5000, 'ConfbridgeRecord');
        assert.equal(recordEvent.get('BridgeUniqueid'), joined()[0]?.get('BridgeUniqueid'));
        await sleep(1000);
        const stopped = await admin.action([
          ['Action', 'ConfbridgeStopRecord'],
          ['Conference', 'office'],
        ]);
        assert.equal(stopped.get('Message'), 'Conference Recording Stopped.');
        await admin.waitFor((m) => m.get('Event') === 'ConfbridgeStopRecord', 5000, 'ConfbridgeStopRecord');
        const recordings = join(sb.confDir, 'recordings');
        const file = await waitUntil(() => {
          const name = readdirSync(recordings).find((f) => /^ami-conference-\d+\.wav$/.test(f));
          // A WAV header is 44 bytes; a second of the conference's mix is far more.
          return name !== undefined && statSync(join(recordings, name)).size > 1000 ? name : undefined;
        }, 'the conference recording');
        assert.ok(file);

        const kicked = await admin.action([
          ['Action', 'ConfbridgeKick'],
          ['Conference', 'office'],
          ['Channel', first],
        ]);
        assert.equal(kicked.get('Message'), 'User kicked');
        await admin.waitFor((m) => m.get('Event') === 'ConfbridgeLeave' && m.get('Channel') === first, 10000, 'ConfbridgeLeave');
        assert.deepEqual(
          (await list()).map((m) => m.get('Channel')),
          [second],
        );
        const kickAll = await admin.action([
          ['Action', 'ConfbridgeKick'],
          ['Conference', 'office'],
          ['Channel', 'all'],
        ]);
        assert.equal(kickAll.get('Message'), 'User kicked');
        await admin.waitFor((m) => m.get('Event') === 'ConfbridgeEnd' && m.get('Conference') === 'office', 10000, 'ConfbridgeEnd');
        for (const result of await Promise.all(callers)) assert.equal(result.code, 0, result.stdout.slice(-1500));
      } finally {
        admin.close();
      }
    },
  );
});

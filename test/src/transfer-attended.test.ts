/**
 * Attended transfer (RFC 5589 §7) against the real process and three sipp phones with digest
 * authentication: alice calls bob (300 → Dial(SIP/bob)); bob calls carol (301 → Dial(SIP/carol))
 * and sends REFER on his first call with a Replaces naming his second (RFC 3891). Alice and carol
 * end up connected: bob's dialogs get the NOTIFYs and BYEs, alice is hung up only when carol hangs
 * up, and an application subscribed to everything sees BridgeAttendedTransfer.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { digestPhone, udpTransport } from './pjsip-phones.js';

const DIALPLAN = `
exten => 300,1,Dial(SIP/bob,20)
 same => n,Hangup()
exten => 301,1,Dial(SIP/carol,20)
 same => n,Hangup()
`;

function pjsipConf(sipPort: number): string {
  return [udpTransport(sipPort), digestPhone('alice', 'wonderland'), digestPhone('bob', 'builder'), digestPhone('carol', 'singer')].join(
    '\n',
  );
}

interface Event {
  type: string;
  [field: string]: unknown;
}

interface ChannelJson {
  id: string;
  name: string;
}

interface BridgeJson {
  id: string;
  bridge_class: string;
  channels: string[];
}

/** The bridges GET /bridges lists once none is left (bounded wait), or the last answer. */
async function bridgesWhenEmpty(sb: RunningSwitchboard): Promise<BridgeJson[]> {
  let bridges: BridgeJson[] = [];
  for (let i = 0; i < 40; i++) {
    bridges = (await (await fetch(`${sb.baseUrl}/ari/bridges`, { headers: { authorization: basicAuth() } })).json()) as BridgeJson[];
    if (bridges.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return bridges;
}

async function openEvents(sb: RunningSwitchboard, app: string): Promise<{ next(type: string): Promise<Event>; close(): void }> {
  const socket = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=${app}&subscribeAll=true&api_key=${API_USER}:${API_PASSWORD}`);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const events: Event[] = [];
  socket.on('message', (data: Buffer) => events.push(JSON.parse(data.toString()) as Event));
  return {
    next: async (type) => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const found = events.find((e) => e.type === type);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no ${type} event; got ${events.map((e) => e.type).join(', ')}`);
    },
    close: () => socket.close(),
  };
}

const credentials = (user: string, password: string) => ['-au', user, '-ap', password];

describe('attended transfer (REFER with Replaces)', () => {
  let sb: RunningSwitchboard;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN });
    writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsipConf(sb.sipPort));
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  async function register(user: string, password: string): Promise<number> {
    const port = await freePort('udp');
    const registered = await runSipp('register-auth.xml', target(), {
      service: user,
      keys: { expires: 300 },
      extra: [...credentials(user, password), '-p', String(port)],
    });
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    return port;
  }

  it(
    'joins the transferee and the target, ends both of the transferer’s dialogs, publishes BridgeAttendedTransfer',
    { timeout: 60_000 },
    async () => {
      const events = await openEvents(sb, 'watcher');
      try {
        const bobPort = await register('bob', 'builder');
        const carolPort = await register('carol', 'singer');
        const carol = runSipp('uas-answer-talk-bye.xml', target(), {
          service: 'carol',
          keys: { rtpport: 4032 },
          extra: ['-p', String(carolPort)],
        });
        const bob = runSipp('uas-attended-transfer.xml', target(), {
          service: '301',
          keys: { user: 'bob', rtpport: 4034, rtpport2: 4036 },
          extra: [...credentials('bob', 'builder'), '-p', String(bobPort)],
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        let carolDone = 0;
        void carol.then(() => {
          carolDone = Date.now();
        });
        // Alice waits for a BYE: it must come only after carol, to whom she now talks, hangs up.
        const alice = await runSipp('uac-auth-wait-bye.xml', target(), {
          service: '300',
          keys: { user: 'alice', rtpport: 4038 },
          extra: credentials('alice', 'wonderland'),
        });
        const aliceDone = Date.now();
        const transferer = await bob;
        const callee = await carol;
        assert.equal(transferer.code, 0, transferer.stdout.slice(-4000));
        assert.equal(callee.code, 0, callee.stdout.slice(-3000));
        assert.equal(alice.code, 0, alice.stdout.slice(-3000));
        assert.ok(carolDone > 0 && aliceDone >= carolDone - 200, 'alice is hung up when carol hangs up, not before');

        const transfer = await events.next('BridgeAttendedTransfer');
        const first = transfer.transferer_first_leg as ChannelJson;
        const second = transfer.transferer_second_leg as ChannelJson;
        const transferee = transfer.transferee as ChannelJson;
        const transferTarget = transfer.transfer_target as ChannelJson;
        assert.match(first.name, /^SIP\/bob-/);
        assert.match(second.name, /^SIP\/bob-/);
        assert.notEqual(first.id, second.id);
        assert.match(transferee.name, /^SIP\/alice-/);
        assert.match(transferTarget.name, /^SIP\/carol-/);
        assert.equal(transfer.result, 'Success');
        assert.equal(transfer.is_external, true);
        assert.equal(transfer.destination_type, 'bridge');
        // The leg bridges are the two Dial() bridges; the transferee's absorbs the target's (BridgeMerged).
        const firstBridge = transfer.transferer_first_leg_bridge as BridgeJson;
        const secondBridge = transfer.transferer_second_leg_bridge as BridgeJson;
        assert.deepEqual([...firstBridge.channels].sort(), [first.id, transferee.id].sort());
        assert.deepEqual([...secondBridge.channels].sort(), [second.id, transferTarget.id].sort());
        assert.equal(firstBridge.bridge_class, 'basic');
        assert.equal(transfer.destination_bridge, firstBridge.id);
        const merged = await events.next('BridgeMerged');
        assert.equal((merged.bridge as BridgeJson).id, firstBridge.id);
        assert.equal((merged.bridge_from as BridgeJson).id, secondBridge.id);
        assert.deepEqual([...(merged.bridge as BridgeJson).channels].sort(), [transferee.id, transferTarget.id].sort());
        assert.deepEqual(await bridgesWhenEmpty(sb), [], 'every Dial() bridge is gone after the calls');
        assert.ok(sb.logs.some((l) => l.msg === 'attended transfer' && l.ok === true));
      } finally {
        events.close();
      }
    },
  );

  it('INVITE with Replaces: a new dialog takes the place of a Dial()-bridged one; the old one gets BYE', { timeout: 60_000 }, async () => {
    const bobPort = await register('bob', 'builder');
    const bob = runSipp('uas-replace-call.xml', target(), {
      service: 'bob',
      keys: { user: 'bob', rtpport: 4044, rtpport2: 4046 },
      extra: [...credentials('bob', 'builder'), '-p', String(bobPort)],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    let bobDone = 0;
    void bob.then(() => {
      bobDone = Date.now();
    });
    // Alice stays connected through the replacement and is hung up when the new dialog ends.
    const alice = await runSipp('uac-auth-wait-bye.xml', target(), {
      service: '300',
      keys: { user: 'alice', rtpport: 4048 },
      extra: credentials('alice', 'wonderland'),
    });
    const aliceDone = Date.now();
    const replacer = await bob;
    assert.equal(replacer.code, 0, replacer.stdout.slice(-4000));
    assert.equal(alice.code, 0, alice.stdout.slice(-3000));
    assert.ok(bobDone > 0 && aliceDone >= bobDone - 500, 'alice is hung up when the new dialog ends');
    assert.ok(sb.logs.some((l) => l.msg === 'call replaced by INVITE with Replaces'));
    assert.deepEqual(await bridgesWhenEmpty(sb), [], 'the bridge the new dialog took over is gone after the call');
  });
});

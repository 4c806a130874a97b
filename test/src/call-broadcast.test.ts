/**
 * Broadcast and claim (reference events.md `claimChannel`, CallBroadcast/CallClaimed): a real call
 * runs AppBroadcast in the dialplan; two applications race to claim it, one wins (204, AppStart with
 * the broadcast's args) and the other is refused with 409; both hear CallClaimed. Unclaimed, the
 * dialplan goes on with STASISSTATUS=TIMEOUT.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, basicAuth, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';

type Event = { type: string; [field: string]: unknown };

async function openApplication(sb: RunningSwitchboard, app: string, subscribeAll = false): Promise<{ events: Event[]; close(): void }> {
  const socket = new WebSocket(
    `ws://127.0.0.1:${sb.httpPort}/ari/events?app=${app}&subscribeAll=${subscribeAll}&api_key=${API_USER}:${API_PASSWORD}`,
  );
  const events: Event[] = [];
  socket.on('message', (data: Buffer) => events.push(JSON.parse(data.toString()) as Event));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { events, close: () => socket.close() };
}

const waitFor = async (what: string, check: () => boolean, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const DIALPLAN = `
exten => 500,1,AppBroadcast(5000,^claim-,sales:vip,yes)
 same => n,Hangup()
exten => 501,1,StasisBroadcast(300,^nobody-here$)
 same => n,Set(STATUS_SEEN=\${STASISSTATUS})
 same => n,Answer()
 same => n,Playback(hello-world)
 same => n,Hangup()
`;

describe('call broadcast and claim', () => {
  let sb: RunningSwitchboard;
  const api = (method: string, path: string) => fetch(`${sb.baseUrl}/ari${path}`, { method, headers: { authorization: basicAuth() } });

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN });
  });
  after(async () => {
    await sb.stop();
  });

  it('two applications claim one broadcast call: one wins, the other gets 409', { timeout: 60_000 }, async () => {
    const first = await openApplication(sb, 'claim-a');
    const second = await openApplication(sb, 'claim-b');
    const bystander = await openApplication(sb, 'other');
    try {
      const call = runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '500', keys: { rtpport: 4200 } });
      await waitFor('CallBroadcast to both', () => [first, second].every((a) => a.events.some((e) => e.type === 'CallBroadcast')));
      const offer = first.events.find((e) => e.type === 'CallBroadcast') as Event & { channel: { id: string }; called: string };
      assert.equal(offer.called, '500');
      const claims = await Promise.all(
        ['claim-a', 'claim-b'].map((app) => api('POST', `/events/claim?channelId=${offer.channel.id}&application=${app}`)),
      );
      const statuses = claims.map((r) => r.status).sort();
      assert.deepEqual(statuses, [204, 409]);
      const winner = claims[0]?.status === 204 ? first : second;
      const winnerName = winner === first ? 'claim-a' : 'claim-b';
      await waitFor('AppStart in the winner', () => winner.events.some((e) => e.type === 'AppStart'));
      const start = winner.events.find((e) => e.type === 'AppStart') as Event & { args: string[] };
      assert.deepEqual(start.args, ['sales', 'vip']);
      for (const app of [first, second]) {
        await waitFor('CallClaimed', () => app.events.some((e) => e.type === 'CallClaimed'));
        assert.equal((app.events.find((e) => e.type === 'CallClaimed') as Event & { winner_app: string }).winner_app, winnerName);
      }
      assert.ok(!bystander.events.some((e) => e.type === 'CallBroadcast'), 'the filter leaves other applications out');
      // A late claim is refused while the winner holds the call.
      assert.equal((await api('POST', `/events/claim?channelId=${offer.channel.id}&application=claim-b`)).status, 409);
      assert.equal((await api('POST', `/channels/${offer.channel.id}/answer`)).status, 204);
      assert.equal((await api('DELETE', `/channels/${offer.channel.id}`)).status, 204);
      const ended = await call;
      assert.equal(ended.code, 0, ended.stdout.slice(-2000));
      assert.equal((await api('POST', `/events/claim?channelId=${offer.channel.id}&application=claim-a`)).status, 404);
      assert.equal((await api('POST', '/events/claim?application=claim-a')).status, 400);
    } finally {
      first.close();
      second.close();
      bystander.close();
    }
  });

  it('an unclaimed broadcast times out and the dialplan goes on', { timeout: 60_000 }, async () => {
    const listener = await openApplication(sb, 'claim-c', true);
    try {
      const call = await runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '501', keys: { rtpport: 4202 } });
      assert.equal(call.code, 0, call.stdout.slice(-2000));
      assert.ok(!listener.events.some((e) => e.type === 'CallBroadcast'));
      await waitFor('STASISSTATUS', () => listener.events.some((e) => e.type === 'ChannelVarset' && e.variable === 'STATUS_SEEN'));
      const seen = listener.events.find((e) => e.type === 'ChannelVarset' && e.variable === 'STATUS_SEEN') as Event & { value: string };
      assert.equal(seen.value, 'TIMEOUT');
    } finally {
      listener.close();
    }
  });
});

/**
 * ConfBridge against the real process and three sipp phones with their own RTP: each caller
 * enters the PIN by RFC 4733 after conf-getpin, the conference is a mixing bridge that
 * GET /ari/bridges lists (class confbridge, named after the conference), each caller hears the
 * other two and not themselves, CONFBRIDGE_INFO counts the parties and the marked user, and when
 * the marked user leaves the end_marked users are put out (CONFBRIDGE_RESULT=ENDMARKED) and the
 * conference ends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rmsOf, toneShare, ulawPayloadsToLinear } from './audio-analysis.js';
import { basicAuth, type RunningSwitchboard, runSipp, startSwitchboard, switchboardCli } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

const PIN = '4321';
const TONES = [500, 900, 1300];

const CONFBRIDGE_CONF = `
[office_bridge]
type = bridge
max_members = 5

[leader]
type = user
pin = ${PIN}
marked = yes
announce_only_user = no

[member]
type = user
pin = ${PIN}
end_marked = yes
announce_only_user = no
`;

const waitFor = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

interface BridgeJson {
  id: string;
  name: string;
  bridge_class: string;
  channels: string[];
}

describe('ConfBridge', () => {
  let sb: RunningSwitchboard;
  const api = (method: string, path: string) => fetch(`${sb.baseUrl}/ari${path}`, { method, headers: { authorization: basicAuth() } });
  const global = async (name: string) =>
    ((await (await api('GET', `/system/variable?variable=${name}`)).json()) as { value: string }).value;

  before(async () => {
    sb = await startSwitchboard({
      extraFiles: { 'confbridge.conf': CONFBRIDGE_CONF },
      dialplan: `
exten => 700,1,ConfBridge(office,office_bridge,leader)
 same => n,Hangup()
exten => 701,1,ConfBridge(office,office_bridge,member)
 same => n,Set(GLOBAL(MEMBER_RESULT)=\${CONFBRIDGE_RESULT})
 same => n,Hangup()
exten => 702,1,Answer()
 same => n,Set(GLOBAL(PARTIES)=\${CONFBRIDGE_INFO(parties,office)})
 same => n,Set(GLOBAL(MARKED)=\${CONFBRIDGE_INFO(marked,office)})
 same => n,Hangup()
`,
    });
  });
  after(async () => {
    await sb.stop();
  });

  it('three callers with a PIN hear each other and not themselves; the marked user leaving ends it', { timeout: 90_000 }, async (t) => {
    const phones = [await RtpPeer.open(), await RtpPeer.open(), await RtpPeer.open()];
    const target = { host: '127.0.0.1', port: sb.sipPort };
    const calls = phones.map((phone, i) =>
      runSipp('uac-wait-bye.xml', target, { service: i === 0 ? '700' : '701', keys: { rtpport: phone.port }, timeoutSeconds: 60 }),
    );
    try {
      for (const phone of phones) await waitFor('conf-getpin at each phone', () => phone.packets.length > 10);
      for (const phone of phones) for (const digit of `${PIN}#`) await phone.sendDtmf(digit);
      let conference: BridgeJson | undefined;
      await waitFor(
        'the conference bridge with three callers',
        async () => {
          const bridges = (await (await api('GET', '/bridges')).json()) as BridgeJson[];
          conference = bridges.find((b) => b.name === 'office');
          return conference?.channels.length === 3;
        },
        20_000,
      );
      assert.equal(conference?.bridge_class, 'confbridge');
      // The operator's view: `confbridge list` on the console, then the participants of one.
      const listed = (await switchboardCli(sb, ['-rx', 'confbridge list'])).stdout;
      assert.match(listed, /^office\s+3\s+1\s+No\s+No$/m, listed);
      const participants = (await switchboardCli(sb, ['-rx', 'confbridge list office'])).stdout.trim().split('\n');
      assert.equal(participants.length, 4, participants.join('\n'));

      const info = await runSipp('uac-wait-bye.xml', target, { service: '702', keys: { rtpport: 4990 } });
      assert.equal(info.code, 0, info.stdout.slice(-1500));
      assert.equal(await global('PARTIES'), '3');
      assert.equal(await global('MARKED'), '1');

      // Each caller in turn speaks its own tone; the other two hear it, the speaker does not.
      for (const [speaker, frequency] of TONES.entries()) {
        const since = performance.now();
        await phones[speaker].sendTone(frequency, 1200);
        await new Promise((resolve) => setTimeout(resolve, 150));
        for (const [listener, phone] of phones.entries()) {
          const heard = ulawPayloadsToLinear(phone.packets.filter((p) => p.at >= since + 200 && p.payloadType === 0).map((p) => p.payload));
          const level = rmsOf(heard);
          const share = toneShare(heard, 8000, frequency);
          t.diagnostic(`caller ${speaker} (${frequency} Hz) at caller ${listener}: rms ${level.toFixed(0)}, share ${share.toFixed(2)}`);
          if (listener === speaker) assert.ok(level < 300 || share < 0.2, `caller ${speaker} hears itself (rms ${level}, share ${share})`);
          else assert.ok(level > 1000 && share > 0.5, `caller ${listener} does not hear caller ${speaker} (rms ${level}, share ${share})`);
        }
      }

      // The leader leaves: the members are put out and their dialplan goes on (Set, Hangup).
      const channels = (await (await api('GET', '/channels')).json()) as { id: string; dialplan: { exten: string } }[];
      const leader = channels.find((c) => c.dialplan.exten === '700');
      assert.ok(leader, 'the leader channel');
      await api('DELETE', `/channels/${leader.id}`);
      const results = await Promise.all(calls);
      for (const result of results) assert.equal(result.code, 0, result.stdout.slice(-1500));
      assert.equal(await global('MEMBER_RESULT'), 'ENDMARKED');
      await waitFor('the conference bridge to go', async () => {
        const bridges = (await (await api('GET', '/bridges')).json()) as BridgeJson[];
        return !bridges.some((b) => b.name === 'office');
      });
    } finally {
      for (const phone of phones) phone.close();
    }
  });
});

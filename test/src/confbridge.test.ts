/**
 * ConfBridge against the real process and three sipp phones with their own RTP: each caller
 * enters the PIN by RFC 4733 after conf-getpin, the conference is a mixing bridge that
 * GET /ari/bridges lists (class confbridge, named after the conference), each caller hears the
 * other two and not themselves, CONFBRIDGE_INFO counts the parties and the marked user, and when
 * the marked user leaves the end_marked users are put out (CONFBRIDGE_RESULT=ENDMARKED) and the
 * conference ends. With announce_join_leave each caller records a name (a tone here) that the
 * others hear when it joins and leaves, and the recording is deleted once said.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dominantBlocks, rmsOf, toneShare, ulawPayloadsToLinear } from './audio-analysis.js';
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

[namer]
type = user
announce_join_leave = yes
announce_user_count = yes
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
exten => 710,1,ConfBridge(names,,namer)
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

  it('says the name each caller recorded when they join and leave, and counts the others', { timeout: 60_000 }, async (t) => {
    const BEEP_HZ = 1000;
    const NAME_HZ = [700, 1100];
    const target = { host: '127.0.0.1', port: sb.sipPort };
    const phones = [await RtpPeer.open(), await RtpPeer.open()];
    /** 200 ms blocks dominated by `hz` in what the phone received since `since`. */
    const heardSince = (phone: RtpPeer, since: number, hz: number) =>
      dominantBlocks(ulawPayloadsToLinear(phone.packets.filter((p) => p.at >= since && p.payloadType === 0).map((p) => p.payload)), 8000, [
        hz,
      ]).get(hz) ?? 0;
    const names = async () =>
      ((await (await api('GET', '/recordings/stored')).json()) as { name: string }[])
        .map((r) => r.name)
        .filter((n) => n.startsWith('confbridge/names/names/'));
    /** After vm-rec-name and the beep, the caller "says" its name as a tone and ends it with #. */
    const sayName = async (phone: RtpPeer, hz: number) => {
      await waitFor(
        'the beep before the name',
        () => {
          const last = phone.packets.slice(-5);
          return last.length === 5 && toneShare(ulawPayloadsToLinear(last.map((p) => p.payload)), 8000, BEEP_HZ) > 0.5;
        },
        15_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 400));
      await phone.sendTone(hz, 1000);
      await phone.sendDtmf('#');
    };
    const calls = [runSipp('uac-wait-bye-long.xml', target, { service: '710', keys: { rtpport: phones[0].port }, timeoutSeconds: 60 })];
    try {
      await sayName(phones[0], NAME_HZ[0]);
      await waitFor('the first name stored', async () => (await names()).length === 1);
      calls.push(runSipp('uac-wait-bye-long.xml', target, { service: '710', keys: { rtpport: phones[1].port }, timeoutSeconds: 60 }));
      await sayName(phones[1], NAME_HZ[1]);
      const joined = performance.now();
      await waitFor('the second caller’s name said to the first', () => heardSince(phones[0], joined, NAME_HZ[1]) >= 3, 15_000);
      t.diagnostic('the first caller heard the second caller’s recorded name');
      assert.equal((await names()).length, 2);
      // The second caller heard "there is one other participant" (speech, not a tone) before the names.
      assert.ok(phones[1].packets.filter((p) => p.at >= joined).length > 25, 'the joining caller heard the count');

      const channels = (await (await api('GET', '/channels')).json()) as {
        id: string;
        dialplan: { exten: string };
        creationtime: string;
      }[];
      const second = channels.filter((c) => c.dialplan.exten === '710').sort((a, b) => a.creationtime.localeCompare(b.creationtime))[1];
      assert.ok(second, 'the second caller’s channel');
      const left = performance.now();
      await api('DELETE', `/channels/${second.id}`);
      await waitFor('the second caller’s name said again as it leaves', () => heardSince(phones[0], left, NAME_HZ[1]) >= 3, 15_000);
      const secondName = `confbridge/names/names/${second.id}`;
      await waitFor('the departed caller’s name deleted once said', async () => !(await names()).includes(secondName), 15_000);
      const first = channels.filter((c) => c.dialplan.exten === '710').find((c) => c.id !== second.id);
      assert.ok(first);
      await api('DELETE', `/channels/${first.id}`);
      for (const result of await Promise.all(calls)) assert.equal(result.code, 0, result.stdout.slice(-1500));
      await waitFor('every name deleted', async () => (await names()).length === 0);
    } finally {
      for (const phone of phones) phone.close();
    }
  });
});

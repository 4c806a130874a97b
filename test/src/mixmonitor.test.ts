/**
 * MixMonitor of a bridged call against the real process, two sipp phones and their RTP: the caller
 * dials 500, which starts MixMonitor(mixmon/call.wav,b r(mixmon/call-in.wav) i(MIXID)) and Dial()s
 * bob. The caller speaks a 700 Hz tone, bob answers with 1300 Hz; the mixed file holds both, the
 * r() file only the caller's, both are stored recordings in the API, and MIXMONITOR_FILENAME
 * names the mixed file.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dominantBlocks, wavSamplesOf } from './audio-analysis.js';
import { basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

const CALLER_HZ = 700;
const CALLEE_HZ = 1300;

const waitFor = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('MixMonitor', () => {
  let sb: RunningSwitchboard;
  let calleePort: number;
  const api = (method: string, path: string) => fetch(`${sb.baseUrl}/ari${path}`, { method, headers: { authorization: basicAuth() } });

  before(async () => {
    calleePort = await freePort('udp');
    sb = await startSwitchboard({
      dialplan: `
exten => 500,1,Answer()
 same => n,Playback(beep)
 same => n,MixMonitor(mixmon/call.wav,br(mixmon/call-in.wav)i(MIXID))
 same => n,Set(GLOBAL(MIXFILE)=\${MIXMONITOR_FILENAME})
 same => n,Set(GLOBAL(MIXID)=\${MIXID})
 same => n,Dial(SIP/local-phone/sip:bob@127.0.0.1:${calleePort},20)
 same => n,Hangup()
`,
    });
  });
  after(async () => {
    await sb.stop();
  });

  it('records both parties of the bridged call, and one leg alone with r()', { timeout: 60_000 }, async () => {
    const alice = await RtpPeer.open();
    const bob = await RtpPeer.open();
    const target = { host: '127.0.0.1', port: sb.sipPort };
    const callee = runSipp('uas-answer-wait-bye.xml', target, {
      service: 'bob',
      keys: { rtpport: bob.port },
      timeoutSeconds: 40,
      extra: ['-p', String(calleePort)],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const caller = runSipp('uac-wait-bye.xml', target, { service: '500', keys: { rtpport: alice.port }, timeoutSeconds: 40 });
    try {
      // The beep tells alice where the server's leg is; the bridge appears once bob answers.
      await waitFor('the beep at alice', () => alice.packets.length > 5);
      await waitFor(
        'the Dial bridge with both parties',
        async () => {
          const bridges = (await (await api('GET', '/bridges')).json()) as { channels: string[] }[];
          return bridges.some((b) => b.channels.length === 2);
        },
        15_000,
      );
      await alice.sendTone(CALLER_HZ, 1500);
      // Alice's tone through the bridge told bob where to send.
      assert.ok(bob.remote !== undefined, 'bob received the caller through the bridge');
      await bob.sendTone(CALLEE_HZ, 1500);

      const mixFile = (await (await api('GET', '/system/variable?variable=MIXFILE')).json()) as { value: string };
      assert.equal(mixFile.value, join(sb.confDir, 'recordings', 'mixmon', 'call.wav'));
      const mixId = (await (await api('GET', '/system/variable?variable=MIXID')).json()) as { value: string };
      assert.match(mixId.value, /^mixmon-/);

      const channels = (await (await api('GET', '/channels')).json()) as { id: string }[];
      for (const channel of channels) await api('DELETE', `/channels/${channel.id}`);
      const results = await Promise.all([caller, callee]);
      for (const result of results) assert.equal(result.code, 0, result.stdout.slice(-1500));

      await waitFor(
        'both stored recordings',
        async () => {
          const stored = (await (await api('GET', '/recordings/stored')).json()) as { name: string }[];
          const names = stored.map((s) => s.name);
          return names.includes('mixmon/call') && names.includes('mixmon/call-in');
        },
        10_000,
      );
      const fetchWav = async (name: string) => {
        const response = await api('GET', `/recordings/stored/${encodeURIComponent(name)}/file`);
        assert.equal(response.status, 200);
        return wavSamplesOf(Buffer.from(await response.arrayBuffer()));
      };

      const mixed = await fetchWav('mixmon/call');
      const mixedTones = dominantBlocks(mixed.samples, mixed.rate, [CALLER_HZ, CALLEE_HZ]);
      assert.ok((mixedTones.get(CALLER_HZ) ?? 0) >= 4, `the caller's tone in the mixed file: ${[...mixedTones]}`);
      assert.ok((mixedTones.get(CALLEE_HZ) ?? 0) >= 4, `the callee's tone in the mixed file: ${[...mixedTones]}`);

      const received = await fetchWav('mixmon/call-in');
      const receivedTones = dominantBlocks(received.samples, received.rate, [CALLER_HZ, CALLEE_HZ]);
      assert.ok((receivedTones.get(CALLER_HZ) ?? 0) >= 4, `the caller's tone in the r() file: ${[...receivedTones]}`);
      assert.equal(receivedTones.get(CALLEE_HZ), 0, `the callee's tone is not in the r() file: ${[...receivedTones]}`);
    } finally {
      alice.close();
      bob.close();
    }
  });
});

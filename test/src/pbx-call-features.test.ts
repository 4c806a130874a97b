/**
 * Call features of the PBX against the real process, sipp and real UDP RTP: early media through
 * Dial() (the callee's 183 with SDP reaches the caller as a 183 and its audio before the answer).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';
import { RtpReceiver, rms } from './rtp-receiver.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (bounded) for a file sipp writes, and returns its trimmed content. */
async function waitForFile(path: string, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8').trim();
      if (text !== '') return text;
    }
    await sleep(50);
  }
  throw new Error(`${path} was not written in time`);
}

describe('PBX: call features', () => {
  let sb: RunningSwitchboard;
  let calleePort: number;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });

  before(async () => {
    calleePort = await freePort('udp');
    sb = await startSwitchboard({
      dialplan: `
exten => 400,1,Dial(SIP/local-phone/sip:bob@127.0.0.1:${calleePort},20)
 same => n,Hangup()
`,
    });
  });
  after(async () => {
    await sb.stop();
  });

  it("Dial() passes a callee's early media (183 with SDP) to the caller before the answer", { timeout: 40_000 }, async () => {
    const calleeMedia = await RtpPeer.open();
    const callerMedia = await RtpReceiver.open();
    const portFile = join(tmpdir(), `switchboard-early-${process.pid}-${Date.now()}.port`);
    try {
      const callee = runSipp('uas-early-media.xml', target(), {
        service: 'bob',
        keys: { rtpport: calleeMedia.port, portfile: portFile },
        extra: ['-p', String(calleePort)],
      });
      await sleep(300);
      const caller = runSipp('uac-early-media.xml', target(), { service: '400', keys: { rtpport: callerMedia.port } });
      // The callee's leg is where Switchboard's INVITE offer points; the callee talks from its socket.
      const legPort = Number(await waitForFile(portFile, 10_000));
      assert.ok(legPort > 0);
      calleeMedia.remote = { address: '127.0.0.1', port: legPort };
      await calleeMedia.sendTone(1000, 1200);
      const heardEarly = rms(callerMedia.packets.map((p) => p.payload));
      // The callee answers 3 s after its 183: the caller channel is not up yet.
      const res = await fetch(`${sb.baseUrl}/ari/channels`, { headers: { authorization: basicAuth() } });
      const channels = (await res.json()) as Array<{ name: string; state: string; dialplan: { exten: string } }>;
      assert.equal(channels.length, 2, 'the caller and the callee');
      assert.ok(
        channels.every((c) => c.state !== 'Up'),
        `no channel is up during early media: ${JSON.stringify(channels.map((c) => [c.name, c.state]))}`,
      );
      assert.ok(heardEarly > 1000, `the caller hears the callee's tone before the answer (rms ${heardEarly.toFixed(0)})`);
      const [calleeResult, callerResult] = await Promise.all([callee, caller]);
      assert.equal(calleeResult.code, 0, calleeResult.stdout.slice(-2000));
      assert.equal(callerResult.code, 0, callerResult.stdout.slice(-2000));
    } finally {
      calleeMedia.close();
      callerMedia.close();
      rmSync(portFile, { force: true });
    }
  });
});

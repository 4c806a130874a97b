/**
 * pjsip.conf `rtp_timeout` against the real process and sipp: a phone that answers and then sends
 * no RTP (it vanished) is hung up by the server with cause 44; one that keeps sending stays up past
 * the timeout and is hung up by the dialplan as usual; one that holds the call and stays quiet is
 * left up (`rtp_timeout_hold` is 0).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { basicAuth, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';
import { RtpReceiver } from './rtp-receiver.js';

const RTP_TIMEOUT_SECONDS = 2;

/** 300 and 302 would stay up for half a minute; 301 hangs up by itself about 5 s after the answer. */
const DIALPLAN = `
exten => 300,1,Answer()
 same => n,Playback(hello-world)
 same => n,Wait(30)
 same => n,Hangup()
exten => 302,1,Answer()
 same => n,Wait(30)
 same => n,Hangup()
exten => 301,1,Answer()
 same => n,Playback(hello-world)
 same => n,Wait(4)
 same => n,Hangup()
`;

interface ChannelSnapshot {
  name: string;
  dialplan: { exten: string };
}

describe('rtp_timeout on a SIP endpoint', () => {
  let sb: RunningSwitchboard;
  before(async () => {
    sb = await startSwitchboard({ endpointLines: [`rtp_timeout = ${RTP_TIMEOUT_SECONDS}`], dialplan: DIALPLAN });
  });
  after(async () => {
    await sb.stop();
  });

  const channels = async (): Promise<ChannelSnapshot[]> =>
    (await (await fetch(`${sb.baseUrl}/ari/channels`, { headers: { authorization: basicAuth() } })).json()) as ChannelSnapshot[];

  it('hangs up a call whose phone sends no RTP (BYE, cause 44); a talking or holding phone stays up', { timeout: 30_000 }, async () => {
    const quietPhone = await RtpReceiver.open();
    const talkingPhone = await RtpPeer.open();
    const holdingPhone = await RtpReceiver.open();
    try {
      const target = { host: '127.0.0.1', port: sb.sipPort };
      const quietStart = performance.now();
      const quiet = runSipp('uac-quiet-wait-bye-44.xml', target, {
        service: '300',
        keys: { rtpport: quietPhone.port },
        timeoutSeconds: 15,
      }).then((result) => ({ ...result, ms: performance.now() - quietStart }));
      const talkingStart = performance.now();
      const talking = runSipp('uac-wait-bye.xml', target, {
        service: '301',
        keys: { rtpport: talkingPhone.port },
        timeoutSeconds: 15,
      }).then((result) => ({ ...result, ms: performance.now() - talkingStart }));
      // Holds after 1 s and stays quiet on hold for 4 s: past rtp_timeout, but held calls are not timed.
      const holding = runSipp('uac-hold-quiet-bye.xml', target, {
        service: '302',
        keys: { rtpport: holdingPhone.port },
        timeoutSeconds: 15,
      });
      // The talking phone answers the server's audio with its own from the first packet on.
      const deadline = Date.now() + 5000;
      while (talkingPhone.remote === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const speaking = talkingPhone.sendTone(440, 7000);

      const quietResult = await quiet;
      assert.equal(quietResult.code, 0, `the quiet phone got the BYE with cause 44\n${quietResult.stdout.slice(-2000)}`);
      // Answer at once, then the timeout, then at most one more once-a-second check, plus sipp's own start.
      assert.ok(quietResult.ms >= RTP_TIMEOUT_SECONDS * 1000, `hung up after ${quietResult.ms.toFixed(0)} ms`);
      assert.ok(quietResult.ms < (RTP_TIMEOUT_SECONDS + 4) * 1000, `hung up after ${quietResult.ms.toFixed(0)} ms`);
      const warning = sb.logs.find((line) => line.msg === 'disconnecting channel for lack of RTP activity');
      assert.ok(warning !== undefined, 'the hangup is logged');
      assert.match(String(warning.channel), /^SIP\/local-phone-/);
      assert.ok(Number(warning.seconds) >= RTP_TIMEOUT_SECONDS, `logged ${String(warning.seconds)} seconds`);
      // Its channel is gone at once; the talking phone's call is still up past the timeout.
      const left = await channels();
      assert.deepEqual(
        left.filter((channel) => channel.dialplan.exten === '300'),
        [],
        'the quiet call left no channel',
      );
      assert.equal(left.filter((channel) => channel.dialplan.exten === '301').length, 1, 'the talking call is up');

      const talkingResult = await talking;
      await speaking;
      assert.equal(talkingResult.code, 0, talkingResult.stdout.slice(-2000));
      // Playback and Wait(4): hung up by the dialplan, well after the timeout would have struck.
      assert.ok(talkingResult.ms > 4500, `the talking call lasted ${talkingResult.ms.toFixed(0)} ms`);
      const holdingResult = await holding;
      assert.equal(holdingResult.code, 0, `the held call ended with the phone's own BYE\n${holdingResult.stdout.slice(-2000)}`);
      assert.deepEqual(await channels(), []);
    } finally {
      quietPhone.close();
      talkingPhone.close();
      holdingPhone.close();
    }
  });
});

/**
 * VOLUME() end to end: the same tone played to two calls, one after `Set(VOLUME(TX)=-4)`, is
 * measured on the μ-law RTP each phone receives; the quieter one has a quarter of the amplitude,
 * as the original's rule says (a negative adjustment divides).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ulawToLinear } from '@switchboard/media';
import { toneAmplitude } from './g722-peer.js';
import { type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

const DIALPLAN = `
exten => 350,1,Answer()
 same => n,Playtones(1000)
 same => n,Wait(1.5)
 same => n,Hangup()
exten => 351,1,Set(VOLUME(TX)=-4)
 same => n,Log(NOTICE,volume tx \${VOLUME(TX)})
 same => n,Goto(350,1)
`;

describe('VOLUME() in the dialplan', () => {
  let sb: RunningSwitchboard;

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN });
  });
  after(async () => {
    await sb.stop();
  });

  /** The amplitude of the 1 kHz tone a phone calling `exten` hears (the middle of the call). */
  async function heard(exten: string): Promise<number> {
    const phone = await RtpPeer.open();
    try {
      const call = await runSipp(
        'uac-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        { service: exten, keys: { rtpport: phone.port }, timeoutSeconds: 15 },
      );
      assert.equal(call.code, 0, call.stdout.slice(-2000));
      const audio = phone.packets.filter((p) => p.payloadType === 0);
      assert.ok(audio.length >= 50, `a second of audio (${audio.length} packets)`);
      const samples = Int16Array.from(Buffer.concat(audio.slice(10, 60).map((p) => p.payload)), (code) => ulawToLinear(code));
      return toneAmplitude(samples, 1000, 8000);
    } finally {
      phone.close();
    }
  }

  it('VOLUME(TX)=-4 plays what the channel sends at a quarter of the amplitude', { timeout: 40_000 }, async () => {
    const full = await heard('350');
    const quiet = await heard('351');
    assert.ok(sb.logs.some((l) => l.msg === 'volume tx -4'));
    const ratio = quiet / full;
    assert.ok(full > 1000, `the tone is heard (${full.toFixed(0)})`);
    assert.ok(ratio > 0.18 && ratio < 0.32, `a quarter of the amplitude (${ratio.toFixed(2)})`);
  });
});

/**
 * An independent SIP client against the real process: baresip (Debian package `baresip-core`) registers
 * as alice with digest auth, dials 600 → Dial(SIP/bob), and bob (a sipp UAS registered with digest,
 * whose media is an RtpPeer on the port of its SDP answer) answers. Audio must flow both ways through
 * the bridge: bob's peer counts baresip's packets and measures their loudness (baresip sends a tone
 * from a WAV through its `aufile` source), and baresip's `sndfile` module writes what it decoded
 * from the server to a WAV file that is read back and must hold bob's tone.
 *
 * baresip runs headless: no audio device modules are loaded, the source is a file, the received
 * audio is only decoded (sndfile taps the decoder), and commands arrive on stdin (`stdio` + `menu`).
 * Debian 12's baresip (libre 1.1) fails any request whose 401 names SHA-256 at all ("Function not
 * implemented"), so this test also guards the default MD5-only challenge (`supported_algorithms_uas`).
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { rmsOf, toneShare, toneWav, waitFor, wavSamples } from './audio-analysis.js';
import { freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { baresipListenPort } from './baresip-phone.js';
import { RtpPeer } from './rtp-peer.js';
import { digestPhone, NAT_PHONE, udpTransport } from './pjsip-phones.js';

const DIALPLAN = `
exten => 600,1,Dial(SIP/bob,20)
 same => n,Hangup()
`;

/** What baresip sends (it loops the file) and what bob sends back: two tones told apart by frequency. */
const BARESIP_TONE_HZ = 440;
const BOB_TONE_HZ = 1000;
const SAMPLE_RATE = 8000;

function pjsipConf(sipPort: number): string {
  return [udpTransport(sipPort), digestPhone('alice', 'wonderland', NAT_PHONE), digestPhone('bob', 'builder', NAT_PHONE)].join('\n');
}

describe('baresip: an independent SIP client registers, calls through Dial() and talks both ways', () => {
  let sb: RunningSwitchboard;
  let dir: string;

  before(async () => {
    // ensure-tools installs baresip when it can; a missing binary fails here naming the package.
    const found = spawnSync('sh', ['-c', 'command -v baresip'], { stdio: 'ignore' }).status === 0;
    assert.ok(found, 'baresip is not installed: apt-get install baresip-core');
    dir = mkdtempSync(join(tmpdir(), 'switchboard-baresip-'));
    sb = await startSwitchboard({ dialplan: DIALPLAN });
    writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsipConf(sb.sipPort));
    await sb.restart();
  });
  after(async () => {
    await sb?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('baresip registers with digest, dials 600 → bob, and RTP flows both ways', { timeout: 60_000 }, async (t) => {
    const target = { host: '127.0.0.1', port: sb.sipPort };

    // Bob: registered from the port his UAS then listens on; his media is the RtpPeer.
    const bobPort = await freePort('udp');
    const registered = await runSipp('register-auth.xml', target, {
      service: 'bob',
      keys: { expires: 300 },
      extra: ['-au', 'bob', '-ap', 'builder', '-p', String(bobPort)],
    });
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    const bobMedia = await RtpPeer.open();
    const callee = runSipp('uas-answer-wait-bye.xml', target, {
      service: 'bob',
      keys: { rtpport: bobMedia.port },
      timeoutSeconds: 40,
      extra: ['-p', String(bobPort)],
    });

    // baresip: config with no audio device, a tone file as source, the decoder dumped to snd_path.
    const sipListen = await baresipListenPort();
    const rtpBase = 2 * Math.floor((await freePort('udp')) / 2);
    const dumps = join(dir, 'dumps');
    const tone = join(dir, 'tone.wav');
    writeFileSync(tone, toneWav(BARESIP_TONE_HZ, 10, SAMPLE_RATE));
    mkdirSync(dumps);
    writeFileSync(
      join(dir, 'config'),
      [
        'poll_method epoll',
        // Without this baresip picks the first external interface and cannot send from it to loopback.
        'net_interface 127.0.0.1',
        `sip_listen 127.0.0.1:${sipListen}`,
        'call_local_timeout 120',
        'audio_path /usr/share/baresip',
        `audio_source aufile,${tone}`,
        'audio_alert none,none',
        'ausrc_srate 8000',
        'ausrc_channels 1',
        `rtp_ports ${rtpBase}-${rtpBase + 20}`,
        'module_path /usr/lib/baresip/modules',
        'module stdio.so',
        'module g711.so',
        'module aufile.so',
        'module sndfile.so',
        'module_app account.so',
        'module_app menu.so',
        `snd_path ${dumps}`,
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'accounts'), `<sip:alice@127.0.0.1:${sb.sipPort}>;auth_pass=wonderland;regint=60;audio_codecs=PCMU,PCMA\n`);
    writeFileSync(join(dir, 'contacts'), '');

    let output = '';
    // -t bounds baresip's life whatever happens to the test.
    const baresip: ChildProcessWithoutNullStreams = spawn('baresip', ['-4', '-s', '-f', dir, '-t', '40'], { cwd: dir });
    baresip.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    baresip.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => baresip.once('exit', (code) => resolve(code)));
    try {
      await waitFor("baresip's registration", () => sb.logs.some((l) => l.msg === 'contact added' && l.aor === 'alice'), 10_000).catch(
        (error: Error) => {
          throw new Error(`${error.message}\n${output.slice(-3000)}`);
        },
      );

      baresip.stdin.write(`/dial sip:600@127.0.0.1:${sb.sipPort}\n`);
      // The bridge forwards baresip's tone to bob: the peer learns the server's address from it.
      await waitFor('RTP from baresip at bob', () => bobMedia.packets.length >= 50, 15_000).catch((error: Error) => {
        throw new Error(`${error.message} (bob has ${bobMedia.packets.length} packets)\n${output.slice(-3000)}`);
      });
      const sinceAnswer = bobMedia.packets[0].at;
      await bobMedia.sendTone(BOB_TONE_HZ, 2000);

      baresip.stdin.write('/hangup\n');
      const answered = await callee;
      assert.equal(answered.code, 0, `bob's UAS did not get the BYE:\n${answered.stdout.slice(-2000)}`);
      baresip.stdin.write('/quit\n');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);

      // baresip → bob: packets and their loudness (the 440 Hz tone at about -12 dBFS is far from silence).
      assert.ok(bobMedia.packets.length >= 100, `bob received ${bobMedia.packets.length} packets from baresip`);
      assert.ok(
        bobMedia.loudnessSince(sinceAnswer) > 1000,
        `baresip's audio at bob is silence (rms ${bobMedia.loudnessSince(sinceAnswer)})`,
      );

      // bob → baresip: what baresip decoded holds bob's 1000 Hz tone.
      const decoded = readdirSync(dumps).filter((name) => name.endsWith('-dec.wav'));
      assert.equal(decoded.length, 1, `one decoder dump expected in ${dumps}: ${readdirSync(dumps).join(', ')}\n${output.slice(-3000)}`);
      const { rate, samples } = wavSamples(join(dumps, decoded[0]));
      const seconds = samples.length / rate;
      assert.ok(seconds >= 1.5, `baresip decoded ${seconds.toFixed(2)} s of audio`);
      // The loudest second of the dump is bob's tone: baresip hears nothing else through the bridge.
      let best = { rms: 0, share: 0 };
      for (let start = 0; start + rate <= samples.length; start += rate / 2) {
        const block = samples.subarray(start, start + rate);
        const level = rmsOf(block);
        if (level > best.rms) best = { rms: level, share: toneShare(block, rate, BOB_TONE_HZ) };
      }
      assert.ok(best.rms > 1000, `bob's tone did not reach baresip (loudest second rms ${best.rms.toFixed(0)})`);
      t.diagnostic(
        `bob received ${bobMedia.packets.length} packets from baresip (rms ${bobMedia.loudnessSince(sinceAnswer).toFixed(0)}); ` +
          `baresip decoded ${seconds.toFixed(2)} s, loudest second rms ${best.rms.toFixed(0)}, ${BOB_TONE_HZ} Hz share ${best.share.toFixed(2)}`,
      );
      assert.ok(best.share > 0.5, `what baresip heard is not bob's ${BOB_TONE_HZ} Hz tone (share ${best.share.toFixed(2)})`);
    } finally {
      if (baresip.exitCode === null) baresip.kill('SIGTERM');
      // baresip may ignore SIGTERM while a call is up; its own -t bound is 40 s, the test's is shorter.
      const killTimer = setTimeout(() => baresip.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(killTimer);
      bobMedia.close();
    }
  });
});

/**
 * SDES-SRTP end to end with two independent phones: baresip alice (`mediaenc=srtp-mand`: RTP/SAVP)
 * and baresip bob (`mediaenc=srtp`: keys offered on RTP/AVP, so bob's endpoint is
 * `media_encryption_optimistic`) register over TLS; alice dials 600 → Dial(SIP/bob), bob answers by
 * himself. Each sends its own tone; each one's decoder dump must hold the other's tone. RTP
 * statistics are read through the API during the call. A tshark capture on loopback of both
 * phones' media ports must show only SRTP and SRTCP: every RTP datagram carries the 80-bit tag,
 * none has the size of a plain 20 ms PCMU packet, and every RTCP one has the SRTCP E flag.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { rmsOf, toneShare, waitFor } from './audio-analysis.js';
import { BaresipPhone } from './baresip-phone.js';
import { basicAuth, freePort, type RunningSwitchboard, startSwitchboard } from './harness.js';
import { digestPhone, NAT_PHONE, udpTransport } from './pjsip-phones.js';

const DIALPLAN = `
exten => 600,1,Dial(SIP/bob,20)
 same => n,Hangup()
`;

const ALICE_TONE_HZ = 440;
const BOB_TONE_HZ = 1000;
/** RTP header + 20 ms of PCMU: the size of every plain packet of this call. */
const PLAIN_PCMU = 12 + 160;
/** AES_CM_128_HMAC_SHA1_80: the tag is 10 octets (RFC 4568 §6.2.1). */
const SRTP_PCMU = PLAIN_PCMU + 10;

const has = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

/** UDP payloads of a pcap file (Ethernet framing, as Linux captures loopback), with their ports. */
function udpDatagrams(file: string): Array<{ source: number; destination: number; payload: Buffer }> {
  const bytes = readFileSync(file);
  const little = bytes.readUInt32LE(0) === 0xa1b2c3d4;
  const read32 = (at: number) => (little ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
  const linkType = read32(20);
  assert.equal(linkType, 1, `pcap link type ${linkType}: Ethernet expected on lo`);
  const datagrams: Array<{ source: number; destination: number; payload: Buffer }> = [];
  let offset = 24;
  while (offset + 16 <= bytes.length) {
    const captured = read32(offset + 8);
    const frame = bytes.subarray(offset + 16, offset + 16 + captured);
    offset += 16 + captured;
    if (frame.length < 14 + 20 || frame.readUInt16BE(12) !== 0x0800) continue;
    const ip = frame.subarray(14);
    if (ip[9] !== 17) continue; // UDP only
    const udp = ip.subarray((ip[0] & 0x0f) * 4);
    datagrams.push({ source: udp.readUInt16BE(0), destination: udp.readUInt16BE(2), payload: udp.subarray(8, udp.readUInt16BE(4)) });
  }
  return datagrams;
}

/** The loudest second of a dump: its level and the share of `hz` in it. */
function loudestSecond(decoded: { rate: number; samples: Int16Array }, hz: number): { rms: number; share: number; seconds: number } {
  const { rate, samples } = decoded;
  let best = { rms: 0, share: 0 };
  for (let start = 0; start + rate <= samples.length; start += rate / 2) {
    const block = samples.subarray(start, start + rate);
    const level = rmsOf(block);
    if (level > best.rms) best = { rms: level, share: toneShare(block, rate, hz) };
  }
  return { ...best, seconds: samples.length / rate };
}

describe('SDES-SRTP: two baresip phones over TLS talk through Switchboard with encrypted media only', () => {
  let sb: RunningSwitchboard;
  let dir: string;
  let tlsPort: number;

  before(async () => {
    // ensure-tools installs these when it can; a missing one fails here naming the package.
    assert.ok(has('baresip'), 'baresip is not installed: apt-get install baresip-core');
    assert.ok(has('tshark'), 'tshark is not installed: apt-get install tshark');
    assert.ok(has('openssl'), 'openssl is not installed: apt-get install openssl');
    dir = mkdtempSync(join(tmpdir(), 'switchboard-srtp-'));
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { encoding: 'utf8' },
    );
    assert.equal(made.status, 0, made.stderr);
    sb = await startSwitchboard({ dialplan: DIALPLAN });
    tlsPort = await freePort('tcp');
    const tls = `[transport-tls]\ntype = transport\nprotocol = tls\nbind = 127.0.0.1:${tlsPort}\ncert_file = ${join(dir, 'cert.pem')}\npriv_key_file = ${join(dir, 'key.pem')}\n`;
    const secure = (lines: string[]) => ({ ...NAT_PHONE, allow: 'ulaw', endpoint: [...(NAT_PHONE.endpoint ?? []), ...lines] });
    writeFileSync(
      join(sb.confDir, 'pjsip.conf'),
      [
        udpTransport(sb.sipPort),
        tls,
        digestPhone('alice', 'wonderland', secure(['media_encryption = sdes'])),
        digestPhone('bob', 'builder', secure(['media_encryption = sdes', 'media_encryption_optimistic = yes'])),
      ].join('\n'),
    );
    await sb.restart();
  });
  after(async () => {
    await sb?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    'alice (srtp-mand) calls bob (srtp): both hear each other, RTP statistics count, nothing plain on the wire',
    { timeout: 60_000 },
    async (t) => {
      const account = (user: string, password: string, mediaenc: string, extra = '') =>
        `<sip:${user}@127.0.0.1:${tlsPort};transport=tls>;auth_pass=${password};regint=60;audio_codecs=PCMU;mediaenc=${mediaenc}` +
        `;outbound="sip:127.0.0.1:${tlsPort};transport=tls"${extra}`;
      for (const name of ['alice', 'bob']) mkdirSync(join(dir, name));
      const alice = await BaresipPhone.start({
        dir: join(dir, 'alice'),
        account: account('alice', 'wonderland', 'srtp-mand'),
        toneHz: ALICE_TONE_HZ,
        modules: ['srtp.so'],
      });
      const bob = await BaresipPhone.start({
        dir: join(dir, 'bob'),
        account: account('bob', 'builder', 'srtp', ';answermode=auto'),
        toneHz: BOB_TONE_HZ,
        modules: ['srtp.so'],
      });
      const capture = join(dir, 'media.pcap');
      let tshark: ChildProcess | undefined;
      try {
        const registered = (aor: string) => sb.logs.some((l) => l.msg === 'contact added' && l.aor === aor);
        await waitFor('both registrations over TLS', () => registered('alice') && registered('bob'), 15_000).catch((error: Error) => {
          throw new Error(`${error.message}\nalice:\n${alice.output.slice(-2000)}\nbob:\n${bob.output.slice(-2000)}`);
        });

        // Capture every UDP datagram to or from the phones' RTP/RTCP ports.
        const filter = [alice.rtpPorts, bob.rtpPorts].map(([low, high]) => `udp portrange ${low}-${high + 1}`).join(' or ');
        let tsharkErr = '';
        tshark = spawn('tshark', ['-i', 'lo', '-f', filter, '-F', 'pcap', '-w', capture, '-a', 'duration:30'], {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        tshark.stderr?.on('data', (chunk: Buffer) => {
          tsharkErr += chunk.toString();
        });
        await waitFor('tshark to capture', () => tsharkErr.includes('Capturing on'), 10_000).catch((error: Error) => {
          throw new Error(`${error.message}: ${tsharkErr}`);
        });

        alice.command(`/dial sip:600@127.0.0.1:${tlsPort};transport=tls`);
        await waitFor(
          'the call to be established',
          () => /established/i.test(alice.output) && /established/i.test(bob.output),
          15_000,
        ).catch((error: Error) => {
          throw new Error(`${error.message}\nalice:\n${alice.output.slice(-3000)}\nbob:\n${bob.output.slice(-3000)}`);
        });
        await new Promise((resolve) => setTimeout(resolve, 3000));

        // rtp_statistics of both channels: packets counted both ways over SRTP.
        const channels = (await (await fetch(`${sb.baseUrl}/ari/channels`, { headers: { authorization: basicAuth() } })).json()) as Array<{
          id: string;
        }>;
        assert.equal(channels.length, 2, 'alice and bob channels are up');
        for (const channel of channels) {
          const response = await fetch(`${sb.baseUrl}/ari/channels/${channel.id}/rtp_statistics`, {
            headers: { authorization: basicAuth() },
          });
          assert.equal(response.status, 200);
          const stats = (await response.json()) as { txcount: number; rxcount: number };
          assert.ok(stats.txcount > 50 && stats.rxcount > 50, `${channel.id}: tx ${stats.txcount} rx ${stats.rxcount}`);
        }

        alice.command('/hangup');
        // Both legs gone on the server: their RTCP BYEs (SRTCP) are on the wire by now.
        await waitFor(
          'the channels to end',
          async () =>
            ((await (await fetch(`${sb.baseUrl}/ari/channels`, { headers: { authorization: basicAuth() } })).json()) as unknown[])
              .length === 0,
          10_000,
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
      } finally {
        if (tshark !== undefined && tshark.exitCode === null) {
          const stopped = new Promise((resolve) => tshark?.once('exit', resolve));
          tshark.kill('SIGINT');
          await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 5000))]);
          if (tshark.exitCode === null) tshark.kill('SIGKILL');
        }
        await alice.stop();
        await bob.stop();
      }

      // Each phone decoded the other's tone.
      const heardByAlice = loudestSecond(alice.decoded(), BOB_TONE_HZ);
      const heardByBob = loudestSecond(bob.decoded(), ALICE_TONE_HZ);
      t.diagnostic(
        `alice decoded ${heardByAlice.seconds.toFixed(1)} s (rms ${heardByAlice.rms.toFixed(0)}, ${BOB_TONE_HZ} Hz share ${heardByAlice.share.toFixed(2)}); ` +
          `bob decoded ${heardByBob.seconds.toFixed(1)} s (rms ${heardByBob.rms.toFixed(0)}, ${ALICE_TONE_HZ} Hz share ${heardByBob.share.toFixed(2)})`,
      );
      assert.ok(heardByAlice.rms > 1000 && heardByAlice.share > 0.5, `alice did not hear bob's tone: ${JSON.stringify(heardByAlice)}`);
      assert.ok(heardByBob.rms > 1000 && heardByBob.share > 0.5, `bob did not hear alice's tone: ${JSON.stringify(heardByBob)}`);

      // On the wire: SRTP and SRTCP only.
      const isRtcp = (payload: Buffer) => payload.length >= 8 && payload[1] >= 200 && payload[1] <= 207;
      const datagrams = udpDatagrams(capture);
      const rtp = datagrams.filter((d) => d.payload.length >= 12 && d.payload[0] >> 6 === 2 && !isRtcp(d.payload));
      const rtcp = datagrams.filter((d) => d.payload[0] >> 6 === 2 && isRtcp(d.payload));
      const phonePorts = new Set(
        [alice.rtpPorts, bob.rtpPorts].flatMap(([low, high]) => Array.from({ length: high - low + 2 }, (_, i) => low + i)),
      );
      const toPhones = rtp.filter((d) => phonePorts.has(d.destination)).length;
      const fromPhones = rtp.filter((d) => phonePorts.has(d.source)).length;
      t.diagnostic(`captured ${rtp.length} RTP datagrams (${toPhones} to the phones, ${fromPhones} from them) and ${rtcp.length} RTCP`);
      assert.ok(toPhones > 100 && fromPhones > 100, `too few media datagrams captured: ${toPhones} to, ${fromPhones} from the phones`);
      const sizes = new Map<number, number>();
      for (const d of rtp) sizes.set(d.payload.length, (sizes.get(d.payload.length) ?? 0) + 1);
      assert.equal(sizes.get(PLAIN_PCMU), undefined, `plain RTP-sized datagrams on the wire: ${JSON.stringify([...sizes])}`);
      assert.deepEqual([...sizes.keys()], [SRTP_PCMU], `every RTP datagram carries the SRTP tag: ${JSON.stringify([...sizes])}`);
      const fromServer = rtcp.filter((d) => !phonePorts.has(d.source));
      t.diagnostic(
        `RTCP: ${rtcp.map((d) => `${phonePorts.has(d.source) ? 'phone' : 'server'} ${d.payload.length} ${d.payload.subarray(0, 16).toString('hex')}`).join('; ')}`,
      );
      assert.ok(fromServer.length >= 2, 'the server sent RTCP (reports, BYE) to the phones');
      for (const d of fromServer) {
        // RFC 3711 §3.4: E flag and SRTCP index, then the 80-bit tag.
        assert.ok(
          (d.payload[d.payload.length - 14] & 0x80) !== 0,
          `RTCP without the SRTCP E flag (${d.source} → ${d.destination}): ${d.payload.toString('hex')}`,
        );
      }
    },
  );
});

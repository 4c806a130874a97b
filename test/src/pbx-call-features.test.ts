/**
 * Call features of the PBX against the real process, sipp and real UDP RTP: early media through
 * Dial() (the callee's 183 with SDP reaches the caller as a 183 and its audio before the answer),
 * calls originated through the API to a trunk that challenges them (`outbound_auth`), session
 * timers on a call we place (RFC 4028), and a callee changing codec mid-call in a bridged call.
 */
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { basicAuth, freePort, type RunningSwitchboard, runSipp, type SippResult, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';
import { RtpReceiver, rms } from './rtp-receiver.js';

/** 16-bit linear sample → G.711 A-law byte (ITU-T G.711: 13-bit segments, even bits inverted). */
function linearToAlaw(sample: number): number {
  const mask = sample >= 0 ? 0xd5 : 0x55;
  const magnitude = Math.min(sample >= 0 ? sample : -sample - 1, 32767) >> 3;
  const ends = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];
  const segment = ends.findIndex((end) => magnitude <= end);
  if (segment === -1) return 0x7f ^ mask;
  const mantissa = segment < 2 ? (magnitude >> 1) & 0x0f : (magnitude >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

/** Sends a PCMA (payload type 8) tone from `socket` to `port`, one 20 ms packet every 20 ms. */
async function sendAlawTone(socket: ReturnType<typeof createSocket>, port: number, frequency: number, ms: number): Promise<void> {
  const ssrc = 0x5eed1234;
  let phase = 0;
  const start = performance.now();
  for (let i = 0; i < Math.round(ms / 20); i++) {
    const packet = Buffer.alloc(12 + 160);
    packet[0] = 0x80;
    packet[1] = (i === 0 ? 0x80 : 0) | 8;
    packet.writeUInt16BE(i & 0xffff, 2);
    packet.writeUInt32BE((i * 160) >>> 0, 4);
    packet.writeUInt32BE(ssrc, 8);
    for (let s = 0; s < 160; s++) {
      packet[12 + s] = linearToAlaw(Math.round(8000 * Math.sin(phase)));
      phase += (2 * Math.PI * frequency) / 8000;
    }
    socket.send(packet, port, '127.0.0.1');
    const wait = start + (i + 1) * 20 - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

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

/** The harness's phone identified by address, plus a trunk reached at `trunkPort` with outbound_auth. */
function pjsipConf(sipPort: number, trunkPort: number, timedPort: number): string {
  return `
[transport-udp]
type = transport
protocol = udp
bind = 127.0.0.1:${sipPort}

[local-phone]
type = endpoint
context = from-internal
disallow = all
allow = ulaw,alaw

[local-phone]
type = identify
endpoint = local-phone
match = 127.0.0.1

[trunk]
type = endpoint
context = from-internal
disallow = all
allow = ulaw
outbound_auth = trunk-auth
aors = trunk

[trunk-auth]
type = auth
auth_type = userpass
username = acct
password = trunk-secret

[trunk]
type = aor
contact = sip:127.0.0.1:${trunkPort}

[timed]
type = endpoint
context = from-internal
disallow = all
allow = ulaw
aors = timed
timers = yes
timers_min_se = 90
timers_sess_expires = 90

[timed]
type = aor
contact = sip:127.0.0.1:${timedPort}
`;
}

describe('PBX: call features', () => {
  let sb: RunningSwitchboard;
  let calleePort: number;
  let trunkPort: number;
  let timedPort: number;
  let codecPort: number;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });

  before(async () => {
    calleePort = await freePort('udp');
    trunkPort = await freePort('udp');
    timedPort = await freePort('udp');
    codecPort = await freePort('udp');
    sb = await startSwitchboard({
      dialplan: `
exten => 200,1,Answer()
 same => n,Playback(hello-world)
 same => n,Hangup()
exten => 500,1,Answer()
 same => n,Wait(90)
 same => n,Hangup()
exten => 600,1,Dial(SIP/local-phone/sip:carol@127.0.0.1:${codecPort},20)
 same => n,Hangup()
exten => 400,1,Dial(SIP/local-phone/sip:bob@127.0.0.1:${calleePort},20)
 same => n,Hangup()
`,
    });
    writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsipConf(sb.sipPort, trunkPort, timedPort));
    await sb.restart();
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

  it(
    'originates to a trunk with a number (SIP/number@trunk), answering its 401s to our INVITE and BYE with outbound_auth',
    { timeout: 40_000 },
    async () => {
      const trunk = runSipp('uas-trunk-auth.xml', target(), {
        service: 'trunk',
        keys: { rtpport: 4010, user: 'acct', password: 'trunk-secret' },
        extra: ['-p', String(trunkPort)],
      });
      await sleep(300);
      const res = await fetch(`${sb.baseUrl}/ari/channels?endpoint=SIP/5551234%40trunk&extension=200&context=from-internal`, {
        method: 'POST',
        headers: { authorization: basicAuth() },
      });
      assert.equal(res.status, 200, await res.clone().text());
      const result = await trunk;
      assert.equal(result.code, 0, result.stdout.slice(-3000) + result.stderr.slice(-1000));
    },
  );

  it('session timers on a call we place: 422 heeded, then our re-INVITE refreshes at half the interval', { timeout: 90_000 }, async () => {
    const provider = runSipp('uas-session-timer.xml', target(), {
      service: 'timed',
      keys: { rtpport: 4012 },
      timeoutSeconds: 80,
      extra: ['-p', String(timedPort)],
    });
    await sleep(300);
    const res = await fetch(`${sb.baseUrl}/ari/channels?endpoint=SIP/timed/5550000&extension=500&context=from-internal`, {
      method: 'POST',
      headers: { authorization: basicAuth() },
    });
    assert.equal(res.status, 200, await res.clone().text());
    const result = await provider;
    assert.equal(result.code, 0, result.stdout.slice(-3000) + result.stderr.slice(-1000));
  });

  it(
    'a bridged callee that switches to PCMA by re-INVITE gets a PCMA answer, and the PCMU caller still hears it',
    { timeout: 40_000 },
    async () => {
      const calleeSocket = createSocket('udp4');
      await new Promise<void>((resolve) => calleeSocket.bind(0, '127.0.0.1', resolve));
      const callerMedia = await RtpReceiver.open();
      const portFile = join(tmpdir(), `switchboard-codec-${process.pid}-${Date.now()}.port`);
      try {
        const callee = runSipp('uas-codec-change.xml', target(), {
          service: 'carol',
          keys: { rtpport: calleeSocket.address().port, portfile: portFile },
          extra: ['-p', String(codecPort)],
        });
        await sleep(300);
        const caller = runSipp('uac-wait-bye.xml', target(), { service: '600', keys: { rtpport: callerMedia.port } });
        const legPort = Number(await waitForFile(portFile, 10_000));
        // The callee re-INVITEs a second after the answer; from then on it speaks PCMA.
        await sleep(1800);
        const since = performance.now();
        await sendAlawTone(calleeSocket, legPort, 1000, 1500);
        const heard = callerMedia.packets.filter((p) => p.at >= since);
        assert.ok(heard.length > 20, `the caller keeps receiving audio (${heard.length} packets)`);
        assert.ok(
          heard.every((p) => p.payloadType === 0),
          'the caller still gets PCMU',
        );
        const loudness = rms(heard.map((p) => p.payload));
        assert.ok(loudness > 1000, `the PCMA tone reaches the PCMU caller transcoded (rms ${loudness.toFixed(0)})`);
        const [calleeResult, callerResult] = await Promise.all([callee, caller]);
        assert.equal(calleeResult.code, 0, calleeResult.stdout.slice(-3000));
        assert.equal(callerResult.code, 0, callerResult.stdout.slice(-2000));
      } finally {
        calleeSocket.close();
        callerMedia.close();
        rmSync(portFile, { force: true });
      }
    },
  );
});

describe('PBX: outbound registration to a provider', () => {
  it('registers with outbound_auth, refreshes before expiry and unregisters on shutdown', { timeout: 60_000 }, async () => {
    const sb = await startSwitchboard();
    let registrar: Promise<SippResult> | undefined;
    try {
      const registrarPort = await freePort('udp');
      writeFileSync(
        join(sb.confDir, 'pjsip.conf'),
        `[transport-udp]\ntype = transport\nprotocol = udp\nbind = 127.0.0.1:${sb.sipPort}\n\n` +
          '[provider-auth]\ntype = auth\nusername = acct\npassword = reg-secret\n\n' +
          `[provider]\ntype = registration\nserver_uri = sip:127.0.0.1:${registrarPort}\nclient_uri = sip:acct@provider.example\n` +
          'contact_user = 5551000\noutbound_auth = provider-auth\nexpiration = 120\nretry_interval = 5\n',
      );
      registrar = runSipp(
        'uas-registrar-auth.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        {
          service: 'provider',
          keys: { user: 'acct', password: 'reg-secret' },
          timeoutSeconds: 40,
          extra: ['-p', String(registrarPort)],
        },
      );
      await sleep(300);
      await sb.restart();
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && sb.logs.filter((l) => l.msg === 'outbound registration succeeded').length < 2) await sleep(100);
      const successes = sb.logs.filter((l) => l.msg === 'outbound registration succeeded');
      assert.equal(successes.length, 2, 'registered, then refreshed before the 3 s expiry');
      assert.equal(successes[0].expires, 3);
      assert.equal(successes[1].expires, 3600);
    } finally {
      await sb.stop();
    }
    // The registrar scenario ends with the Expires: 0 REGISTER sent at shutdown.
    const result = await registrar;
    assert.equal(result?.code, 0, `${result?.stdout.slice(-3000)}`);
  });
});

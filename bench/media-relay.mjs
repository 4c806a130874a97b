#!/usr/bin/env node
// Benchmark: two-party same-codec (PCMU) bridges relayed by one media worker. Each call is two legs in
// a mixing bridge (which relays packets without decoding); each far end sends 50 packets/s. Steps the
// number of calls up and reports the most calls with loss < 0.1 % and added jitter p99 < 5 ms, the
// engine's CPU and memory per leg. With BENCH_RELAY_SRTP=<suite> (media-relay-srtp.mjs) every leg is
// SRTP: the worker decrypts what each far end sends and encrypts what it relays. With BENCH_RELAY_WEBRTC=1
// (webrtc-relay.mjs) one leg of each call is a browser's: ICE-lite (the far end nominates it with a STUN
// check), rtcp-mux, SRTP AEAD_AES_128_GCM (the profile Chromium's DTLS-SRTP picks), the other plain RTP.
import { randomBytes } from 'node:crypto';
import { machine, printSteps, writeResult } from './common.mjs';
import {
  MAX_ADDED_JITTER_MS,
  MAX_LOSS_PCT,
  NATIVE_SOCKETS,
  PCMU,
  farLeg,
  inBatches,
  startEngine,
  startFarEnd,
  stepCounts,
} from './media-common.mjs';

const counts = (process.env.BENCH_CALLS ?? '50,100,150,200,300,400').split(',').map(Number);
const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 5);
const webrtc = process.env.BENCH_RELAY_WEBRTC === '1';
const srtpSuite = webrtc ? 'AEAD_AES_128_GCM' : (process.env.BENCH_RELAY_SRTP ?? null);
const MASTER_LENGTHS = { AES_CM_128_HMAC_SHA1_80: 30, AES_CM_128_HMAC_SHA1_32: 30, AEAD_AES_128_GCM: 28, AEAD_AES_256_GCM: 44 };
const name = webrtc ? 'webrtc-relay' : srtpSuite === null ? 'media-relay' : 'media-relay-srtp';

/** A leg and, for SRTP, the keys of both sides: the far end sends with `far`, the leg with `ours`. */
// RFC 4733 events negotiated, as the phones of sipp-relay do: the relay then decodes nothing.
const TELEPHONE_EVENT = { telephoneEventPayloadType: 101 };

async function relayLeg(browser) {
  if (srtpSuite === null || (webrtc && !browser)) return { leg: await farLeg(engine, farEnd, PCMU, TELEPHONE_EVENT), srtp: undefined };
  const ours = randomBytes(MASTER_LENGTHS[srtpSuite]).toString('base64');
  const far = randomBytes(MASTER_LENGTHS[srtpSuite]).toString('base64');
  // The keys a DTLS-SRTP handshake would export (RFC 5764 §4.2), given directly: the handshake is set-up, not per packet.
  const ice = browser ? { ufrag: randomBytes(6).toString('hex'), password: randomBytes(16).toString('hex') } : undefined;
  const leg = await farLeg(engine, farEnd, PCMU, {
    ...TELEPHONE_EVENT,
    srtp: { suite: srtpSuite, localMasterKey: ours, remoteMasterKey: far },
    ...(browser ? { ice, rtcpMux: true } : {}),
  });
  return { leg, srtp: { suite: srtpSuite, key: far, peerKey: ours }, ice };
}

const engine = await startEngine();
const farEnd = await startFarEnd();

let bridgeSerial = 0;
async function setup(n) {
  const calls = [];
  await inBatches(Array.from({ length: n }), 50, async () => {
    const bridgeId = `relay-${bridgeSerial++}`;
    await engine.createBridge({ bridgeId, kind: 'mixing' });
    const { leg: a, srtp: aKeys, ice: aIce } = await relayLeg(true);
    const { leg: b, srtp: bKeys } = await relayLeg(false);
    await engine.joinBridge(bridgeId, a.legId);
    await engine.joinBridge(bridgeId, b.legId);
    calls.push({ bridgeId, a, b, aKeys, bKeys, aIce });
  });
  // What is sent to leg a comes back relayed from leg b, and the other way round.
  const streams = calls.flatMap(({ a, b, aKeys, bKeys, aIce }) => [
    { to: a.localPort, from: b.localPort, codec: 'PCMU', ...(aKeys ? { srtp: aKeys } : {}), ...(aIce ? { ice: aIce } : {}) },
    { to: b.localPort, from: a.localPort, codec: 'PCMU', ...(bKeys ? { srtp: bKeys } : {}) },
  ]);
  const teardown = () =>
    inBatches(calls, 50, async ({ bridgeId, a, b }) => {
      await engine.destroyBridge(bridgeId);
      await Promise.all([engine.destroyLeg(a.legId), engine.destroyLeg(b.legId)]);
    });
  return { streams, legs: 2 * n, teardown };
}

const { steps, best, bestLossOnly } = await stepCounts({ counts, seconds, setup, farEnd, unit: 'calls', engine });
farEnd.close();
await engine.close();

const result = {
  benchmark: name,
  when: new Date().toISOString(),
  machine: machine(),
  setup: `MediaEngine, 1 worker, in process, ${NATIVE_SOCKETS ? 'native socket hub' : 'dgram sockets'}; N mixing bridges of two PCMU legs (relay${webrtc ? ', one leg WebRTC: ICE-lite, rtcp-mux, SRTP AEAD_AES_128_GCM; the other plain RTP' : srtpSuite ? `, every leg SRTP ${srtpSuite}` : ''}); far ends in a child process, one socket, 50 packets/s per stream`,
  step_seconds: seconds,
  criteria: { max_loss_pct: MAX_LOSS_PCT, max_added_jitter_ms_p99: MAX_ADDED_JITTER_MS },
  best_calls: best?.calls ?? null,
  // The most calls with loss < 0.1 % whatever the jitter (below the overload bound of 20 ms).
  best_calls_loss_only: bestLossOnly?.calls ?? null,
  loss_only_added_jitter_ms_p99: bestLossOnly?.added_jitter_ms_p99 ?? null,
  best_engine_cpu_pct_per_leg: best?.engine_cpu_pct_per_leg ?? null,
  best_rss_kib_per_leg: best?.rss_kib_per_leg ?? null,
  // Each leg receives and sends 50 packets/s: its CPU share over 50 is the cost of one packet in and one out.
  best_engine_cpu_us_per_packet_pair: best?.engine_cpu_pct_per_leg == null ? null : Math.round(best.engine_cpu_pct_per_leg * 200 * 10) / 10,
  steps,
};
printSteps(
  `${name}: two-party PCMU relay calls${webrtc ? ' (WebRTC leg ↔ plain RTP leg)' : srtpSuite ? ` (SRTP ${srtpSuite})` : ''} on one worker, ${seconds} s per step`,
  steps,
);
console.log(`most calls within loss < ${MAX_LOSS_PCT} % and added jitter p99 < ${MAX_ADDED_JITTER_MS} ms: ${result.best_calls ?? 'none'}`);
console.log(
  `most calls with loss < ${MAX_LOSS_PCT} % (jitter aside): ${bestLossOnly?.calls ?? 'none'} (added jitter p99 ${bestLossOnly?.added_jitter_ms_p99 ?? '-'} ms)`,
);
writeResult(name, result);

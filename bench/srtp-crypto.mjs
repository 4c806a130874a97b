#!/usr/bin/env node
// Benchmark: the CPU cost of SRTP per packet inside a worker thread (where the media engine runs it),
// for Switchboard's implementation on Node's crypto (one AES-ECB context per session key feeding the
// counter blocks, HMAC-SHA1 from copied inner/outer SHA-1 states; AES-GCM through createCipheriv),
// the same algorithm with a cipher and an HMAC made per packet (the obvious way to use Node's crypto),
// and werift-rtp's SrtpSession (TypeScript, the candidate library). Each implementation protects then
// unprotects `BENCH_PACKETS` 20 ms PCMU packets (12 + 160 bytes), several rounds; the best round counts.
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
import { machine, writeResult } from './common.mjs';

const PACKETS = Number(process.env.BENCH_PACKETS ?? 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

function rtpPacket(sequence) {
  const packet = Buffer.alloc(172, 0x55);
  packet[0] = 0x80;
  packet[1] = 0;
  packet.writeUInt16BE(sequence & 0xffff, 2);
  packet.writeUInt32BE((sequence * 160) >>> 0, 4);
  packet.writeUInt32BE(0x12345678, 8);
  return packet;
}

/** AES_CM_128_HMAC_SHA1_80 with a fresh cipher and HMAC per packet (session keys taken as given). */
function naiveNodeCrypto() {
  const key = randomBytes(16);
  const salt = randomBytes(14);
  const auth = randomBytes(20);
  const iv = (ssrc, index) => {
    const v = Buffer.alloc(16);
    salt.copy(v);
    v.writeUInt32BE((v.readUInt32BE(4) ^ ssrc) >>> 0, 4);
    v.writeUInt32BE((v.readUInt32BE(10) ^ index) >>> 0, 10);
    return v;
  };
  const transform = (packet) => {
    const out = Buffer.from(packet);
    const cipher = createCipheriv('aes-128-ctr', key, iv(out.readUInt32BE(8), out.readUInt16BE(2)));
    cipher.update(out.subarray(12)).copy(out, 12);
    return out;
  };
  const tag = (body) => createHmac('sha1', auth).update(body).update(Buffer.alloc(4)).digest().subarray(0, 10);
  return {
    protect: (packet) => {
      const body = transform(packet);
      return Buffer.concat([body, tag(body)]);
    },
    unprotect: (packet) => {
      const body = packet.subarray(0, packet.length - 10);
      if (!tag(body).equals(packet.subarray(packet.length - 10))) throw new Error('tag');
      return transform(body);
    },
  };
}

async function implementations() {
  const { SrtpSession } = await import('../packages/media/dist/srtp/index.js');
  const werift = await import('werift-rtp');
  const ours = (suite, length) => {
    const key = randomBytes(length);
    const session = new SrtpSession({ suite, localMasterKey: key, remoteMasterKey: key });
    return {
      protect: (packet) => session.protectRtp(packet),
      unprotect: (packet) => {
        const result = session.unprotectRtp(packet);
        if (!result.ok) throw new Error(result.reason);
        return result.packet;
      },
    };
  };
  const theirs = (profile, keyLength, saltLength) => {
    const key = randomBytes(keyLength);
    const salt = randomBytes(saltLength);
    const session = new werift.SrtpSession({
      keys: { localMasterKey: key, localMasterSalt: salt, remoteMasterKey: key, remoteMasterSalt: salt },
      profile,
    });
    return {
      protect: (packet) => session.encrypt(packet.subarray(12), werift.RtpHeader.deSerialize(packet)),
      unprotect: (packet) => session.decrypt(packet),
    };
  };
  return {
    'switchboard AES_CM_128_HMAC_SHA1_80': ours('AES_CM_128_HMAC_SHA1_80', 30),
    'switchboard AEAD_AES_128_GCM': ours('AEAD_AES_128_GCM', 28),
    'node crypto per packet AES_CM_128_HMAC_SHA1_80': naiveNodeCrypto(),
    'werift-rtp AES_CM_128_HMAC_SHA1_80': theirs(werift.ProtectionProfileAes128CmHmacSha1_80, 16, 14),
    'werift-rtp AEAD_AES_128_GCM': theirs(werift.ProtectionProfileAeadAes128Gcm, 16, 12),
  };
}

async function measure() {
  const results = {};
  for (const [name, impl] of Object.entries(await implementations())) {
    const plain = Array.from({ length: PACKETS }, (_, i) => rtpPacket(i));
    let best = { protectUs: Number.POSITIVE_INFINITY, unprotectUs: Number.POSITIVE_INFINITY };
    for (let round = 0; round < ROUNDS; round++) {
      // Sequence numbers run on across rounds (and wrap): a replay window never sees a packet twice.
      const packets = plain.map((p, i) => {
        const copy = Buffer.from(p);
        copy.writeUInt16BE((round * PACKETS + i) & 0xffff, 2);
        return copy;
      });
      let start = process.cpuUsage();
      const wire = packets.map((p) => impl.protect(p));
      let used = process.cpuUsage(start);
      const protectUs = (used.user + used.system) / PACKETS;
      start = process.cpuUsage();
      for (const p of wire) impl.unprotect(p);
      used = process.cpuUsage(start);
      const unprotectUs = (used.user + used.system) / PACKETS;
      // The first round warms the JIT up; the best of the others counts.
      if (round > 0 && protectUs + unprotectUs < best.protectUs + best.unprotectUs) best = { protectUs, unprotectUs };
    }
    results[name] = { protect_us: Number(best.protectUs.toFixed(2)), unprotect_us: Number(best.unprotectUs.toFixed(2)) };
  }
  return results;
}

if (isMainThread) {
  const worker = new Worker(new URL(import.meta.url));
  const results = await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  console.log(`SRTP per packet in a worker thread (${PACKETS} packets of 172 bytes, CPU µs per packet)`);
  for (const [name, r] of Object.entries(results)) {
    console.log(`${name.padEnd(48)} protect ${String(r.protect_us).padStart(6)} µs   unprotect ${String(r.unprotect_us).padStart(6)} µs`);
  }
  writeResult('srtp-crypto', {
    benchmark: 'srtp-crypto',
    when: new Date().toISOString(),
    machine: machine(),
    setup: `one worker thread; ${PACKETS} PCMU packets (172 bytes) protected, then unprotected; CPU time per packet`,
    results,
  });
} else {
  parentPort.postMessage(await measure());
}

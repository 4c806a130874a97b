/**
 * SRTP against published vectors: RFC 3711 Appendix B.2 (AES-CM keystream) and B.3 (key
 * derivation), libsrtp's AES_CM_128_HMAC_SHA1_80 SRTP and SRTCP packets (master key and salt of
 * B.3), RFC 7714 §16 (AES-GCM SRTP and SRTCP with the given session key and salt); then round
 * trips of every suite, tampering, replay, and the rollover counter across sequence wraps.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { AesCounterMode } from './aes-cm.js';
import { deriveKeys, deriveSessionKey } from './key-derivation.js';
import { rtcpCipher, rtpCipher } from './packet-ciphers.js';
import { ReplayWindow, estimateIndex } from './replay-window.js';
import { SrtpSession } from './srtp-session.js';
import { masterKeyLength, SRTP_SUITES, type SrtpSuiteName } from './suites.js';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

const B3_KEY = hex('E1F97A0D3E018BE0D64FA32C06DE4139');
const B3_SALT = hex('0EC675AD498AFEEBB6960B3AABE6');

describe('RFC 3711 key derivation (Appendix B.3)', () => {
  it('derives the SRTP session encryption key, salt and authentication key', () => {
    const keys = deriveKeys('AES_CM_128_HMAC_SHA1_80', B3_KEY, B3_SALT, 'rtp');
    assert.equal(keys.encryptionKey.toString('hex').toUpperCase(), 'C61E7A93744F39EE10734AFE3FF7A087');
    assert.equal(keys.salt.toString('hex').toUpperCase(), '30CBBC08863D8C85D49DB34A9AE1');
    assert.equal(keys.authenticationKey.toString('hex').toUpperCase(), 'CEBE321F6FF7716B6FD4AB49AF256A156D38BAA4');
  });

  it('derives the SRTCP keys with labels 3, 4 and 5', () => {
    assert.equal(deriveSessionKey(B3_KEY, B3_SALT, 3, 16).toString('hex'), '4c1aa45a81f73d61c800bbb00fbb1eaa');
    assert.equal(deriveSessionKey(B3_KEY, B3_SALT, 4, 20).toString('hex'), '8d54534feb49ae8e7993a6bd0b844fc323a93dfd');
    assert.equal(deriveSessionKey(B3_KEY, B3_SALT, 5, 14).toString('hex'), '9581c7ad87b3e530bf3e4454a8b3');
  });
});

describe('AES counter mode (RFC 3711 Appendix B.2)', () => {
  it('produces the keystream of the appendix for IV F0F1…FD0000', () => {
    const ctr = new AesCounterMode(hex('2B7E151628AED2A6ABF7158809CF4F3C'), hex('F0F1F2F3F4F5F6F7F8F9FAFBFCFD'));
    const keystream = Buffer.alloc(48);
    ctr.apply(keystream, 0, 0);
    assert.equal(
      keystream.toString('hex').toUpperCase(),
      'E03EAD0935C95E80E166B16DD92B4EB4D23513162B02D0F72A43A2FE4A5F97AB41E95B3BB0A2E8DD477901E4FCA894C0',
    );
  });
});

describe('AES_CM_128_HMAC_SHA1_80 packets (libsrtp reference vectors, B.3 master key)', () => {
  const master = Buffer.concat([B3_KEY, B3_SALT]);
  const rtp = hex('800f1234decafbadcafebabe' + 'ab'.repeat(16));
  const srtp = hex('800f1234decafbadcafebabe4e55dc4ce79978d88ca4d215949d2402b78d6acc99ea179b8dbb');
  const rtcp = hex('81c8000bcafebabe' + 'ab'.repeat(16));
  const srtcp = hex('81c8000bcafebabe7128035be487b9bdbef89041f977a5a880000001993e08cd54d6c1230798');

  it('protects and unprotects the SRTP packet', () => {
    const sender = new SrtpSession({ suite: 'AES_CM_128_HMAC_SHA1_80', localMasterKey: master, remoteMasterKey: master });
    assert.equal(sender.protectRtp(rtp).toString('hex'), srtp.toString('hex'));
    const receiver = new SrtpSession({ suite: 'AES_CM_128_HMAC_SHA1_80', localMasterKey: master, remoteMasterKey: master });
    const result = receiver.unprotectRtp(srtp);
    assert.ok(result.ok);
    assert.equal(result.packet.toString('hex'), rtp.toString('hex'));
  });

  it('protects the SRTCP packet with index 1 and unprotects it', () => {
    const session = new SrtpSession({ suite: 'AES_CM_128_HMAC_SHA1_80', localMasterKey: master, remoteMasterKey: master });
    session.protectRtcp(rtcp); // index 0
    assert.equal(session.protectRtcp(rtcp).toString('hex'), srtcp.toString('hex'));
    const result = session.unprotectRtcp(srtcp);
    assert.ok(result.ok);
    assert.equal(result.packet.toString('hex'), rtcp.toString('hex'));
  });

  it('refuses every truncation of the SRTP and SRTCP packets', () => {
    for (let length = srtp.length - 1; length > 0; length--) {
      const session = new SrtpSession({ suite: 'AES_CM_128_HMAC_SHA1_80', localMasterKey: master, remoteMasterKey: master });
      assert.equal(session.unprotectRtp(srtp.subarray(0, length)).ok, false, `SRTP cut to ${length}`);
    }
    for (let length = srtcp.length - 1; length > 0; length--) {
      const session = new SrtpSession({ suite: 'AES_CM_128_HMAC_SHA1_80', localMasterKey: master, remoteMasterKey: master });
      assert.equal(session.unprotectRtcp(srtcp.subarray(0, length)).ok, false, `SRTCP cut to ${length}`);
    }
  });
});

describe('AEAD_AES_128_GCM (RFC 7714 §16, session key and salt given)', () => {
  const keys = {
    encryptionKey: hex('000102030405060708090a0b0c0d0e0f'),
    salt: hex('517569642070726f2071756f'),
    authenticationKey: Buffer.alloc(0),
  };
  const rtp = hex('8040f17b8041f8d35501a0b247616c6c696120657374206f6d6e697320646976697361 20696e207061727465732074726573');
  const srtp = hex(
    '8040f17b8041f8d35501a0b2f24de3a3fb34de6cacba861c9d7e4bcabe633bd50d294e6f42a5f47a51c7d19b36de3adf8833899d7f27beb16a9152cf765ee4390cce',
  );
  const rtcp = hex('81c8000d4d6172734e5450314e545032525450200000042a0000e9304c756e61deadbeefdeadbeefdeadbeefdeadbeefdeadbeef');
  const srtcp = hex(
    '81c8000d4d61727363e94885dcdab67ca727d7662f6b7e997ff5c0f76c06f32dc676a5f1730d6fda4ce09b4686303ded0bb9275bc84aa45896cf4d2fc5abf87245d9eade800005d4',
  );

  it('encrypts and decrypts the RTP packet (§16.1.1)', () => {
    const cipher = rtpCipher(SRTP_SUITES.AEAD_AES_128_GCM, keys);
    assert.equal(cipher.encrypt(rtp, 12, 0x5501a0b2, 0xf17b).toString('hex'), srtp.toString('hex'));
    assert.equal(cipher.decrypt(srtp, 12, 0x5501a0b2, 0xf17b)?.toString('hex'), rtp.toString('hex'));
    const forged = Buffer.from(srtp);
    forged[20] ^= 1;
    assert.equal(cipher.decrypt(forged, 12, 0x5501a0b2, 0xf17b), null);
  });

  it('encrypts and decrypts the RTCP packet with SRTCP index 0x5d4 (§17.1)', () => {
    const cipher = rtcpCipher(SRTP_SUITES.AEAD_AES_128_GCM, keys);
    assert.equal(cipher.encrypt(rtcp, 0x4d617273, 0x5d4).toString('hex'), srtcp.toString('hex'));
    assert.deepEqual(cipher.indexOf(srtcp), { index: 0x5d4, encrypted: true });
    assert.equal(cipher.decrypt(srtcp, 0x4d617273, 0x5d4, true)?.toString('hex'), rtcp.toString('hex'));
  });
});

function rtpPacket(sequence: number, ssrc: number, payload: Buffer): Buffer {
  const packet = Buffer.alloc(12 + payload.length);
  packet[0] = 0x80;
  packet[1] = 0;
  packet.writeUInt16BE(sequence, 2);
  packet.writeUInt32BE(sequence * 160, 4);
  packet.writeUInt32BE(ssrc, 8);
  payload.copy(packet, 12);
  return packet;
}

function pair(suite: SrtpSuiteName): { alice: SrtpSession; bob: SrtpSession } {
  const a = randomBytes(masterKeyLength(suite));
  const b = randomBytes(masterKeyLength(suite));
  return {
    alice: new SrtpSession({ suite, localMasterKey: a, remoteMasterKey: b }),
    bob: new SrtpSession({ suite, localMasterKey: b, remoteMasterKey: a }),
  };
}

describe('SRTP sessions', () => {
  for (const suite of Object.keys(SRTP_SUITES) as SrtpSuiteName[]) {
    it(`${suite}: round trip of RTP and RTCP, the payload is not readable on the wire, tags are checked`, () => {
      const { alice, bob } = pair(suite);
      const payload = Buffer.alloc(160, 0xff); // µ-law silence: easy to spot if left in the clear
      const plain = rtpPacket(1000, 0x1234, payload);
      const wire = alice.protectRtp(plain);
      assert.equal(wire.length, plain.length + SRTP_SUITES[suite].rtpTagLength);
      assert.equal(wire.subarray(12, 172).includes(Buffer.alloc(8, 0xff)), false);
      const back = bob.unprotectRtp(wire);
      assert.ok(back.ok);
      assert.deepEqual(back.packet, plain);
      const tampered = Buffer.from(alice.protectRtp(rtpPacket(1001, 0x1234, payload)));
      tampered[30] ^= 0x40;
      assert.deepEqual(bob.unprotectRtp(tampered), { ok: false, reason: 'authentication' });
      // The wrong key authenticates nothing.
      assert.equal(alice.unprotectRtp(alice.protectRtp(rtpPacket(1002, 0x1234, payload))).ok, false);

      const report = Buffer.from('81c90001' + '00001234', 'hex');
      const srtcp = alice.protectRtcp(report);
      const rtcpBack = bob.unprotectRtcp(srtcp);
      assert.ok(rtcpBack.ok);
      assert.deepEqual(rtcpBack.packet, report);
      assert.deepEqual(bob.unprotectRtcp(srtcp), { ok: false, reason: 'replay' });
    });
  }

  it('drops a replayed packet and one older than the window, accepts late ones inside it', () => {
    const { alice, bob } = pair('AES_CM_128_HMAC_SHA1_80');
    const packets = Array.from({ length: 300 }, (_, i) => alice.protectRtp(rtpPacket(i, 7, Buffer.alloc(20, i))));
    assert.ok(bob.unprotectRtp(packets[5]).ok);
    assert.deepEqual(bob.unprotectRtp(packets[5]), { ok: false, reason: 'replay' });
    assert.ok(bob.unprotectRtp(packets[200]).ok);
    assert.ok(bob.unprotectRtp(packets[150]).ok, 'late but inside the 128-packet window');
    assert.deepEqual(bob.unprotectRtp(packets[50]), { ok: false, reason: 'replay' });
  });

  it('follows the rollover counter across the sequence wrap, also with reordering', () => {
    const { alice, bob } = pair('AES_CM_128_HMAC_SHA1_32');
    const sequences = [65530, 65531, 65532, 65533, 65534, 65535, 0, 1, 2, 3];
    const wire = sequences.map((s) => alice.protectRtp(rtpPacket(s, 99, Buffer.from([s & 0xff]))));
    // 65535 arrives after 0 and 1: its index stays in the old cycle.
    const order = [0, 1, 2, 3, 4, 6, 7, 5, 8, 9];
    for (const i of order) {
      const result = bob.unprotectRtp(wire[i]);
      assert.ok(result.ok, `sequence ${sequences[i]}`);
      assert.equal(result.packet[12], sequences[i] & 0xff);
    }
    // Many packets later (ROC 1) the stream still decrypts.
    const later = alice.protectRtp(rtpPacket(30000, 99, Buffer.from([7])));
    assert.ok(bob.unprotectRtp(later).ok);
  });

  it('estimates indices as RFC 3711 Appendix A describes', () => {
    assert.equal(estimateIndex(5, 65530, 0), 65536 + 5);
    assert.equal(estimateIndex(65530, 5, 1), 65530);
    assert.equal(estimateIndex(100, 90, 2), 2 * 65536 + 100);
    assert.equal(estimateIndex(65535, 3, 0), 65535, 'no negative ROC');
    const window = new ReplayWindow(64);
    window.accept(1000);
    assert.equal(window.check(1000), false);
    assert.equal(window.check(999), true);
    assert.equal(window.check(936), false);
  });

  it('refuses master keys of the wrong length', () => {
    assert.throws(
      () => new SrtpSession({ suite: 'AEAD_AES_256_GCM', localMasterKey: randomBytes(30), remoteMasterKey: randomBytes(44) }),
      /must be 44 bytes/,
    );
  });
});

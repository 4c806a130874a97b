/**
 * STUN against RFC 5769's sample request and IPv4 response (integrity with the published password,
 * fingerprint, XOR-MAPPED-ADDRESS), our own messages read back, malformed input; then the ICE-lite
 * agent answering a browser-like check over real UDP sockets on loopback, refusing a wrong password,
 * taking the nominated pair, and letting consent lapse after 30 s on a fake clock.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { describe, it } from 'node:test';
import { CONSENT_TIMEOUT_MS, IceLiteAgent } from './ice-lite.js';
import { ATTRIBUTE, attribute, buildStun, parseStun, verifyFingerprint, verifyIntegrity, xorAddress } from './stun.js';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const RFC5769_PASSWORD = Buffer.from('VOkJxbRl1RmTxUk/WvJxBt');
const REQUEST = hex(
  '000100582112a442b7e7a701bc34d686fa87dfae802200105354554e207465737420636c69656e74002400046e0001ff80290008932ff9b151263b36000600096576746a3a68367659202020000800149aeaa70cbfd8cb56781ef2b5b2d3f249c1b571a280280004e57a3bcf',
);
const RESPONSE = hex(
  '0101003c2112a442b7e7a701bc34d686fa87dfae8022000b7465737420766563746f7220002000080001a147e112a643000800142b91f599fd9e90c38c7489f92af9ba53f06be7d780280004c07d4c96',
);

describe('STUN (RFC 5769 vectors)', () => {
  it('reads the sample request: USERNAME, integrity with the short-term password, fingerprint', () => {
    const message = parseStun(REQUEST);
    assert.ok(message);
    assert.equal(message.type, 0x0001);
    assert.equal(attribute(message, ATTRIBUTE.username)?.toString(), 'evtj:h6vY');
    assert.ok(verifyIntegrity(message, RFC5769_PASSWORD));
    assert.ok(verifyFingerprint(message));
    assert.equal(verifyIntegrity(message, Buffer.from('wrong')), false);
    const tampered = Buffer.from(REQUEST);
    tampered[30] ^= 1;
    const parsed = parseStun(tampered);
    assert.ok(parsed);
    assert.equal(verifyIntegrity(parsed, RFC5769_PASSWORD), false);
    assert.equal(verifyFingerprint(parsed), false);
  });

  it('reads the IPv4 response and writes its XOR-MAPPED-ADDRESS the same way', () => {
    const message = parseStun(RESPONSE);
    assert.ok(message);
    assert.ok(verifyIntegrity(message, RFC5769_PASSWORD));
    assert.ok(verifyFingerprint(message));
    assert.deepEqual(attribute(message, ATTRIBUTE.xorMappedAddress), xorAddress('192.0.2.1', 32853, message.transactionId));
  });

  it('writes messages that read back with integrity and fingerprint, for IPv4 and IPv6', () => {
    const id = randomBytes(12);
    const key = Buffer.from('secret');
    const built = buildStun(
      0x0101,
      id,
      [
        { type: ATTRIBUTE.xorMappedAddress, value: xorAddress('2001:db8::1', 5000, id) },
        { type: ATTRIBUTE.software, value: Buffer.from('odd') },
      ],
      key,
    );
    const message = parseStun(built);
    assert.ok(message);
    assert.deepEqual(message.transactionId, id);
    assert.ok(verifyIntegrity(message, key) && verifyFingerprint(message));
    assert.equal(attribute(message, ATTRIBUTE.xorMappedAddress)?.length, 20);
  });

  it('refuses malformed datagrams without throwing', () => {
    for (let length = 0; length < REQUEST.length; length++) assert.equal(parseStun(REQUEST.subarray(0, length)), null, `cut to ${length}`);
    const rtp = Buffer.alloc(172);
    rtp[0] = 0x80;
    assert.equal(parseStun(rtp), null);
    const lying = Buffer.from(REQUEST);
    lying.writeUInt16BE(0x0100, 22); // an attribute longer than the message
    assert.equal(parseStun(lying), null);
  });
});

/** A check as a controlling full agent (a browser) sends it (RFC 8445 §7.2.2). */
function check(ours: string, theirs: string, password: string, nominate: boolean): Buffer {
  const priority = Buffer.alloc(4);
  priority.writeUInt32BE(0x6e0001ff, 0);
  return buildStun(
    0x0001,
    randomBytes(12),
    [
      { type: ATTRIBUTE.username, value: Buffer.from(`${ours}:${theirs}`) },
      { type: ATTRIBUTE.priority, value: priority },
      { type: ATTRIBUTE.iceControlling, value: randomBytes(8) },
      ...(nominate ? [{ type: ATTRIBUTE.useCandidate, value: Buffer.alloc(0) }] : []),
    ],
    Buffer.from(password),
  );
}

describe('ICE-lite agent', () => {
  it('answers checks from a loopback peer, takes the nominated pair, refuses a wrong password', { timeout: 5000 }, async () => {
    let now = 1000;
    const agent = new IceLiteAgent({ ufrag: 'sw1t', password: 'our-password-of-22-chars' }, () => now);
    const ours = dgram.createSocket('udp4');
    const peer = dgram.createSocket('udp4');
    await Promise.all([new Promise<void>((r) => ours.bind(0, '127.0.0.1', r)), new Promise<void>((r) => peer.bind(0, '127.0.0.1', r))]);
    ours.on('message', (datagram, from) => {
      const outcome = agent.handle(datagram, from);
      if (outcome.kind !== 'ignored') ours.send(outcome.response, from.port, from.address);
    });
    const ask = (datagram: Buffer) =>
      new Promise<Buffer>((resolve) => {
        peer.once('message', resolve);
        peer.send(datagram, ours.address().port, '127.0.0.1');
      });
    try {
      assert.equal(agent.consentValid(), false);
      const answer = parseStun(await ask(check('sw1t', 'brws', 'our-password-of-22-chars', false)));
      assert.ok(answer);
      assert.equal(answer.type, 0x0101);
      assert.ok(verifyIntegrity(answer, Buffer.from('our-password-of-22-chars')) && verifyFingerprint(answer));
      assert.deepEqual(attribute(answer, ATTRIBUTE.xorMappedAddress), xorAddress('127.0.0.1', peer.address().port, answer.transactionId));
      assert.deepEqual(agent.selected, { address: '127.0.0.1', port: peer.address().port });

      const refused = parseStun(await ask(check('sw1t', 'brws', 'not-our-password', true)));
      assert.equal(refused?.type, 0x0111);
      assert.equal(attribute(refused as NonNullable<typeof refused>, ATTRIBUTE.errorCode)?.readUInt8(3), 1);
      const stranger = parseStun(await ask(check('else', 'brws', 'our-password-of-22-chars', true)));
      assert.equal(stranger?.type, 0x0111);

      const nominated = parseStun(await ask(check('sw1t', 'brws', 'our-password-of-22-chars', true)));
      assert.equal(nominated?.type, 0x0101);
      assert.equal(agent.consentValid(), true);
      now += CONSENT_TIMEOUT_MS - 1;
      assert.equal(agent.consentValid(), true);
      now += 2;
      assert.equal(agent.consentValid(), false, 'consent lapses 30 s after the last check (RFC 7675)');
    } finally {
      ours.close();
      peer.close();
    }
  });
});

/**
 * DTLS-SRTP between two associations over real UDP sockets on loopback: the handshake completes,
 * each side checks the other's certificate against its fingerprint, both derive crossing SRTP keys
 * that our SRTP sessions accept; a wrong fingerprint fails the association.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { describe, it } from 'node:test';
import { SrtpSession } from '../srtp/srtp-session.js';
import { certificateFingerprint, DtlsSrtpAssociation, generateDtlsCertificate } from './dtls-srtp.js';

async function socketPair(): Promise<[dgram.Socket, dgram.Socket]> {
  const a = dgram.createSocket('udp4');
  const b = dgram.createSocket('udp4');
  await Promise.all([new Promise<void>((r) => a.bind(0, '127.0.0.1', r)), new Promise<void>((r) => b.bind(0, '127.0.0.1', r))]);
  return [a, b];
}

function associate(
  socket: dgram.Socket,
  peerPort: number,
  role: 'client' | 'server',
  certificate: Awaited<ReturnType<typeof generateDtlsCertificate>>,
  remoteFingerprint: string,
) {
  const association = new DtlsSrtpAssociation({
    role,
    certificate,
    remoteFingerprint,
    path: { send: (datagram) => socket.send(datagram, peerPort, '127.0.0.1') },
  });
  socket.on('message', (datagram) => association.receive(datagram));
  return association;
}

describe('DTLS-SRTP (RFC 5764)', () => {
  it('handshakes over loopback, checks fingerprints and keys SRTP both ways', { timeout: 20_000 }, async () => {
    const [a, b] = await socketPair();
    const [ca, cb] = await Promise.all([generateDtlsCertificate(), generateDtlsCertificate()]);
    assert.match(certificateFingerprint(ca.certPem), /^sha-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const server = associate(a, b.address().port, 'server', ca, certificateFingerprint(cb.certPem));
    const client = associate(b, a.address().port, 'client', cb, certificateFingerprint(ca.certPem));
    try {
      const [s, c] = await Promise.all([server.establish(), client.establish()]);
      assert.ok(s.ok && c.ok, JSON.stringify([s, c]));
      assert.equal(s.srtp.suite, c.srtp.suite);
      assert.equal(s.srtp.localMasterKey, c.srtp.remoteMasterKey);
      assert.equal(s.srtp.remoteMasterKey, c.srtp.localMasterKey);
      const session = (keys: typeof s.srtp) =>
        new SrtpSession({
          suite: keys.suite,
          localMasterKey: Buffer.from(keys.localMasterKey, 'base64'),
          remoteMasterKey: Buffer.from(keys.remoteMasterKey, 'base64'),
        });
      const packet = Buffer.alloc(172, 7);
      packet[0] = 0x80;
      const back = session(c.srtp).unprotectRtp(session(s.srtp).protectRtp(packet));
      assert.ok(back.ok);
      assert.deepEqual(back.packet, packet);
    } finally {
      server.close();
      client.close();
      a.close();
      b.close();
    }
  });

  it('fails when the certificate does not match the announced fingerprint', { timeout: 20_000 }, async () => {
    const [a, b] = await socketPair();
    const [ca, cb, other] = await Promise.all([generateDtlsCertificate(), generateDtlsCertificate(), generateDtlsCertificate()]);
    const server = associate(a, b.address().port, 'server', ca, certificateFingerprint(other.certPem));
    const client = associate(b, a.address().port, 'client', cb, certificateFingerprint(ca.certPem));
    try {
      const [outcome] = await Promise.all([server.establish(), client.establish()]);
      assert.deepEqual(outcome, { ok: false, reason: "the peer's certificate does not match its a=fingerprint" });
    } finally {
      server.close();
      client.close();
      a.close();
      b.close();
    }
  });
});

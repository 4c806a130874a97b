import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SipParseError } from '../errors.js';
import { parseNameAddr } from './name-addr.js';
import { parseSipUri, parseUri, SipUri } from './uri.js';
import { parseVia } from './via.js';

describe('SIP URI (RFC 3261 §19.1)', () => {
  it('parses user, password, host, port, parameters and headers', () => {
    const uri = parseSipUri('sip:alice:secretword@atlanta.com;transport=tcp;lr?subject=project%20x&priority=urgent');
    assert.equal(uri.scheme, 'sip');
    assert.equal(uri.user, 'alice');
    assert.equal(uri.password, 'secretword');
    assert.equal(uri.host, 'atlanta.com');
    assert.equal(uri.port, undefined);
    assert.equal(uri.params.get('transport'), 'tcp');
    assert.equal(uri.params.get('lr'), null);
    assert.equal(uri.headers, 'subject=project%20x&priority=urgent');
    assert.equal(uri.toString(), 'sip:alice:secretword@atlanta.com;transport=tcp;lr?subject=project%20x&priority=urgent');
  });

  it('parses sips:, a user with parameters inside, and a port', () => {
    const uri = parseSipUri('SIPS:+1-212-555-1212;npdi=yes@gateway.com:5061;user=phone');
    assert.equal(uri.scheme, 'sips');
    assert.equal(uri.user, '+1-212-555-1212;npdi=yes');
    assert.equal(uri.port, 5061);
    assert.equal(uri.params.get('user'), 'phone');
  });

  it('percent-decodes the user part and re-escapes what must be escaped', () => {
    const uri = parseSipUri('sip:%61lice%20smith@example.com');
    assert.equal(uri.user, 'alice smith');
    assert.equal(uri.toString(), 'sip:alice%20smith@example.com');
    assert.equal(new SipUri({ user: 'ü@x', host: 'h' }).toString(), 'sip:%C3%BC%40x@h');
  });

  it('parses IPv4 and IPv6 hosts', () => {
    assert.equal(parseSipUri('sip:192.0.2.4:5070').hostport, '192.0.2.4:5070');
    const v6 = parseSipUri('sip:bob@[2001:DB8::1]:5080;maddr=[2001:db8::2]');
    assert.equal(v6.host, '2001:db8::1');
    assert.equal(v6.isIPv6, true);
    assert.equal(v6.params.get('maddr'), '[2001:db8::2]');
    assert.equal(v6.toString(), 'sip:bob@[2001:db8::1]:5080;maddr=[2001:db8::2]');
  });

  it('keeps other schemes opaque', () => {
    const tel = parseUri('tel:+15551234567;phone-context=example.com');
    assert.equal(tel.kind, 'absolute');
    assert.equal(tel.kind === 'absolute' ? tel.telephoneNumber : '', '+15551234567');
    assert.equal(tel.toString(), 'tel:+15551234567;phone-context=example.com');
  });

  for (const bad of [
    'alice@example.com',
    'sip:',
    'sip:@host',
    'sip:alice@',
    'sip:alice@host:99999',
    'sip:alice@host:12a',
    'sip:alice@[::1',
    'sip:alice@[zz::1]',
    'sip:al%ZZice@host',
    'sip:alice@ho st',
    'sip:alice@host;',
    '1sip:x',
    'tel:',
  ]) {
    it(`refuses ${JSON.stringify(bad)} with SipParseError`, () => {
      assert.throws(() => parseUri(bad), SipParseError);
    });
  }
});

describe('name-addr (RFC 3261 §20.10)', () => {
  it('reads a quoted display name, URI parameters inside <> and header parameters outside', () => {
    const value = parseNameAddr('"A. G. Bell" <sip:agb@bell-telephone.com;transport=udp> ;tag=387s;expires=60');
    assert.equal(value.displayName, 'A. G. Bell');
    assert.equal(value.uri.kind === 'sip' ? value.uri.params.get('transport') : '', 'udp');
    assert.equal(value.tag, '387s');
    assert.equal(value.params.get('expires'), '60');
  });

  it('reads an unquoted display name and the addr-spec form', () => {
    assert.equal(parseNameAddr('Anonymous   User <sip:c8oqz84zk7z@privacy.org>').displayName, 'Anonymous User');
    const bare = parseNameAddr('sip:+12125551212@server.phone2net.com;tag=887s');
    assert.equal(bare.displayName, undefined);
    assert.equal(bare.tag, '887s');
    assert.equal(bare.uri.toString(), 'sip:+12125551212@server.phone2net.com');
  });

  it('writes display names quoted and escaped', () => {
    const value = parseNameAddr('"Say \\"hi\\"" <sip:a@b>;tag=1');
    assert.equal(value.toString(), '"Say \\"hi\\"" <sip:a@b>;tag=1');
    assert.equal(parseNameAddr(value.toString()).displayName, 'Say "hi"');
  });

  for (const bad of ['"unterminated <sip:a@b>', '<sip:a@b', '"x" sip:a@b', 'Bad@Name <sip:a@b>', '<sip:a@b>;=x', '<>']) {
    it(`refuses ${JSON.stringify(bad)} with SipParseError`, () => {
      assert.throws(() => parseNameAddr(bad), SipParseError);
    });
  }
});

describe('Via (RFC 3261 §20.42)', () => {
  it('reads sent-protocol with spaces, sent-by and parameters', () => {
    const via = parseVia('SIP / 2.0 / udp first.example.com: 4000;ttl=16;maddr=224.2.0.1;branch=z9hG4bKa7c6a8dlze.1');
    assert.equal(via.transport, 'UDP');
    assert.equal(via.host, 'first.example.com');
    assert.equal(via.port, 4000);
    assert.equal(via.maddr, '224.2.0.1');
    assert.equal(via.branch, 'z9hG4bKa7c6a8dlze.1');
    assert.equal(via.toString(), 'SIP/2.0/UDP first.example.com:4000;ttl=16;maddr=224.2.0.1;branch=z9hG4bKa7c6a8dlze.1');
  });

  it('distinguishes an rport request from a filled rport', () => {
    assert.equal(parseVia('SIP/2.0/UDP h;rport').rport, null);
    assert.equal(parseVia('SIP/2.0/UDP h;rport=5066').rport, 5066);
    assert.equal(parseVia('SIP/2.0/UDP h').rport, undefined);
  });

  it('reads a Via of another SIP version, so a 505 can be routed back (RFC 4475 §3.1.2.16)', () => {
    assert.equal(parseVia('SIP/7.0/UDP host:5070;branch=z9hG4bKx').port, 5070);
  });

  for (const bad of [
    'SIP/2.0 host',
    'XMPP/2.0/UDP host',
    'SIP/x.0/UDP host',
    'SIP/2.0/UDP',
    'SIP/2.0/UDP host:port',
    'SIP/2.0/UDP [::1;branch=x',
  ]) {
    it(`refuses ${JSON.stringify(bad)} with SipParseError`, () => {
      assert.throws(() => parseVia(bad), SipParseError);
    });
  }
});

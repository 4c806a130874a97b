import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalNetworks, withExternalPort } from './local-net.js';

describe('local_net and external_signaling_port', () => {
  it('shows the external address only to peers outside the local networks', () => {
    const nets = LocalNetworks.of(['192.168.0.0/16', '10.0.0.0/8']);
    assert.equal(nets.externalFor('203.0.113.10', '192.168.1.20'), undefined);
    assert.equal(nets.externalFor('203.0.113.10', '198.51.100.7'), '203.0.113.10');
    assert.equal(LocalNetworks.of(undefined).externalFor(undefined, '198.51.100.7'), undefined);
  });

  it('writes the external port in the headers only', () => {
    const message = Buffer.from(
      'INVITE sip:bob@198.51.100.7 SIP/2.0\r\nVia: SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bK1\r\nContact: <sip:203.0.113.10:5060>\r\n\r\nv=0\r\nc=IN IP4 203.0.113.10:5060\r\n',
    );
    const rewritten = withExternalPort(message, '203.0.113.10', 5060, 15060).toString();
    assert.match(rewritten, /Via: SIP\/2.0\/UDP 203\.0\.113\.10:15060;/);
    assert.match(rewritten, /Contact: <sip:203\.0\.113\.10:15060>/);
    assert.match(rewritten, /c=IN IP4 203\.0\.113\.10:5060/, 'the body is left alone');
    assert.equal(withExternalPort(message, undefined, 5060, 15060), message, 'a local peer keeps the bound port');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiateAnswer, negotiateOffer } from './sdp.js';

const sdp = (mLines: string[]): string =>
  ['v=0', 'o=- 1 1 IN IP4 192.0.2.10', 's=-', 'c=IN IP4 192.0.2.10', 't=0 0', ...mLines, ''].join('\r\n');

describe('SDP fields that look like numbers (sdp-transform converts them)', () => {
  it('refuses a numeric media protocol with 488, not a TypeError', () => {
    const outcome = negotiateOffer(sdp(['m=audio 45000 123 0']), ['PCMU']);
    assert.equal(outcome.ok, false);
    assert.equal(!outcome.ok && outcome.status, 488);
  });

  it('refuses a numeric rtpmap encoding name with 488', () => {
    const outcome = negotiateOffer(sdp(['m=audio 45000 RTP/AVP 0', 'a=rtpmap:0 1234/8000']), ['PCMU']);
    assert.equal(!outcome.ok && outcome.status, 488);
  });

  it('refuses numeric media types, fmtp and feedback values and a port that is not a number', () => {
    for (const lines of [
      ['m=123 45000 RTP/AVP 0'],
      ['m=audio x RTP/AVP 0'],
      ['m=video 45000 RTP/AVPF 96', 'a=rtpmap:96 5/90000', 'a=fmtp:96 7', 'a=rtcp-fb:96 1 2'],
    ]) {
      const outcome = negotiateOffer(sdp(lines), ['PCMU'], ['H264', 'VP8']);
      assert.equal(!outcome.ok && outcome.status, 488, lines.join(' | '));
    }
  });

  it('reads an answer with numeric fields as having no codec we offered', () => {
    const outcome = negotiateAnswer(sdp(['m=audio 45000 9 0', 'a=rtpmap:0 77/8000']), ['PCMU']);
    assert.equal(outcome.ok, false);
  });
});

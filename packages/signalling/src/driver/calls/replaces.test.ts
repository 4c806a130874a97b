import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseUri, type SipUri } from '../../message/uri.js';
import { parseReplaces, replacesFromUri, replacesMatches } from './replaces.js';
import { parseReferTo } from './transfer.js';

const sipUri = (text: string): SipUri => {
  const uri = parseUri(text);
  assert.equal(uri.kind, 'sip');
  return uri as SipUri;
};

describe('Replaces (RFC 3891)', () => {
  it('parses the Call-ID, both tags and early-only, in any order and case', () => {
    assert.deepEqual(parseReplaces('425928@bobster.example.org;to-tag=7743;from-tag=6472'), {
      callId: '425928@bobster.example.org',
      toTag: '7743',
      fromTag: '6472',
      earlyOnly: false,
    });
    assert.deepEqual(parseReplaces('abc ; From-Tag=b ; early-only ; TO-TAG=a;x=y'), {
      callId: 'abc',
      toTag: 'a',
      fromTag: 'b',
      earlyOnly: true,
    });
  });

  it('refuses a Replaces without the Call-ID or a tag (§6.1)', () => {
    assert.equal(parseReplaces(''), undefined);
    assert.equal(parseReplaces(';to-tag=a;from-tag=b'), undefined);
    assert.equal(parseReplaces('abc;to-tag=a'), undefined);
    assert.equal(parseReplaces('abc;from-tag=b;to-tag='), undefined);
  });

  it('reads the escaped Replaces header of a Refer-To URI (RFC 5589 §7)', () => {
    const uri = sipUri('sip:carol@example.com?Replaces=second%2F%2F%2F1-2%40h%3Bto-tag%3Dus%3Bfrom-tag%3Dthem&Require=replaces');
    assert.deepEqual(replacesFromUri(uri), {
      kind: 'replaces',
      target: { callId: 'second///1-2@h', toTag: 'us', fromTag: 'them', earlyOnly: false },
    });
    assert.deepEqual(replacesFromUri(sipUri('sip:carol@example.com')), { kind: 'none' });
    assert.deepEqual(replacesFromUri(sipUri('sip:carol@example.com?Subject=hi')), { kind: 'none' });
    assert.deepEqual(replacesFromUri(sipUri('sip:carol@example.com?Replaces=abc%3Bto-tag%3Dx')), { kind: 'malformed' });
    assert.deepEqual(replacesFromUri(sipUri('sip:carol@example.com?Replaces=%E0%A4%A')), { kind: 'malformed' });
  });

  it('matches a dialog by Call-ID, our tag as to-tag and the far tag as from-tag (§3)', () => {
    const dialog = { callId: 'c1', localTag: 'ours', remoteTag: 'theirs' };
    const target = { callId: 'c1', toTag: 'ours', fromTag: 'theirs', earlyOnly: false };
    assert.equal(replacesMatches(target, dialog), true);
    assert.equal(replacesMatches({ ...target, toTag: 'theirs', fromTag: 'ours' }, dialog), false);
    assert.equal(replacesMatches({ ...target, callId: 'C1' }, dialog), false);
    assert.equal(replacesMatches({ ...target, fromTag: 'other' }, dialog), false);
  });
});

describe('Refer-To (RFC 3515 §2.4.1)', () => {
  it('tells a blind transfer from an attended one and refuses the unusable', () => {
    assert.deepEqual(parseReferTo(['<sip:200@pbx.example.com>']), { kind: 'blind', exten: '200' });
    assert.deepEqual(parseReferTo(['sip:200@pbx.example.com']), { kind: 'blind', exten: '200' });
    assert.deepEqual(parseReferTo(['"Carol" <sip:carol@pbx?Replaces=c2%3Bto-tag%3Da%3Bfrom-tag%3Db>']), {
      kind: 'attended',
      replaces: { callId: 'c2', toTag: 'a', fromTag: 'b', earlyOnly: false },
    });
    assert.equal(parseReferTo([]).kind, 'bad');
    assert.equal(parseReferTo(['<sip:200@a>', '<sip:201@a>']).kind, 'bad');
    assert.equal(parseReferTo(['<tel:+15551234>']).kind, 'bad');
    assert.equal(parseReferTo(['<sip:pbx.example.com>']).kind, 'bad');
    assert.equal(parseReferTo(['<sip:x@pbx?Replaces=c2>']).kind, 'bad');
    assert.equal(parseReferTo(['<<<']).kind, 'bad');
  });
});

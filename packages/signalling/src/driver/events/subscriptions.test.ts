import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dialogInfoBody, messageSummaryBody, pidfBody } from './subscriptions.js';

describe('event package bodies', () => {
  it('message-summary (RFC 3842 §5.2)', () => {
    assert.equal(
      messageSummaryBody({ newMessages: 2, oldMessages: 8 }, 'sip:alice@pbx'),
      'Messages-Waiting: yes\r\nMessage-Account: sip:alice@pbx\r\nVoice-Message: 2/8 (0/0)\r\n',
    );
    assert.match(messageSummaryBody({ newMessages: 0, oldMessages: 3 }, 'sip:a@b'), /^Messages-Waiting: no\r\n/);
  });

  it('dialog-info (RFC 4235): early when ringing, confirmed when in use, no dialog when idle', () => {
    assert.match(dialogInfoBody('sip:bob@pbx', 0, 'RINGING', 'SIP/bob'), /<state>early<\/state>/);
    assert.match(dialogInfoBody('sip:bob@pbx', 1, 'INUSE', 'SIP/bob'), /version="1" state="full".*\r\n.*<state>confirmed<\/state>/s);
    assert.doesNotMatch(dialogInfoBody('sip:bob@pbx', 2, 'NOT_INUSE', 'SIP/bob'), /<dialog /);
  });

  it('PIDF (RFC 3863): open with a note, closed when unavailable; the entity is escaped', () => {
    assert.match(pidfBody('sip:bob@pbx', 'INUSE', 'SIP/bob'), /<basic>open<\/basic>[\s\S]*<note>On the phone<\/note>/);
    assert.match(pidfBody('sip:bob@pbx', 'UNAVAILABLE', 'SIP/bob'), /<basic>closed<\/basic>/);
    assert.match(pidfBody('sip:"x"<y>@pbx', 'NOT_INUSE', 'App:x'), /entity="sip:&#34;x&#34;&#60;y&#62;@pbx"/);
  });
});

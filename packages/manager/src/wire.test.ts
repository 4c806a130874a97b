import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMessage, MessageDecoder } from './wire.js';

describe('manager framing', () => {
  it('splits messages on blank lines, across chunks, with CRLF or LF, keeping repeated headers', () => {
    const decoder = new MessageDecoder();
    const first = decoder.push(Buffer.from('Action: Originate\r\nVariable: A=1\r\nvariable: B=2\r\nActi'));
    assert.equal(first.messages.length, 0);
    const second = decoder.push(Buffer.from('onID: 7\r\n\r\n\r\nAction: Ping\n\n'));
    assert.equal(second.messages.length, 2);
    const [originate, ping] = second.messages;
    assert.equal(originate?.get('action'), 'Originate');
    assert.deepEqual(originate?.getAll('VARIABLE'), ['A=1', 'B=2']);
    assert.equal(originate?.get('ActionID'), '7');
    assert.equal(ping?.get('Action'), 'Ping');
  });

  it('keeps everything after the first colon and drops one run of leading spaces', () => {
    const { messages } = new MessageDecoder().push(Buffer.from('Filter:   Event: Newchannel\r\nNoColonHere\r\n\r\n'));
    assert.equal(messages[0]?.get('Filter'), 'Event: Newchannel');
    assert.equal(messages[0]?.get('NoColonHere'), '');
  });

  it('reports an oversized line, even one that never ends, and too many headers', () => {
    const long = new MessageDecoder({ maxLineBytes: 10, maxHeaders: 5 });
    assert.equal(long.push(Buffer.from('Action: Ping-and-more\r\n\r\n')).problem, 'line-too-long');
    const endless = new MessageDecoder({ maxLineBytes: 10, maxHeaders: 5 });
    assert.equal(endless.push(Buffer.from('x'.repeat(50))).problem, 'line-too-long');
    const many = new MessageDecoder({ maxLineBytes: 100, maxHeaders: 2 });
    assert.equal(many.push(Buffer.from('A: 1\r\nB: 2\r\nC: 3\r\n\r\n')).problem, 'too-many-headers');
  });

  it('writes CRLF lines ended by a blank line and never lets a value break a line', () => {
    assert.equal(
      formatMessage([
        ['Response', 'Success'],
        ['Message', 'two\r\nlines\nInjected: yes'],
      ]),
      'Response: Success\r\nMessage: two lines Injected: yes\r\n\r\n',
    );
  });
});

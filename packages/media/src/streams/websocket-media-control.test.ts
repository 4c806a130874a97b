import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMediaEvent, parseMediaCommand } from './websocket-media-control.js';

describe('WebSocket media control messages', () => {
  it('reads plain-text commands, their argument, and nothing else', () => {
    assert.deepEqual(parseMediaCommand('STOP_MEDIA_BUFFERING 61ea'), { command: 'STOP_MEDIA_BUFFERING', correlationId: '61ea' });
    assert.deepEqual(parseMediaCommand('MARK_MEDIA'), { command: 'MARK_MEDIA' });
    assert.deepEqual(parseMediaCommand('SET_MEDIA_DIRECTION in'), { command: 'SET_MEDIA_DIRECTION', direction: 'in' });
    assert.deepEqual(parseMediaCommand('SET_MEDIA_DIRECTION direction:out'), { command: 'SET_MEDIA_DIRECTION', direction: 'out' });
    assert.equal(parseMediaCommand('SET_MEDIA_DIRECTION sideways'), undefined);
    assert.equal(parseMediaCommand('SET_MEDIA_DIRECTION'), undefined);
    assert.equal(parseMediaCommand('DANCE'), undefined);
    assert.equal(parseMediaCommand('{"command":"HANGUP"}'), undefined, 'JSON is not a plain-text command');
  });

  it('reads JSON commands; malformed or unknown frames are ignored', () => {
    assert.deepEqual(parseMediaCommand('{"command":"STOP_MEDIA_BUFFERING","correlation_id":"x1"}', 'json'), {
      command: 'STOP_MEDIA_BUFFERING',
      correlationId: 'x1',
    });
    assert.deepEqual(parseMediaCommand('{\n  "command": "SET_MEDIA_DIRECTION",\n  "direction": "both"\n}', 'json'), {
      command: 'SET_MEDIA_DIRECTION',
      direction: 'both',
    });
    assert.deepEqual(parseMediaCommand('{"command":"HANGUP"}', 'json'), { command: 'HANGUP' });
    for (const bad of ['HANGUP', '{"command":', '[]', 'null', '{"command":7}', '{"command":"NOPE"}', '{"command":"SET_MEDIA_DIRECTION"}']) {
      assert.equal(parseMediaCommand(bad, 'json'), undefined, bad);
    }
  });

  it('writes each event in either format; only JSON carries channel_id everywhere and the channel variables', () => {
    const start = {
      event: 'MEDIA_START' as const,
      start: {
        connectionId: 'c1',
        channel: 'WebSocket/c1-1',
        channelId: 'id1',
        format: 'slin16',
        frameBytes: 640,
        ptimeMs: 20,
        channelVariables: { A: 'b c' },
      },
    };
    assert.equal(
      formatMediaEvent(start, 'plain-text', 'id1'),
      'MEDIA_START connection_id:c1 channel:WebSocket/c1-1 channel_id:id1 format:slin16 optimal_frame_size:640 ptime:20',
    );
    assert.deepEqual(JSON.parse(formatMediaEvent(start, 'json', 'id1')).channel_variables, { A: 'b c' });
    assert.equal(formatMediaEvent({ event: 'MEDIA_XOFF' }, 'plain-text', 'id1'), 'MEDIA_XOFF');
    assert.deepEqual(JSON.parse(formatMediaEvent({ event: 'MEDIA_XON' }, 'json', 'id1')), { event: 'MEDIA_XON', channel_id: 'id1' });
    assert.equal(formatMediaEvent({ event: 'MEDIA_MARK_PROCESSED', correlationId: 'm' }, 'plain-text', 'id1'), 'MEDIA_MARK_PROCESSED m');
    assert.deepEqual(JSON.parse(formatMediaEvent({ event: 'QUEUE_DRAINED' }, 'json', 'id1')), {
      event: 'QUEUE_DRAINED',
      channel_id: 'id1',
    });
    assert.equal(formatMediaEvent({ event: 'DTMF_END', digit: '#' }, 'plain-text', 'id1'), 'DTMF_END digit:#');
    assert.deepEqual(JSON.parse(formatMediaEvent({ event: 'DTMF_END', digit: '#' }, 'json', 'id1')), {
      event: 'DTMF_END',
      channel_id: 'id1',
      digit: '#',
    });
  });
});

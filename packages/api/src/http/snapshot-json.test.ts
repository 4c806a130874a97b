import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dialectOf } from '../dialect/dialect.js';
import { SnapshotJson } from './snapshot-json.js';

const SPEC = dialectOf('switchboard');
const CLASSIC = dialectOf('asterisk');

const snapshot = (id: string, state = 'Up') =>
  Object.freeze({
    id,
    protocol_id: '',
    name: `SIP/alice-${id}`,
    state,
    caller: Object.freeze({ name: '', number: '100' }),
    connected: Object.freeze({ name: '', number: '' }),
    accountcode: '',
    dialplan: Object.freeze({ context: 'in', exten: '100', priority: 1, app_name: '', app_data: '' }),
    creationtime: '2026-11-24T06:00:00.000+0000',
    language: 'en',
  });

describe('SnapshotJson (answer bodies kept between requests)', () => {
  it('answers a list of the same snapshots with the same bytes, and a changed list anew', () => {
    const json = new SnapshotJson();
    const a = snapshot('1');
    const b = snapshot('2');
    const first = json.listBody([a, b], 'Channel', SPEC);
    assert.deepEqual(JSON.parse(first.toString()), [a, b]);
    assert.equal(json.listBody([a, b], 'Channel', SPEC), first, 'the same snapshots: the same bytes');
    const changed = snapshot('2', 'Ring');
    const second = json.listBody([a, changed], 'Channel', SPEC);
    assert.notEqual(second, first);
    assert.deepEqual(JSON.parse(second.toString()), [a, changed]);
    assert.deepEqual(JSON.parse(json.listBody([], 'Channel', SPEC).toString()), []);
  });

  it('writes each dialect in its own names', () => {
    const json = new SnapshotJson();
    const a = snapshot('1');
    assert.equal(JSON.parse(json.listBody([a], 'Channel', SPEC).toString())[0].name, 'SIP/alice-1');
    assert.equal(JSON.parse(json.listBody([a], 'Channel', CLASSIC).toString())[0].name, 'PJSIP/alice-1');
    assert.equal(JSON.parse(json.body(a, 'Channel', CLASSIC).toString()).name, 'PJSIP/alice-1');
    assert.equal(JSON.parse(json.body(a, 'Channel', SPEC).toString()).name, 'SIP/alice-1');
  });

  it('serialises a snapshot that is not frozen every time', () => {
    const json = new SnapshotJson();
    const open: { id: string; state: string } = { id: '1', state: 'Ring' };
    assert.equal(JSON.parse(json.body(open, 'Channel', SPEC).toString()).state, 'Ring');
    open.state = 'Up';
    assert.equal(JSON.parse(json.body(open, 'Channel', SPEC).toString()).state, 'Up');
    assert.equal(JSON.parse(json.listBody([open], 'Channel', SPEC).toString())[0].state, 'Up');
    open.state = 'Down';
    assert.equal(JSON.parse(json.listBody([open], 'Channel', SPEC).toString())[0].state, 'Down');
  });
});

/**
 * Call detail records against the real process: an answered, a busy and an unanswered Dial()
 * from the local phone to sipp callees, then the `cdr` rows in SQLite and Master.csv compared
 * with the calls field by field (cdr.conf with [csv] loguniqueid and loguserfield). The store is
 * read after the server stopped, which also proves the batched writes are flushed at shutdown.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';

const DIALPLAN = `
exten => 300,1,Set(CDR(userfield)=answered-call)
 same => n,Dial(SIP/answerer,10)
 same => n,Hangup()
exten => 301,1,Dial(SIP/busybody,10)
 same => n,Hangup(\${IF($["\${DIALSTATUS}" = "BUSY"]?17:19)})
exten => 302,1,Dial(SIP/sleeper,2)
 same => n,Hangup(19)
exten => 303,1,NoCDR()
 same => n,Hangup(19)
`;

interface CdrRow {
  accountcode: string;
  src: string;
  dst: string;
  dcontext: string;
  clid: string;
  channel: string;
  dstchannel: string;
  lastapp: string;
  lastdata: string;
  start: string;
  answer: string | null;
  end: string;
  duration: number;
  billsec: number;
  disposition: string;
  amaflags: string;
  uniqueid: string;
  linkedid: string;
  userfield: string;
  peeraccount: string;
  sequence: number;
}

/** A quoted-CSV line as Master.csv writes it (numbers bare). */
function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  const re = /"((?:[^"]|"")*)"|([^,]*)/y;
  let pos = 0;
  while (pos <= line.length) {
    re.lastIndex = pos;
    const m = re.exec(line);
    if (!m) break;
    fields.push(m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]);
    pos = re.lastIndex + 1;
  }
  return fields;
}

const pad = (n: number) => String(n).padStart(2, '0');
const localTime = (iso: string | null) => {
  if (iso === null) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

describe('CDRs of answered, busy and unanswered calls', () => {
  let sb: RunningSwitchboard;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });
  const ports = { answerer: 0, busybody: 0, sleeper: 0 };

  before(async () => {
    ports.answerer = await freePort('udp');
    ports.busybody = await freePort('udp');
    ports.sleeper = await freePort('udp');
    const callee = (name: string, port: number) =>
      `\n[${name}]\ntype = endpoint\ncontext = from-internal\nallow = ulaw\naors = ${name}\naccountcode = acct-${name}\n\n[${name}]\ntype = aor\ncontact = sip:${name}@127.0.0.1:${port}\n`;
    sb = await startSwitchboard({
      dialplan: DIALPLAN,
      endpointLines: ['accountcode = front-desk', 'callerid = "Front Desk" <1000>'],
      extraFiles: {
        'cdr.conf':
          '[general]\nenable = yes\nunanswered = no\nbatch = yes\nsize = 50\ntime = 1\n\n[csv]\nloguniqueid = yes\nloguserfield = yes\n',
      },
    });
    const pjsip = readFileSync(join(sb.confDir, 'pjsip.conf'), 'utf8');
    writeFileSync(
      join(sb.confDir, 'pjsip.conf'),
      pjsip + callee('answerer', ports.answerer) + callee('busybody', ports.busybody) + callee('sleeper', ports.sleeper),
    );
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  it('writes one row per call into SQLite and Master.csv, field by field', { timeout: 90_000 }, async () => {
    const answering = runSipp('uas-answer-bye.xml', target(), {
      service: 'answerer',
      keys: { rtpport: 4300 },
      extra: ['-p', String(ports.answerer)],
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const answered = await runSipp('uac-wait-bye.xml', target(), { service: '300', keys: { rtpport: 4302 } });
    assert.equal(answered.code, 0, answered.stdout.slice(-2000));
    assert.equal((await answering).code, 0);

    const busy = runSipp('uas-busy.xml', target(), { service: 'busybody', extra: ['-p', String(ports.busybody)] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await runSipp('uac-busy.xml', target(), { service: '301', keys: { rtpport: 4304 } });
    assert.equal(refused.code, 0, refused.stdout.slice(-2000));
    assert.equal((await busy).code, 0);

    const ringing = runSipp('uas-ring-cancel.xml', target(), { service: 'sleeper', extra: ['-p', String(ports.sleeper)] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const unanswered = await runSipp('uac-unavailable.xml', target(), { service: '302', keys: { rtpport: 4306 } });
    assert.equal(unanswered.code, 0, unanswered.stdout.slice(-2000));
    assert.equal((await ringing).code, 0);

    const nocdr = await runSipp('uac-unavailable.xml', target(), { service: '303', keys: { rtpport: 4308 } });
    assert.equal(nocdr.code, 0, nocdr.stdout.slice(-2000));

    // Stopped by hand (stop() would delete the data directory): shutdown flushes the batch.
    const exited = new Promise<number | null>((resolve) => sb.process.once('exit', (exitCode) => resolve(exitCode)));
    sb.process.kill('SIGTERM');
    assert.equal(await exited, 0);
    const db = new Database(join(sb.dataDir, 'switchboard.db'), { readonly: true });
    const rows = db.prepare('SELECT * FROM cdr ORDER BY id').all() as CdrRow[];
    db.close();
    assert.equal(rows.length, 3, JSON.stringify(rows));
    const [a, b, c] = rows;

    for (const row of rows) {
      assert.equal(row.accountcode, 'front-desk');
      assert.equal(row.src, '1000');
      assert.equal(row.clid, '"Front Desk" <1000>');
      assert.equal(row.dcontext, 'from-internal');
      assert.match(row.channel, /^SIP\/local-phone-/);
      assert.equal(row.amaflags, 'DOCUMENTATION');
      assert.equal(row.linkedid, row.uniqueid);
      assert.ok(new Date(row.end) >= new Date(row.start));
    }
    assert.deepEqual([a.dst, b.dst, c.dst], ['300', '301', '302']);
    assert.deepEqual([a.disposition, b.disposition, c.disposition], ['ANSWERED', 'BUSY', 'NO ANSWER']);
    assert.match(a.dstchannel, /^SIP\/answerer-/);
    assert.match(b.dstchannel, /^SIP\/busybody-/);
    assert.match(c.dstchannel, /^SIP\/sleeper-/);
    assert.deepEqual([a.peeraccount, b.peeraccount, c.peeraccount], ['acct-answerer', 'acct-busybody', 'acct-sleeper']);
    assert.equal(a.lastapp, 'Dial');
    assert.equal(a.lastdata, 'SIP/answerer,10');
    assert.equal(b.lastapp, 'Hangup');
    assert.equal(a.userfield, 'answered-call');
    assert.ok(a.answer !== null && a.billsec >= 1, `billsec ${a.billsec}`);
    assert.equal(b.answer, null);
    assert.equal(b.billsec, 0);
    assert.ok(c.duration >= 2, `the unanswered call rang for the Dial timeout (${c.duration}s)`);
    assert.ok(a.sequence < b.sequence && b.sequence < c.sequence);

    const csv = readFileSync(join(sb.dataDir, 'log', 'cdr-csv', 'Master.csv'), 'utf8')
      .trim()
      .split('\n');
    assert.equal(csv.length, rows.length);
    csv.forEach((line, i) => {
      const row = rows[i];
      assert.deepEqual(parseCsvLine(line), [
        row.accountcode,
        row.src,
        row.dst,
        row.dcontext,
        row.clid,
        row.channel,
        row.dstchannel,
        row.lastapp,
        row.lastdata,
        localTime(row.start),
        localTime(row.answer),
        localTime(row.end),
        String(row.duration),
        String(row.billsec),
        row.disposition,
        row.amaflags,
        row.uniqueid,
        row.userfield,
      ]);
    });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../errors.js';
import { lastOption, optionValues, parseIni } from './ini.js';
import { memoryFiles } from './test-support.js';

const FILE = '/conf/test.conf';

function errorAt(fn: () => unknown, file: string, line: number, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    assert.equal(err.file, file);
    assert.equal(err.line, line);
    assert.match(err.message, pattern);
    return true;
  });
}

describe('parseIni', () => {
  it('reads sections, options, arrows and trims whitespace', () => {
    const doc = parseIni('[general]\n  enabled =  yes  \n\n[ctx]\nexten => 100,1,Answer()\nsame=>n,Hangup()\n', FILE);
    assert.deepEqual(
      doc.sections.map((s) => s.name),
      ['general', 'ctx'],
    );
    const [general, ctx] = doc.sections;
    assert.deepEqual(general.options[0], { key: 'enabled', rawKey: 'enabled', value: 'yes', arrow: false, file: FILE, line: 2 });
    assert.equal(ctx.options[0].arrow, true);
    assert.equal(ctx.options[0].value, '100,1,Answer()');
    assert.equal(ctx.options[1].key, 'same');
    assert.equal(ctx.options[1].arrow, true);
    assert.equal(ctx.options[1].value, 'n,Hangup()');
    assert.equal(ctx.line, 4);
  });

  it('ignores a byte-order mark and CRLF line ends', () => {
    const doc = parseIni('\uFEFF[s]\r\na = 1\r\n', FILE);
    assert.equal(doc.sections[0].name, 's');
    assert.deepEqual(optionValues(doc.sections[0], 'a'), ['1']);
  });

  it('keeps values containing = and lower-cases keys for matching', () => {
    const doc = parseIni('[c]\nExten => 1,1,Set(A=b)\n', FILE);
    const option = doc.sections[0].options[0];
    assert.equal(option.key, 'exten');
    assert.equal(option.rawKey, 'Exten');
    assert.equal(option.value, '1,1,Set(A=b)');
  });

  it('strips comments but keeps escaped semicolons', () => {
    const doc = parseIni('; leading comment\n[s] ; trailing\npassword = a\\;b ; comment\nplain = x;y\n', FILE);
    assert.deepEqual(optionValues(doc.sections[0], 'password'), ['a;b']);
    assert.deepEqual(optionValues(doc.sections[0], 'plain'), ['x']);
  });

  it('skips block comments across lines', () => {
    const doc = parseIni('[s]\na = 1 ;-- start\nb = 2\nend --; c = 3\nd = 4\n', FILE);
    assert.deepEqual(
      doc.sections[0].options.map((o) => [o.key, o.value, o.line]),
      [
        ['a', '1', 2],
        ['c', '3', 4],
        ['d', '4', 5],
      ],
    );
  });

  it('keeps repeated keys and repeated section names in order', () => {
    const doc = parseIni(
      '[alice]\ntype=endpoint\nallow=ulaw\nallow=alaw\n[alice]\ntype=aor\nmax_contacts=1\n[alice-auth]\ntype=auth\n',
      FILE,
    );
    assert.deepEqual(
      doc.sections.map((s) => [s.name, lastOption(s, 'type')?.value]),
      [
        ['alice', 'endpoint'],
        ['alice', 'aor'],
        ['alice-auth', 'auth'],
      ],
    );
    assert.deepEqual(optionValues(doc.sections[0], 'allow'), ['ulaw', 'alaw']);
  });

  it('copies template options first, in template order, then the section’s own', () => {
    const doc = parseIni(
      ['[base](!)', 'a = 1', 'b = base', '[extra](!,base)', 'c = 3', '[other](!)', 'b = other', '[phone](extra,other)', 'b = own'].join(
        '\n',
      ),
      FILE,
    );
    const phone = doc.sections.find((s) => s.name === 'phone');
    assert.ok(phone);
    assert.equal(phone.isTemplate, false);
    assert.deepEqual(phone.templates, ['extra', 'other']);
    assert.deepEqual(
      phone.options.map((o) => `${o.key}=${o.value}`),
      ['a=1', 'b=base', 'c=3', 'b=other', 'b=own'],
    );
    // The last assignment wins for single-valued options.
    assert.equal(lastOption(phone, 'b')?.value, 'own');
    // Inherited options keep the line they were written on.
    assert.equal(phone.options[0].line, 2);
    assert.equal(phone.options[0].inheritedFrom, 'base');
    const extra = doc.sections.find((s) => s.name === 'extra');
    assert.equal(extra?.isTemplate, true);
  });

  it('appends to an earlier section with (+)', () => {
    const doc = parseIni('[a]\nx = 1\n[b]\n[a](+)\ny = 2\n', FILE);
    assert.equal(doc.sections.length, 2);
    assert.deepEqual(
      doc.sections[0].options.map((o) => o.key),
      ['x', 'y'],
    );
  });

  it('reports an unknown template with its line', () => {
    errorAt(() => parseIni('[a]\nx=1\n\n[b](nosuch)\n', FILE), FILE, 4, /unknown template 'nosuch'/);
  });

  it('reports lines that are neither section, option, comment nor directive', () => {
    errorAt(() => parseIni('[a]\nx = 1\nthis is not an option\n', FILE), FILE, 3, /expected 'key = value'/);
    errorAt(() => parseIni('[a\n', FILE), FILE, 1, /closing/);
    errorAt(() => parseIni('x = 1\n', FILE), FILE, 1, /before any \[section\]/);
    errorAt(() => parseIni('[a]\n = 1\n', FILE), FILE, 2, /without a name/);
    errorAt(() => parseIni('[a]\n#exec /bin/true\n', FILE), FILE, 2, /unsupported directive/);
  });

  it('follows #include relative to the including file and continues the current section', () => {
    const files = memoryFiles({
      '/conf/main.conf': '[s]\na = 1\n#include "sub/more.conf"\nb = 2\n',
      '/conf/sub/more.conf': 'inc = yes\n#include deeper.conf\n[t]\nt = 1\n',
      '/conf/sub/deeper.conf': 'deep = 1\n',
    });
    const doc = parseIni(files.readFile('/conf/main.conf') ?? '', '/conf/main.conf', { source: files });
    assert.deepEqual(
      doc.sections.map((s) => [s.name, s.options.map((o) => `${o.key}@${o.file}:${o.line}`)]),
      [
        ['s', ['a@/conf/main.conf:2', 'inc@/conf/sub/more.conf:1', 'deep@/conf/sub/deeper.conf:1']],
        ['t', ['t@/conf/sub/more.conf:4', 'b@/conf/main.conf:4']],
      ],
    );
  });

  it('expands #include globs in name order', () => {
    const files = memoryFiles({
      '/conf/main.conf': '#include conf.d/*.conf\n',
      '/conf/conf.d/b.conf': '[b]\n',
      '/conf/conf.d/a.conf': '[a]\n',
      '/conf/conf.d/skip.txt': '[skip]\n',
    });
    const doc = parseIni(files.readFile('/conf/main.conf') ?? '', '/conf/main.conf', { source: files });
    assert.deepEqual(
      doc.sections.map((s) => s.name),
      ['a', 'b'],
    );
  });

  it('detects include cycles and reports where', () => {
    const files = memoryFiles({
      '/conf/a.conf': '[s]\n#include b.conf\n',
      '/conf/b.conf': '\n\n#include a.conf\n',
    });
    errorAt(() => parseIni(files.readFile('/conf/a.conf') ?? '', '/conf/a.conf', { source: files }), '/conf/b.conf', 3, /cycle/);
  });

  it('limits include depth', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`/conf/f${i}.conf`] = `#include f${i + 1}.conf\n`;
    files['/conf/f20.conf'] = '[end]\n';
    const source = memoryFiles(files);
    assert.throws(() => parseIni(files['/conf/f0.conf'], '/conf/f0.conf', { source, maxIncludeDepth: 5 }), /deeper than 5/);
    assert.equal(parseIni(files['/conf/f0.conf'], '/conf/f0.conf', { source, maxIncludeDepth: 25 }).sections.length, 1);
  });

  it('fails on a missing #include but not on a missing #tryinclude', () => {
    const source = memoryFiles({});
    errorAt(() => parseIni('[s]\n#include nope.conf\n', FILE, { source }), FILE, 2, /not found/);
    assert.equal(parseIni('[s]\n#tryinclude nope.conf\nx=1\n', FILE, { source }).sections[0].options.length, 1);
  });
});

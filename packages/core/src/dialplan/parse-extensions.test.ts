// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are dialplan text, where ${...} is the syntax under test
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIni } from '../config/ini.js';
import { recordingLogger } from '../config/test-support.js';
import { ConfigError } from '../errors.js';
import { parseApplication, parseDialplan } from './parse-extensions.js';

const FILE = '/conf/extensions.conf';

function parse(text: string) {
  const log = recordingLogger();
  return { config: parseDialplan(parseIni(text, FILE), log), log };
}

function steps(text: string, context = 'ctx') {
  const { config } = parse(text);
  const found = config.contexts.find((c) => c.name === context);
  assert.ok(found, `context ${context}`);
  return found.extensions.map((e) => [
    e.pattern,
    e.priorities.map((p) => `${p.priority}${p.label ? `(${p.label})` : ''}:${p.app}:${p.appData}`),
  ]);
}

function errorAt(text: string, line: number, pattern: RegExp): void {
  assert.throws(
    () => parse(text),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
      assert.equal(err.file, FILE);
      assert.equal(err.line, line);
      assert.match(err.message, pattern);
      return true;
    },
  );
}

describe('parseDialplan', () => {
  it('reads exten/same lines with n and labels', () => {
    assert.deepEqual(
      steps(
        [
          '[ctx]',
          'exten => 100,1,Answer()',
          'exten => 100,n(greet),Playback(hello-world)',
          ' same => n,Hangup()',
          'exten => _X.,1,NoOp(${EXTEN})',
          ' same => 5,Verbose(a,b)',
          ' same => n(end),Hangup',
        ].join('\n'),
      ),
      [
        ['100', ['1:Answer:', '2(greet):Playback:hello-world', '3:Hangup:']],
        ['_X.', ['1:NoOp:${EXTEN}', '5:Verbose:a,b', '6(end):Hangup:']],
      ],
    );
  });

  it('keeps file and line on each step and sorts priorities by number', () => {
    const { config } = parse('[ctx]\nexten => 1,2,Two()\nexten => 1,1,One()\n');
    const [one, two] = config.contexts[0].extensions[0].priorities;
    assert.deepEqual([one.priority, one.app, one.line, one.file], [1, 'One', 3, FILE]);
    assert.deepEqual([two.priority, two.line], [2, 2]);
  });

  it('accepts the old App,args form and keeps argument text raw', () => {
    assert.deepEqual(steps('[ctx]\nexten => s,1,Goto,other,100,1\nexten => t,1,Set(X=${A:1:2},"q,r")\n'), [
      ['s', ['1:Goto:other,100,1']],
      ['t', ['1:Set:X=${A:1:2},"q,r"']],
    ]);
  });

  it('takes the arguments up to the last parenthesis', () => {
    const option = { key: 'exten', rawKey: 'exten', value: '', arrow: true, file: FILE, line: 1 };
    assert.deepEqual(parseApplication('Set(A=$[(1+2)*3])', option, recordingLogger()), { app: 'Set', appData: 'A=$[(1+2)*3]' });
    assert.deepEqual(parseApplication(' Dial ( SIP/a,30 ) ', option, recordingLogger()), { app: 'Dial', appData: ' SIP/a,30 ' });
  });

  it('merges repeated contexts, collects includes and globals, ignores [general] and templates', () => {
    const { config } = parse(
      [
        '[general]',
        'static = yes',
        '[globals]',
        'OPERATOR = 1001',
        'Trunk = SIP/provider',
        '[tpl](!)',
        'exten => 9,1,NoOp()',
        '[a](tpl)',
        'include => b',
        'exten => 1,1,NoOp()',
        '[b]',
        'exten => 2,1,NoOp()',
        '[a]',
        'include => c',
        'include => b',
        'exten => 3,1,NoOp()',
        '[c]',
      ].join('\n'),
    );
    assert.deepEqual(config.globals, { OPERATOR: '1001', Trunk: 'SIP/provider' });
    assert.deepEqual(
      config.contexts.map((c) => [c.name, c.extensions.map((e) => e.pattern), c.includes]),
      [
        ['a', ['9', '1', '3'], ['b', 'c']],
        ['b', ['2'], []],
        ['c', [], []],
      ],
    );
  });

  it('reads hints apart from the steps and time-conditional includes; warns about unknown keys', () => {
    const { config, log } = parse(
      '[ctx]\nexten => 100,hint,SIP/alice\nexten => 101,hint,SIP/bob & App:desk,CustomPresence:bob\nexten => 101,1,NoOp()\nexten => _1XX,hint,SIP/x\ninclude => day,09:00-17:00,mon-fri,*,*\nswitch => Realtime\n',
    );
    assert.deepEqual(
      config.contexts[0].extensions.map((e) => [e.pattern, e.priorities.length]),
      [['101', 1]],
    );
    assert.deepEqual(config.contexts[0].hints, { '100': ['SIP/alice'], '101': ['SIP/bob', 'App:desk'] });
    assert.deepEqual(config.contexts[0].includes, ['day']);
    assert.deepEqual(config.contexts[0].includeConditions, { day: '09:00-17:00,mon-fri,*,*' });
    assert.throws(() => parse('[ctx]\ninclude => day,25:00-26:00,mon-fri,*,*\n'), /not a time of day/);
    const warnings = log.warnings().join('\n');
    assert.match(warnings, /'switch'/);
    assert.match(warnings, /hints on extension patterns/);
  });

  it('refuses a hint without devices and a second hint for the same extension', () => {
    assert.throws(() => parse('[ctx]\nexten => 100,hint,\n'), /names no device/);
    assert.throws(() => parse('[ctx]\nexten => 100,hint,SIP/a\nexten => 100,hint,SIP/b\n'), /already has a hint/);
  });

  it('warns about includes of contexts that do not exist', () => {
    const { log } = parse('[a]\ninclude => ghost\n');
    assert.match(log.warnings().join('\n'), /unknown context 'ghost'/);
  });

  it('skips caller-ID matched extensions together with their same lines', () => {
    const { config, log } = parse('[ctx]\nexten => 100/5551212,1,NoOp()\n same => n,Hangup()\nexten => 101,1,NoOp()\n');
    assert.deepEqual(
      config.contexts[0].extensions.map((e) => e.pattern),
      ['101'],
    );
    assert.match(log.warnings()[0], /caller-ID matching/);
  });

  it('accepts exten = as well as exten =>', () => {
    assert.deepEqual(steps('[ctx]\nexten = 1,1,NoOp()\n'), [['1', ['1:NoOp:']]]);
  });

  it('reports errors with their line', () => {
    errorAt('[ctx]\nexten => 100,n,NoOp()\n', 2, /'n' with no previous priority/);
    errorAt('[ctx]\n\nsame => n,NoOp()\n', 3, /without a previous 'exten =>'/);
    errorAt('[a]\nexten => 1,1,NoOp()\n[b]\nsame => n,NoOp()\n', 4, /without a previous/);
    errorAt('[ctx]\nexten => 100,1,NoOp()\nexten => 100,1,Hangup()\n', 3, /already has priority 1/);
    errorAt('[ctx]\nexten => 100,1(x),NoOp()\nexten => 100,2(x),Hangup()\n', 3, /labelled 'x'/);
    errorAt('[ctx]\nexten => 100,first,NoOp()\n', 2, /invalid priority 'first'/);
    errorAt('[ctx]\nexten => 100,0,NoOp()\n', 2, /invalid priority/);
    errorAt('[ctx]\nexten => 100,1\n', 2, /expected/);
    errorAt('[ctx]\nexten => 100,1,\n', 2, /missing application/);
    errorAt('[ctx]\nexten => _1[23,1,NoOp()\n', 2, /'\[' without '\]'/);
    errorAt('[ctx]\nexten => ,1,NoOp()\n', 2, /missing extension/);
  });
});

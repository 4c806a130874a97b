import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsoleCommands, ConsoleUsageError, splitWords } from './registry.js';
import { table } from './table.js';

function sample(): ConsoleCommands {
  const commands = new ConsoleCommands();
  commands.register({
    words: ['core', 'show', 'channels'],
    args: '[concise|verbose]',
    summary: 'channels',
    completeArg: () => ['concise', 'verbose'],
    run: (a) => `channels ${a.join(',')}`,
  });
  commands.register({ words: ['core', 'show', 'calls'], summary: 'calls', run: () => 'calls' });
  commands.register({
    words: ['core', 'set', 'verbose'],
    args: '<level>',
    summary: 'verbosity',
    run: (a) => {
      if (a.length !== 1) throw new ConsoleUsageError();
      return `level ${a[0]}`;
    },
  });
  commands.register({
    words: ['broken'],
    summary: 'fails',
    run: () => {
      throw new Error('disk on fire');
    },
  });
  return commands;
}

describe('ConsoleCommands', () => {
  it('runs the command whose words prefix the line, case-insensitively, with the rest as arguments', async () => {
    const commands = sample();
    assert.equal(await commands.run('core show channels'), 'channels ');
    assert.equal(await commands.run('  CORE Show channels   concise '), 'channels concise');
    assert.equal(await commands.run('core set verbose 3'), 'level 3');
    assert.equal(await commands.run(''), '');
  });

  it('answers unknown commands, usage errors and failures in text, never by rejecting', async () => {
    const commands = sample();
    assert.equal(
      await commands.run('queue show'),
      "No such command 'queue show' (type 'core show help queue show' for other possible commands)",
    );
    assert.equal(
      await commands.run('core show'),
      "No such command 'core show' (type 'core show help core show' for other possible commands)",
    );
    assert.equal(await commands.run('core set verbose'), 'Usage: core set verbose <level>\n       verbosity');
    assert.equal(await commands.run('broken'), "Command 'broken' failed: disk on fire");
  });

  it('completes the next word of commands and their arguments', () => {
    const commands = sample();
    assert.deepEqual(commands.complete(''), ['broken', 'core']);
    assert.deepEqual(commands.complete('co'), ['core']);
    assert.deepEqual(commands.complete('core '), ['core set', 'core show']);
    assert.deepEqual(commands.complete('core show c'), ['core show calls', 'core show channels']);
    assert.deepEqual(commands.complete('core show channels '), ['core show channels concise', 'core show channels verbose']);
    assert.deepEqual(commands.complete('core show channels v'), ['core show channels verbose']);
    assert.deepEqual(commands.complete('nothing '), []);
  });

  it('refuses a command registered twice', () => {
    const commands = sample();
    assert.throws(() => commands.register({ words: ['core', 'show', 'calls'], summary: 'again', run: () => '' }), /registered twice/);
  });

  it('splits words with double quotes keeping one argument', () => {
    assert.deepEqual(splitWords('channel request hangup "SIP/a b-1"'), ['channel', 'request', 'hangup', 'SIP/a b-1']);
  });

  it('prints aligned tables without trailing blanks', () => {
    assert.equal(
      table(
        ['A', 'Long header', 'C'],
        [
          ['xyz', '1', ''],
          ['q', '22', 'end'],
        ],
      ),
      'A    Long header  C\nxyz  1\nq    22           end',
    );
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROTATED_FILES_KEPT, rotateFile } from './rotate-strategy.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function fresh(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-rotate-'));
  dirs.push(dir);
  return dir;
}

describe('rotatestrategy', () => {
  it('sequential: the first free number, newest highest', () => {
    const dir = fresh();
    const file = join(dir, 'messages');
    for (const text of ['one', 'two', 'three']) {
      writeFileSync(file, text);
      rotateFile(file, 'sequential');
    }
    assert.equal(readFileSync(`${file}.1`, 'utf8'), 'one');
    assert.equal(readFileSync(`${file}.3`, 'utf8'), 'three');
  });

  it('rotate: .1 is the newest and at most ROTATED_FILES_KEPT are kept', () => {
    const dir = fresh();
    const file = join(dir, 'messages');
    for (let n = 1; n <= ROTATED_FILES_KEPT + 2; n++) {
      writeFileSync(file, `gen ${n}`);
      rotateFile(file, 'rotate');
    }
    assert.equal(readFileSync(`${file}.1`, 'utf8'), `gen ${ROTATED_FILES_KEPT + 2}`);
    assert.equal(readFileSync(`${file}.${ROTATED_FILES_KEPT}`, 'utf8'), 'gen 3');
    assert.equal(readdirSync(dir).length, ROTATED_FILES_KEPT);
  });

  it('timestamp: the rotation time in the name; none: nothing moves', () => {
    const dir = fresh();
    const file = join(dir, 'security');
    writeFileSync(file, 'x');
    const moved = rotateFile(file, 'timestamp', new Date(2026, 10, 24, 3, 5, 9));
    assert.equal(moved, `${file}.20261124030509`);
    writeFileSync(file, 'y');
    assert.equal(rotateFile(file, 'none'), undefined);
    assert.equal(readFileSync(file, 'utf8'), 'y');
    assert.equal(rotateFile(join(dir, 'absent'), 'rotate'), undefined);
  });
});

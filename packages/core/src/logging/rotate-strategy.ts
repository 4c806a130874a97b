/**
 * logger.conf `[general] rotatestrategy` (the original's names): what a rotation does with the
 * current file before a fresh one is opened.
 *
 * - `sequential` (default, as in the original): `<file>` → `<file>.N` with the first free N from 1,
 *   so the highest number is the newest.
 * - `rotate`: `<file>.N` → `<file>.N+1` from the highest down, then `<file>` → `<file>.1`, so `.1`
 *   is always the most recent (logrotate's habit); files beyond ROTATED_FILES_KEPT are deleted.
 * - `timestamp`: `<file>` → `<file>.YYYYMMDDHHMMSS`.
 * - `none`: no rename; the file is reopened (for an external rotator that moved it away).
 */
import { existsSync, renameSync, rmSync } from 'node:fs';

export const ROTATE_STRATEGIES = ['rotate', 'sequential', 'timestamp', 'none'] as const;
export type RotateStrategy = (typeof ROTATE_STRATEGIES)[number];

export function isRotateStrategy(text: string): text is RotateStrategy {
  return (ROTATE_STRATEGIES as readonly string[]).includes(text);
}

/** How many old files `rotate` keeps (`.1` … `.KEEP`). */
export const ROTATED_FILES_KEPT = 10;

/** Moves `path` aside by `strategy`; returns the new name, or undefined when nothing was moved. */
export function rotateFile(path: string, strategy: RotateStrategy, now: Date = new Date()): string | undefined {
  if (strategy === 'none' || !existsSync(path)) return undefined;
  switch (strategy) {
    case 'rotate': {
      rmSync(`${path}.${ROTATED_FILES_KEPT}`, { force: true });
      for (let n = ROTATED_FILES_KEPT - 1; n >= 1; n--) {
        if (existsSync(`${path}.${n}`)) renameSync(`${path}.${n}`, `${path}.${n + 1}`);
      }
      renameSync(path, `${path}.1`);
      return `${path}.1`;
    }
    case 'sequential': {
      let n = 1;
      while (existsSync(`${path}.${n}`)) n += 1;
      renameSync(path, `${path}.${n}`);
      return `${path}.${n}`;
    }
    case 'timestamp': {
      const pad = (v: number) => String(v).padStart(2, '0');
      const stamp = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
      let target = `${path}.${stamp}`;
      for (let n = 1; existsSync(target); n++) target = `${path}.${stamp}-${n}`;
      renameSync(path, target);
      return target;
    }
  }
}

/**
 * The one gate between a recording name from a request and a path on disk (SPEC §4.7 rule 1):
 * every name that becomes a path goes through `recordingFile`, which refuses anything that could
 * land outside the recording directory — lexically (`..`, absolute paths, backslashes, NUL,
 * encoded separators that a second decoding would turn into ones) and on disk (a symlink inside
 * the directory that resolves outside it).
 */
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { CoreError, type CoreErrorCode } from '../errors.js';

/** Longest name we accept: well inside PATH_MAX once joined to the recording directory. */
const MAX_NAME_LENGTH = 255;

/** Why a name cannot be a recording name, or undefined when it can. */
export function recordingNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'recording name is empty';
  if (name.length > MAX_NAME_LENGTH) return `recording name is longer than ${MAX_NAME_LENGTH} characters`;
  if (name.includes('\0')) return 'recording name contains NUL';
  // CR/LF and other control characters would forge lines in logs and listings that show the name.
  if (hasControlCharacter(name)) return 'recording name contains a control character';
  if (name.includes('\\')) return 'recording name contains a backslash';
  // The api decodes path segments once; what is still encoded here was encoded twice on purpose.
  if (/%(2f|5c|2e|00)/i.test(name)) return 'recording name contains an encoded separator';
  if (isAbsolute(name) || name.startsWith('/')) return 'recording name is an absolute path';
  for (const segment of name.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return 'recording name has an empty, . or .. path segment';
  }
  return undefined;
}

/**
 * The absolute path of `<name>.<extension>` under `root`, after every check. `code` is what a
 * refusal is reported as: 400 for a name a request wants to create, 404 for a name it looks up.
 */
export function recordingFile(root: string, name: string, extension: string, code: CoreErrorCode = 'invalid_argument'): string {
  const problem = recordingNameProblem(name) ?? (/^[a-z0-9]+$/i.test(extension) ? undefined : 'invalid recording format');
  if (problem) throw new CoreError(code, code === 'not_found' ? 'Recording not found' : problem);
  const base = resolve(root);
  const path = resolve(base, `${name}.${extension}`);
  if (!isWithin(base, path) || !resolvesWithin(base, path)) {
    throw new CoreError(code, code === 'not_found' ? 'Recording not found' : 'recording name leaves the recording directory');
  }
  return path;
}

/**
 * Whether `path` (existing or not) stays inside `root` once symlinks are followed: the deepest
 * part of it that exists is resolved with realpath and compared with the resolved root.
 */
export function resolvesWithin(root: string, path: string): boolean {
  if (!existsSync(root)) return isWithin(resolve(root), resolve(path));
  const realRoot = realpathSync(root);
  let probe = resolve(path);
  let tail = '';
  // lstat, not exists: a dangling symlink exists as a link, and writing through it would follow it.
  while (!hasEntry(probe)) {
    const parent = dirname(probe);
    if (parent === probe) return false;
    tail = tail === '' ? relative(parent, probe) : `${relative(parent, probe)}${sep}${tail}`;
    probe = parent;
  }
  let real: string;
  try {
    real = resolve(realpathSync(probe), tail);
  } catch {
    return false;
  }
  return real === realRoot || isWithin(realRoot, real);
}

function hasEntry(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** C0 controls (CR, LF, TAB, …) and DEL. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

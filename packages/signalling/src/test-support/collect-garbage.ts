/**
 * A full garbage collection, for tests that show an object is no longer reachable (a WeakRef
 * cleared). `--expose-gc` cannot be passed to the test runner's processes from here; V8 accepts it
 * at run time, and a new context then has `gc`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export function collectGarbage(): void {
  gc();
}

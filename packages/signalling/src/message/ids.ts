/**
 * Identifiers the stack generates: tags (RFC 3261 §19.3, at least 32 bits of randomness), branch
 * ids (§8.1.1.7, magic cookie first), Call-IDs (§8.1.1.4) and the random part of digest nonces.
 * Randomness comes from a pool refilled
 * in blocks so that one call costs a slice, not a system call.
 */
import { randomBytes } from 'node:crypto';
import { BRANCH_MAGIC_COOKIE } from './via.js';

const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

/** The offset of `bytes` unused random bytes in `pool`, refilled when too few are left. */
function take(bytes: number): number {
  if (offset + bytes > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const at = offset;
  offset += bytes;
  return at;
}

function randomHex(bytes: number): string {
  const at = take(bytes);
  return pool.toString('hex', at, at + bytes);
}

/** Writes `bytes` (at most the pool's size) random bytes into `target` at `at`. */
export function fillRandom(target: Buffer, at: number, bytes: number): void {
  const from = take(bytes);
  pool.copy(target, at, from, from + bytes);
}

export function newTag(): string {
  return randomHex(8);
}

export function newBranch(): string {
  return `${BRANCH_MAGIC_COOKIE}${randomHex(10)}`;
}

export function newCallId(host?: string): string {
  const id = randomHex(16);
  return host === undefined ? id : `${id}@${host}`;
}

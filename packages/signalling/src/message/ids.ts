/**
 * Identifiers the stack generates: tags (RFC 3261 §19.3, at least 32 bits of randomness), branch
 * ids (§8.1.1.7, magic cookie first) and Call-IDs (§8.1.1.4). Randomness comes from a pool refilled
 * in blocks so that one call costs a slice, not a system call.
 */
import { randomBytes } from 'node:crypto';
import { BRANCH_MAGIC_COOKIE } from './via.js';

const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

function randomHex(bytes: number): string {
  if (offset + bytes > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const out = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return out;
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

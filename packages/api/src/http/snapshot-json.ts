/**
 * Answer bodies built from snapshots, kept between requests. Core hands out frozen snapshots and
 * replaces a channel's snapshot when anything it shows changes (Channel.snapshot), so the JSON of
 * a frozen snapshot in one dialect never changes: its bytes are written once and kept by identity
 * (in a WeakMap, so they go with the snapshot). A list answer is the kept bytes copied together
 * (joining the strings and encoding the result cost several times more), and a list whose
 * snapshots are all the same objects as in the previous answer is the previous answer's bytes. `GET /channels` with a thousand
 * channels is then a walk over the channels instead of a JSON.stringify of 340 KB (bench/README.md).
 * A snapshot that is not frozen (someone may still change it) is serialised every time.
 */
import type { Dialect } from '../dialect/dialect.js';

type Snapshot = object;

export class SnapshotJson {
  readonly #bytes = new Map<Dialect, WeakMap<Snapshot, Buffer>>();
  /** The last list answer per dialect and model: its snapshots and its bytes. */
  readonly #lists = new Map<string, { readonly items: readonly Snapshot[]; readonly body: Buffer }>();

  /** One snapshot of model `type` (`Channel`) as an answer body in the dialect; not to be written to. */
  body(snapshot: Snapshot, type: string, dialect: Dialect): Buffer {
    if (!Object.isFrozen(snapshot)) return Buffer.from(JSON.stringify(dialect.outgoing(snapshot, type)));
    let kept = this.#bytes.get(dialect);
    if (kept === undefined) {
      kept = new WeakMap();
      this.#bytes.set(dialect, kept);
    }
    let bytes = kept.get(snapshot);
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(dialect.outgoing(snapshot, type)));
      kept.set(snapshot, bytes);
    }
    return bytes;
  }

  /** A `List[type]` answer body. */
  listBody(items: readonly Snapshot[], type: string, dialect: Dialect): Buffer {
    const key = `${dialect.name}|${type}`;
    const last = this.#lists.get(key);
    if (last !== undefined && sameItems(last.items, items)) return last.body;
    const parts: Buffer[] = [OPEN];
    for (let i = 0; i < items.length; i++) {
      if (i > 0) parts.push(COMMA);
      parts.push(this.body(items[i] as Snapshot, type, dialect));
    }
    parts.push(CLOSE);
    const body = Buffer.concat(parts);
    // Only a list of frozen snapshots can be answered again from its bytes.
    if (items.every((item) => Object.isFrozen(item))) this.#lists.set(key, { items, body });
    else this.#lists.delete(key);
    return body;
  }
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

function sameItems(a: readonly Snapshot[], b: readonly Snapshot[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

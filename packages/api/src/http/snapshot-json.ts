/**
 * Answer bodies built from snapshots, kept between requests. Core hands out frozen snapshots and
 * replaces a channel's snapshot when anything it shows changes (Channel.snapshot), so the JSON of
 * a frozen snapshot in one dialect never changes: it is written once and kept by identity (in a
 * WeakMap, so it goes with the snapshot). A list answer whose snapshots are all the same objects
 * as in the previous answer is the previous answer's bytes. `GET /channels` with a thousand
 * channels is then a walk over the channels instead of a JSON.stringify of 340 KB (bench/README.md).
 * A snapshot that is not frozen (someone may still change it) is serialised every time.
 */
import type { Dialect } from '../dialect/dialect.js';

type Snapshot = object;

export class SnapshotJson {
  readonly #texts = new Map<Dialect, WeakMap<Snapshot, string>>();
  /** The last list answer per dialect and model: its snapshots and its bytes. */
  readonly #lists = new Map<string, { readonly items: readonly Snapshot[]; readonly body: Buffer }>();

  /** The JSON of one snapshot of model `type` (`Channel`) in the dialect. */
  text(snapshot: Snapshot, type: string, dialect: Dialect): string {
    if (!Object.isFrozen(snapshot)) return JSON.stringify(dialect.outgoing(snapshot, type));
    let texts = this.#texts.get(dialect);
    if (texts === undefined) {
      texts = new WeakMap();
      this.#texts.set(dialect, texts);
    }
    let text = texts.get(snapshot);
    if (text === undefined) {
      text = JSON.stringify(dialect.outgoing(snapshot, type));
      texts.set(snapshot, text);
    }
    return text;
  }

  /** One snapshot as an answer body. */
  body(snapshot: Snapshot, type: string, dialect: Dialect): Buffer {
    return Buffer.from(this.text(snapshot, type, dialect));
  }

  /** A `List[type]` answer body. */
  listBody(items: readonly Snapshot[], type: string, dialect: Dialect): Buffer {
    const key = `${dialect.name}|${type}`;
    const last = this.#lists.get(key);
    if (last !== undefined && sameItems(last.items, items)) return last.body;
    const texts = new Array<string>(items.length);
    for (let i = 0; i < items.length; i++) texts[i] = this.text(items[i] as Snapshot, type, dialect);
    const body = Buffer.from(`[${texts.join(',')}]`);
    // Only a list of frozen snapshots can be answered again from its bytes.
    if (items.every((item) => Object.isFrozen(item))) this.#lists.set(key, { items, body });
    else this.#lists.delete(key);
    return body;
  }
}

function sameItems(a: readonly Snapshot[], b: readonly Snapshot[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

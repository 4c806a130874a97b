/**
 * The manager's permission classes (manager.conf `read`/`write`): a user reads the events of its
 * read classes and runs the actions of its write classes. An action that needs no class (Ping,
 * Events, Logoff…) is open to every logged-in user. `all` grants every class.
 */
export const PERMISSION_CLASSES = [
  'system',
  'call',
  'log',
  'verbose',
  'command',
  'agent',
  'user',
  'config',
  'dtmf',
  'reporting',
  'cdr',
  'dialplan',
  'originate',
  'message',
  'security',
] as const;

export type PermissionClass = (typeof PERMISSION_CLASSES)[number];

export function isPermissionClass(name: string): name is PermissionClass {
  return (PERMISSION_CLASSES as readonly string[]).includes(name);
}

/** A set of classes; `all` expands to every class. */
export class Permissions {
  readonly #classes: ReadonlySet<PermissionClass>;

  private constructor(classes: Iterable<PermissionClass>) {
    this.#classes = new Set(classes);
  }

  static readonly none = new Permissions([]);
  static readonly all = new Permissions(PERMISSION_CLASSES);

  /**
   * `system,call,all` as written in manager.conf. Unknown names are returned in `unknown` so the
   * caller can report them with the file and line.
   */
  static parse(text: string): { permissions: Permissions; unknown: string[] } {
    const classes = new Set<PermissionClass>();
    const unknown: string[] = [];
    for (const raw of text.split(',')) {
      const name = raw.trim().toLowerCase();
      if (name === '' || name === 'none') continue;
      if (name === 'all') {
        for (const c of PERMISSION_CLASSES) classes.add(c);
      } else if (isPermissionClass(name)) classes.add(name);
      else unknown.push(name);
    }
    return { permissions: new Permissions(classes), unknown };
  }

  has(name: PermissionClass): boolean {
    return this.#classes.has(name);
  }

  /** True when any of `needed` is granted (an event of several classes reaches a reader of one). */
  hasAny(needed: readonly PermissionClass[]): boolean {
    return needed.some((c) => this.#classes.has(c));
  }

  /** The subset also in `other`. */
  intersect(other: Permissions): Permissions {
    return new Permissions([...this.#classes].filter((c) => other.has(c)));
  }

  /** `call,all` form of the `Privilege:` header of events. */
  static privilegeHeader(classes: readonly PermissionClass[]): string {
    return [...classes, 'all'].join(',');
  }
}

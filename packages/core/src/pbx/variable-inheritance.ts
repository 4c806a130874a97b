/**
 * Variable inheritance: `Set(_NAME=v)` passes NAME to the channels this one creates (Dial), one
 * level; `Set(__NAME=v)` to every later generation too, as in the original.
 */
import type { Channel } from '../channels/channel.js';

type Inherit = 'once' | 'always';

const marks = new WeakMap<Channel, Map<string, Inherit>>();

export function markInheritable(channel: Channel, name: string, inherit: Inherit): void {
  const found = marks.get(channel) ?? new Map<string, Inherit>();
  found.set(name, inherit);
  marks.set(channel, found);
}

/** Copies the inheritable variables of `parent` onto `child` (Dial calls this for each callee). */
export function inheritVariables(parent: Channel, child: Channel): void {
  const found = marks.get(parent);
  if (found === undefined) return;
  for (const [name, inherit] of found) {
    const value = parent.getVariable(name);
    if (value === undefined) continue;
    child.setVariable(name, value);
    if (inherit === 'always') markInheritable(child, name, 'always');
  }
}

/**
 * Gosub/Return: each channel's stack of return addresses. A frame also keeps the ARGn variables
 * it replaced, so a nested subroutine's arguments do not leak into its caller (the original keeps
 * them as LOCAL variables of the frame).
 */
import type { Channel } from '../channels/channel.js';
import type { DialplanPosition } from './dialplan-app.js';

/** Deep enough for any sane dialplan; a recursion loop stops here instead of eating memory. */
export const MAX_GOSUB_DEPTH = 100;

interface Frame {
  returnTo: DialplanPosition;
  /** ARG1..ARGn as they were before the call (undefined: unset). */
  saved: Array<string | undefined>;
  argCount: number;
}

export class GosubStacks {
  readonly #stacks = new Map<string, Frame[]>();

  depth(channelId: string): number {
    return this.#stacks.get(channelId)?.length ?? 0;
  }

  /** Pushes a frame and sets ARG1..n (and ARGC); false when the stack is full. */
  push(channel: Channel, returnTo: DialplanPosition, args: string[]): boolean {
    const stack = this.#stacks.get(channel.id) ?? [];
    if (stack.length >= MAX_GOSUB_DEPTH) return false;
    const previousCount = Number(channel.getVariable('ARGC') ?? '0') || 0;
    const count = Math.max(args.length, previousCount);
    const saved: Array<string | undefined> = [];
    for (let i = 1; i <= count; i++) saved.push(channel.getVariable(`ARG${i}`));
    saved.push(channel.getVariable('ARGC'));
    stack.push({ returnTo, saved, argCount: count });
    this.#stacks.set(channel.id, stack);
    for (let i = 1; i <= count; i++) {
      if (i <= args.length) channel.setVariable(`ARG${i}`, args[i - 1]);
      else channel.unsetVariable(`ARG${i}`);
    }
    channel.setVariable('ARGC', String(args.length));
    return true;
  }

  /** Pops a frame, restores the caller's arguments and returns where to continue. */
  pop(channel: Channel): DialplanPosition | undefined {
    const stack = this.#stacks.get(channel.id);
    const frame = stack?.pop();
    if (stack !== undefined && stack.length === 0) this.#stacks.delete(channel.id);
    if (frame === undefined) return undefined;
    for (let i = 1; i <= frame.argCount; i++) restore(channel, `ARG${i}`, frame.saved[i - 1]);
    restore(channel, 'ARGC', frame.saved[frame.argCount]);
    return frame.returnTo;
  }

  forget(channelId: string): void {
    this.#stacks.delete(channelId);
  }
}

function restore(channel: Channel, name: string, value: string | undefined): void {
  if (value === undefined) channel.unsetVariable(name);
  else channel.setVariable(name, value);
}

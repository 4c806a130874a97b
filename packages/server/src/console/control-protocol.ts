/**
 * The control socket's protocol: one JSON object per line in each direction.
 *
 *   client → server   { "id": 1, "type": "command", "line": "core show channels" }
 *                     { "id": 2, "type": "complete", "line": "pjsip show e" }
 *                     { "type": "attach" }            (interactive consoles: send me the log)
 *   server → client   { "id": 1, "type": "output", "text": "…" }
 *                     { "id": 2, "type": "completions", "list": ["pjsip show endpoint", …] }
 *                     { "type": "log", "text": "…" }  (after attach)
 *                     { "type": "bye", "text": "…" }  (the server is stopping)
 */
export const CONTROL_SOCKET_NAME = 'switchboard.ctl';

/** A line longer than this is refused and the connection closed (no unbounded buffering). */
export const MAX_CONTROL_LINE = 64 * 1024;

export type ClientMessage =
  | { id: number; type: 'command'; line: string }
  | { id: number; type: 'complete'; line: string }
  | { type: 'attach' };

export type ServerMessage =
  | { id: number; type: 'output'; text: string }
  | { id: number; type: 'completions'; list: string[] }
  | { type: 'log'; text: string }
  | { type: 'bye'; text: string };

export function parseClientMessage(line: string): ClientMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as Record<string, unknown>;
  if (m.type === 'attach') return { type: 'attach' };
  if ((m.type === 'command' || m.type === 'complete') && typeof m.id === 'number' && typeof m.line === 'string') {
    return { id: m.id, type: m.type, line: m.line };
  }
  return undefined;
}

/** Splits a byte stream into lines; calls `onLine` per line, `onOverflow` once a line grows too long. */
export function lineReader(onLine: (line: string) => void, onOverflow: () => void): (chunk: Buffer) => void {
  let buffered = '';
  return (chunk) => {
    buffered += chunk.toString('utf8');
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      onLine(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
    }
    if (buffered.length > MAX_CONTROL_LINE) {
      buffered = '';
      onOverflow();
    }
  };
}

/**
 * The manager's text framing: a message is `Name: value` lines ended by CRLF (a bare LF is
 * accepted), and a blank line ends the message. Header names are case-insensitive and may repeat
 * (`Variable:` of Originate). Values with line breaks are never written: a CR or LF inside a value
 * would end the message early and let a caller forge headers, so they are replaced by spaces.
 */

export type Field = readonly [name: string, value: string];

/** One received message (an action). */
export class ManagerMessage {
  readonly fields: readonly Field[];

  constructor(fields: readonly Field[]) {
    this.fields = fields;
  }

  /** The first value of `name` (any case), or undefined. */
  get(name: string): string | undefined {
    const wanted = name.toLowerCase();
    return this.fields.find(([n]) => n.toLowerCase() === wanted)?.[1];
  }

  /** Every value of `name`, in order. */
  getAll(name: string): string[] {
    const wanted = name.toLowerCase();
    return this.fields.filter(([n]) => n.toLowerCase() === wanted).map(([, v]) => v);
  }
}

export interface FramingLimits {
  /** Bytes in one line, CRLF excluded. */
  maxLineBytes: number;
  /** Header lines in one message. */
  maxHeaders: number;
}

export const FRAMING_LIMITS: FramingLimits = { maxLineBytes: 1024, maxHeaders: 128 };

export type DecodeProblem = 'line-too-long' | 'too-many-headers';

/**
 * Turns a byte stream into messages. A line longer than the limit or a message with too many
 * headers is a protocol violation the session answers by closing: the decoder stops there.
 */
export class MessageDecoder {
  readonly #limits: FramingLimits;
  #partial: Buffer = Buffer.alloc(0);
  #fields: Field[] = [];
  #failed: DecodeProblem | undefined;

  constructor(limits: FramingLimits = FRAMING_LIMITS) {
    this.#limits = limits;
  }

  /** Complete messages in `chunk` (with what came before); `problem` once the stream broke a limit. */
  push(chunk: Buffer): { messages: ManagerMessage[]; problem?: DecodeProblem } {
    if (this.#failed) return { messages: [], problem: this.#failed };
    const messages: ManagerMessage[] = [];
    let data = this.#partial.length === 0 ? chunk : Buffer.concat([this.#partial, chunk]);
    let newline = data.indexOf(0x0a);
    while (newline >= 0) {
      let end = newline;
      if (end > 0 && data[end - 1] === 0x0d) end -= 1;
      if (end > this.#limits.maxLineBytes) return this.#fail('line-too-long', messages);
      const line = data.subarray(0, end).toString('utf8');
      data = data.subarray(newline + 1);
      if (line.trim() === '') {
        if (this.#fields.length > 0) messages.push(new ManagerMessage(this.#fields));
        this.#fields = [];
      } else {
        if (this.#fields.length >= this.#limits.maxHeaders) return this.#fail('too-many-headers', messages);
        const colon = line.indexOf(':');
        // A line without a colon is kept as a header with an empty value: the action then lacks
        // what it needs and gets the usual error, as in the original.
        if (colon < 0) this.#fields.push([line.trim(), '']);
        else
          this.#fields.push([
            line.slice(0, colon).trim(),
            line
              .slice(colon + 1)
              .replace(/^ +/, '')
              .trimEnd(),
          ]);
      }
      newline = data.indexOf(0x0a);
    }
    if (data.length > this.#limits.maxLineBytes + 1) return this.#fail('line-too-long', messages);
    this.#partial = Buffer.from(data);
    return { messages };
  }

  #fail(problem: DecodeProblem, messages: ManagerMessage[]): { messages: ManagerMessage[]; problem: DecodeProblem } {
    this.#failed = problem;
    this.#partial = Buffer.alloc(0);
    return { messages, problem };
  }
}

function clean(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}

/** One message on the wire, blank line included. */
export function formatMessage(fields: readonly Field[]): string {
  let out = '';
  for (const [name, value] of fields) out += `${clean(name)}: ${clean(value)}\r\n`;
  return `${out}\r\n`;
}

/**
 * The dial-string options of the reference's WebSocket media channel, as externalMedia takes them
 * in `transport_data` (`f(json)v(call=42)d(in)`): letters, some with a parenthesised argument.
 *
 *   f(plain-text|json)   the control message format of this call (chan_websocket.conf otherwise)
 *   d(both|in|out)       the media direction, from the application's point of view
 *   v(name=value,...)    parameters added to the URI we connect to (connection_type client)
 *
 * The others (`c(codec)`: use `format`; `n`: externalMedia channels are answered; `p`:
 * passthrough, for codecs we do not carry here) are refused with a 400 that names them.
 */
import { invalidArgument } from '../errors.js';
import type { MediaStreamControlFormat, MediaStreamDirection } from '../media/media-stream-gateway.js';

export interface WebSocketDialOptions {
  controlFormat?: MediaStreamControlFormat;
  direction?: MediaStreamDirection;
  uriParameters: [string, string][];
}

const DIRECTIONS: readonly MediaStreamDirection[] = ['both', 'in', 'out'];

export function parseWebSocketDialOptions(text: string | undefined): WebSocketDialOptions {
  const options: WebSocketDialOptions = { uriParameters: [] };
  const source = text ?? '';
  let at = 0;
  while (at < source.length) {
    const letter = source[at] as string;
    at += 1;
    let argument: string | undefined;
    if (source[at] === '(') {
      const close = source.indexOf(')', at);
      if (close < 0) throw invalidArgument(`transport_data: option '${letter}' has no closing parenthesis`);
      argument = source.slice(at + 1, close);
      at = close + 1;
    }
    switch (letter) {
      case 'f':
        if (argument !== 'json' && argument !== 'plain-text') throw invalidArgument('transport_data: f() takes json or plain-text');
        options.controlFormat = argument;
        break;
      case 'd':
        if (!DIRECTIONS.includes(argument as MediaStreamDirection)) throw invalidArgument('transport_data: d() takes both, in or out');
        options.direction = argument as MediaStreamDirection;
        break;
      case 'v':
        for (const pair of (argument ?? '').split(',')) {
          if (pair === '') continue;
          const equals = pair.indexOf('=');
          if (equals <= 0) throw invalidArgument(`transport_data: v() parameter '${pair}' is not name=value`);
          options.uriParameters.push([pair.slice(0, equals), pair.slice(equals + 1)]);
        }
        break;
      default:
        throw invalidArgument(`transport_data: option '${letter}' is not supported here (f, d and v are)`);
    }
  }
  return options;
}

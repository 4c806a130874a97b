/**
 * `<prefix>/media/<connection id>`: where an application connects for the audio of an externalMedia
 * channel created with transport=websocket, connection_type=server (the reference's WebSocket
 * media channel, incoming connections). Authenticated like every API route. Frames are relayed
 * to the stream's gateway as they are: this thread never looks at the audio.
 */
import type { Logger, SwitchboardCore } from '@switchboard/core';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';
import { authenticate, authorize, credentialsFrom } from './auth.js';

/** Audio waiting for a slow application beyond this is dropped (about 2 s of slin16). */
const MAX_BUFFERED_MEDIA_BYTES = 64 * 1024;

export function registerMediaWebSocket(app: FastifyInstance, prefix: string, core: SwitchboardCore, log: Logger): void {
  app.route({
    method: 'GET',
    url: `${prefix}/media/:connectionId`,
    // The socket carries a call's audio both ways: a read-only user may not have it.
    preHandler: async (request) => {
      const apiKey = (request.query as Record<string, string | undefined>).api_key;
      authorize(authenticate(core.config.ari.users, credentialsFrom(request.headers.authorization, apiKey)), 'POST');
    },
    handler: () => {
      throw new ApiError(426, 'WebSocket upgrade required', { Upgrade: 'websocket' });
    },
    wsHandler: (socket, request) => {
      const { connectionId } = request.params as { connectionId: string };
      const deliver = core.externalMedia.acceptMediaSocket(connectionId, {
        send: (frame) => {
          if (socket.readyState !== socket.OPEN) return;
          if (frame.binary) {
            if (socket.bufferedAmount <= MAX_BUFFERED_MEDIA_BYTES) socket.send(frame.data, { binary: true });
          } else {
            socket.send(frame.text, { binary: false });
          }
        },
        close: () => socket.close(1000),
      });
      if (!deliver) {
        log.info({ connectionId }, 'media WebSocket for an unknown or already connected stream');
        socket.close(1008, 'Unknown media connection');
        return;
      }
      socket.on('message', (data, isBinary) => {
        const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
        deliver(isBinary ? { binary: true, data: bytes } : { binary: false, text: bytes.toString('utf8') });
      });
      socket.on('close', () => deliver('closed'));
    },
  });
}

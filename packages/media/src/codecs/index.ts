/**
 * Every codec of the engine, registered on import. Import codecs from here (not from `codec.ts`)
 * wherever a codec is created, so that G.722, L16 and Opus are known before the first leg asks.
 * Opus is registered only when its native binding loads; `opusLoadError()` says why it did not.
 */
import { registerCodec } from './codec.js';
import { createG722Codec } from './g722-codec.js';
import { createL16Codec } from './l16.js';
import { createOpusCodec, opusAvailable } from './opus.js';

registerCodec('G722', createG722Codec);
registerCodec('L16', () => createL16Codec(8000));
if (opusAvailable()) registerCodec('opus', createOpusCodec);

export { CODEC_FRAME_MS, createCodec, isCodecSupported, registerCodec } from './codec.js';
export type { AudioCodec } from './codec.js';
export { createG722Codec } from './g722-codec.js';
export { G722Decoder, G722Encoder } from './g722.js';
export { createL16Codec } from './l16.js';
export type { L16Rate } from './l16.js';
export { createOpusCodec, opusAvailable, opusLoadError } from './opus.js';

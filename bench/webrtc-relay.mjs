#!/usr/bin/env node
// Benchmark: media-relay.mjs with one leg of every call a browser's (ICE-lite nominated by the far end,
// rtcp-mux, SRTP AEAD_AES_128_GCM as Chromium's DTLS-SRTP negotiates it) and the other plain RTP: the
// worker decrypts what the browser side sends and encrypts what it relays to it. Results in
// bench/results/webrtc-relay.json.
process.env.BENCH_RELAY_WEBRTC = '1';
await import('./media-relay.mjs');

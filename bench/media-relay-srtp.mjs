#!/usr/bin/env node
// Benchmark: media-relay.mjs with every leg SRTP (AES_CM_128_HMAC_SHA1_80 unless BENCH_RELAY_SRTP
// names another suite): the worker authenticates and decrypts each packet it receives and encrypts
// each one it relays. Results in bench/results/media-relay-srtp.json.
process.env.BENCH_RELAY_SRTP ??= 'AES_CM_128_HMAC_SHA1_80';
await import('./media-relay.mjs');

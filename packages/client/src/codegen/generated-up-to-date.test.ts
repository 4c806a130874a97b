import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, RESOURCES } from '@switchboard/api';
import { generateClientSource } from './generate.js';

describe('the generated client', () => {
  it('is what the current OpenAPI document generates (run npm run generate -w packages/client)', () => {
    const committed = readFileSync(fileURLToPath(new URL('../../src/generated/ari.ts', import.meta.url)), 'utf8');
    assert.equal(committed, generateClientSource(buildOpenApiDocument(RESOURCES, '/ari')));
  });
});

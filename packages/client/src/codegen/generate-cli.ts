/** Writes src/generated/ari.ts from the API's OpenAPI document (`npm run generate -w packages/client`). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, RESOURCES } from '@switchboard/api';
import { generateClientSource } from './generate.js';

const target = fileURLToPath(new URL('../../src/generated/ari.ts', import.meta.url));
writeFileSync(target, generateClientSource(buildOpenApiDocument(RESOURCES, '/ari')));
console.log(`wrote ${target}`);

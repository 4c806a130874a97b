#!/usr/bin/env node
// The `switchboard` command as npm installs it (`npx switchboard`, `npm link`): runs the compiled
// server, or says how to build it when this checkout has not been built yet.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('switchboard: not built yet; run `npm run build` in the repository first\n');
  process.exit(1);
}
await import(main.href);

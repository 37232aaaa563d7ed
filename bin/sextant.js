#!/usr/bin/env node
// Entry point of the `sextant` command: runs the compiled CLI (built by `npm ci` / `npm run build`).
import { main } from '../dist/app/cli.js';

main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`sextant: ${err instanceof Error ? err.message : String(err)}\n`); process.exitCode = 1; },
);

#!/usr/bin/env node
// Entry point of the `sextant` command: runs the compiled CLI (built by `npm ci` / `npm run build`) and ends the
// process with the command's exit code as soon as the command is done, its output flushed.
import { main } from '../dist/app/cli.js';

// A reader that went away (`sextant plan | head -1`) ends the process quietly: nothing is left to say to it.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

/** Resolves once everything written to `stream` before has been handed to the system. */
const flushed = (stream) => new Promise((resolve) => stream.write('', () => resolve()));

// Whatever the command leaves behind (timers, sockets of a start that failed half-way) does not keep the
// process alive: the command's result is final.
const code = await main(process.argv);
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);

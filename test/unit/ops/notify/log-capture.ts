// A logger whose lines (after the secret scrubber, as they would be written) the test can read.
import type { DestinationStream } from 'pino';
import { createLogger, type Logger } from '../../../../src/util/logger.js';

export function capturedLogger(): { logger: Logger; lines: string[]; text: () => string } {
  const lines: string[] = [];
  const destination: DestinationStream = { write: (line: string) => void lines.push(line) };
  return { logger: createLogger({ level: 'debug', destination }), lines, text: () => lines.join('') };
}

/** Lets pending I/O and promise reactions run (one turn of the event loop; no time passes). */
export function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

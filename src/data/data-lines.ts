// The line reader every data file goes through: a file of any size read a chunk at a time, line by line.
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/**
 * Each line of a file (its number from 1, blank lines left out), read a chunk at a time: a file of any size, never
 * held whole in memory. The file is closed when the reading ends, or stops early.
 */
export function* dataLines(path: string): Generator<{ text: string; lineNo: number }, void, undefined> {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let lineNo = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const text = rest + decoder.write(buf.subarray(0, n));
      let from = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
        const line = text.slice(from, nl);
        from = nl + 1;
        lineNo++;
        if (line.trim() !== '') yield { text: line, lineNo };
      }
      rest = text.slice(from);
    }
    rest += decoder.end();
    lineNo++;
    if (rest.trim() !== '') yield { text: rest, lineNo };
  } finally {
    closeSync(fd);
  }
}

/** Hands each line of a file to `onLine` (see dataLines); `onLine` returning false stops the reading. */
export function eachDataLine(path: string, onLine: (text: string, lineNo: number) => boolean | void): void {
  for (const { text, lineNo } of dataLines(path)) if (onLine(text, lineNo) === false) return;
}

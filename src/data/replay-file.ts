// Replay files (JSON lines, one ReplayRecord each): read a chunk at a time, written whole or appended.
import { appendFileSync, closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { ReplayRecord } from '../domain/replay-record.js';

/**
 * Reads a replay file (one JSON object per line: ts, symbol, price, size[, bid, ask, buyerMaker]) a chunk at a
 * time, handing each record to `onRecord`: a file of any size, never held whole in memory.
 */
export function eachReplayRecord(path: string, onRecord: (r: ReplayRecord) => void): void {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let lineNo = 0;
    const line = (text: string) => {
      lineNo++;
      if (text.trim() === '') return;
      let r: Record<string, unknown>;
      try {
        r = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new Error(`${path}:${lineNo}: not a JSON object`);
      }
      if (typeof r.ts !== 'number' || typeof r.symbol !== 'string' || typeof r.price !== 'string' || typeof r.size !== 'string') {
        throw new Error(`${path}:${lineNo}: expected {"ts": number, "symbol": string, "price": string, "size": string}`);
      }
      onRecord(r as unknown as ReplayRecord);
    };
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const text = rest + decoder.write(buf.subarray(0, n));
      let from = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
        line(text.slice(from, nl));
        from = nl + 1;
      }
      rest = text.slice(from);
    }
    rest += decoder.end();
    if (rest !== '') line(rest);
  } finally {
    closeSync(fd);
  }
}

/** Reads a whole replay file into records (small files: the simulator's replay, tests). */
export function readReplayFile(path: string): ReplayRecord[] {
  const out: ReplayRecord[] = [];
  eachReplayRecord(path, (r) => out.push(r));
  return out;
}

/** Writes a replay file anew: the records given (none: an empty file). */
export function writeReplayFile(file: string, records: ReplayRecord[]): void {
  writeFileSync(file, records.length ? records.map((r) => JSON.stringify(r)).join('\n') + '\n' : '');
}

/** Appends records to a replay file (a recording as it goes). */
export function appendReplayRecords(file: string, records: ReplayRecord[]): void {
  if (records.length) appendFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

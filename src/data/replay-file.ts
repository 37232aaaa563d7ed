// Replay files: a data file of either kind read as ReplayRecords a chunk at a time (ticks as they are, candles along
// their intrabar path); tick files written whole or appended.
import { appendFileSync } from 'node:fs';
import { TIMEFRAME_MS } from '../domain/candles.js';
import type { ReplayRecord } from '../domain/replay-record.js';
import { assertNever } from '../util/assert-never.js';
import { CandleTicker, DataFileError, dataFileParts, describeDataFile, writeDataFile, type DataFileMeta } from './data-file.js';

/**
 * The records of a data file (data-file.ts: a header line, then ticks — ts, symbol, price, size[, bid, ask,
 * buyerMaker, mark, index] — or candles; a file without a header is ticks), read a chunk at a time: a file of any
 * size, never held whole in memory. A candle becomes four ticks along the intrabar path of its timeframe (the
 * header's), in time order, its mark and index (when given) on the close tick. A funding file is not market data:
 * an error.
 */
export function* replayRecords(path: string): Generator<ReplayRecord, void, undefined> {
  let ticker: CandleTicker | undefined;
  let meta: DataFileMeta | null = null;
  const ready: ReplayRecord[] = [];
  for (const part of dataFileParts(path)) {
    switch (part.kind) {
      case 'meta':
        meta = part.meta;
        if (part.meta?.kind === 'candles') ticker = new CandleTicker(TIMEFRAME_MS[part.meta.timeframe!], (r) => ready.push(r));
        break;
      case 'tick':
        yield part.record;
        break;
      case 'candle':
        ticker!.add(part.row);
        yield* ready;
        ready.length = 0;
        break;
      case 'funding':
        throw new DataFileError(`${path} holds ${describeDataFile(meta!)}, not market data to replay (a backtest names funding files under backtest.funding)`);
      default:
        assertNever(part);
    }
  }
  ticker?.flush();
  yield* ready;
}

/** Hands each record of a data file (see replayRecords) to `onRecord`. */
export function eachReplayRecord(path: string, onRecord: (r: ReplayRecord) => void): void {
  for (const r of replayRecords(path)) onRecord(r);
}

/** Reads a whole data file into records (small files: the simulator's replay, tests). */
export function readReplayFile(path: string): ReplayRecord[] {
  const out: ReplayRecord[] = [];
  eachReplayRecord(path, (r) => out.push(r));
  return out;
}

/** Writes a tick file anew, atomically: its header (kind `ticks`), then the records given. */
export function writeReplayFile(file: string, meta: DataFileMeta, records: ReplayRecord[]): void {
  if (meta.kind !== 'ticks') throw new RangeError(`writeReplayFile writes ticks, not ${meta.kind}`);
  writeDataFile(file, meta, records);
}

/** Appends records to a tick file (a recording as it goes). */
export function appendReplayRecords(file: string, records: ReplayRecord[]): void {
  if (records.length) appendFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

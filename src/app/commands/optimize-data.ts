// The data an optimisation works on: the span of the events it replays (the walk-forward windows are cut from it)
// and copies of the data cut at a time (the lookahead check's runs: the future is not in their file at all).
import { closeSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataFileError, dataLines, eachDataRow, readDataFileMeta } from '../../data/data-file.js';
import { TIMEFRAME_MS } from '../../domain/candles.js';

/**
 * The span an optimisation cuts its windows from (start included, end excluded): the span the files' headers say
 * they were written for, else their first event to their last (over several files, the earliest to the latest),
 * narrowed to --from and --to. An error when no event lies in it.
 */
export function dataSpan(files: readonly string[], fromMs?: number, toMs?: number): { fromMs: number; toMs: number } {
  const spans = files.map(fileSpan);
  const start = Math.max(Math.min(...spans.map((s) => s.fromMs)), fromMs ?? -Infinity);
  const end = Math.min(Math.max(...spans.map((s) => s.toMs)), toMs ?? Infinity);
  if (!spans.some((s) => s.events.some((ts) => ts >= start && ts < end))) throw new DataFileError(`${files.join(', ')}: no market event in the chosen range`);
  return { fromMs: start, toMs: end };
}

/** A file's span (the header's, else its first event to its last) and the times of its events. */
function fileSpan(file: string): { fromMs: number; toMs: number; events: number[] } {
  const events: number[] = [];
  let periodMs = 0;
  let header: { fromMs?: number; toMs?: number } = {};
  eachDataRow(file, {
    onMeta: (meta) => {
      periodMs = meta?.kind === 'candles' ? TIMEFRAME_MS[meta.timeframe!] : 0;
      header = meta ?? {};
    },
    onTick: (r) => void events.push(r.ts),
    // A bar replays as four ticks over its period (data/data-file.ts, candleTicks): its first and last.
    onCandle: (row) => void events.push(row.ts, row.ts + Math.floor((periodMs * 3) / 4)),
  });
  if (events.length === 0) throw new DataFileError(`${file}: no market event`);
  let first = Infinity;
  let last = -Infinity;
  for (const ts of events) {
    if (ts < first) first = ts;
    if (ts > last) last = ts;
  }
  // Ends are exclusive (windows are [from, to)): the header's, or the last event's time. An event stamped exactly at
  // the end is left out: windows end on the times given, not a millisecond after them.
  return {
    fromMs: header.fromMs !== undefined && header.fromMs <= first ? header.fromMs : first,
    toMs: header.toMs !== undefined && header.toMs >= last ? header.toMs : last,
    events,
  };
}

/** The length of one bar of the longest-barred candle file (what is still forming at a cut), 0 for ticks. */
export function barMs(files: readonly string[]): number {
  return Math.max(
    0,
    ...files.map((file) => {
      const meta = readDataFileMeta(file);
      return meta?.kind === 'candles' ? TIMEFRAME_MS[meta.timeframe!] : 0;
    }),
  );
}

/**
 * Copies `file` into `out` up to `cutMs`: ticks at or before it; bars complete by it (closed at or before it).
 * The header says the copy ends there. Written beside and renamed: a reader never sees half a file.
 */
export function cutDataFile(file: string, cutMs: number, out: string): void {
  mkdirSync(dirname(out), { recursive: true });
  const meta = readDataFileMeta(file);
  const periodMs = meta?.kind === 'candles' ? TIMEFRAME_MS[meta.timeframe!] : 0;
  const part = `${out}.part`;
  const fd = openSync(part, 'w');
  try {
    let chunk: string[] = [];
    let size = 0;
    const flush = () => {
      writeSync(fd, chunk.join(''));
      chunk = [];
      size = 0;
    };
    let first = true;
    for (const { text } of dataLines(file)) {
      const obj = JSON.parse(text) as { ts?: number; sextant?: string };
      if (first && meta && obj.sextant !== undefined) {
        chunk.push(`${JSON.stringify({ ...meta, toMs: Math.min(meta.toMs ?? Infinity, cutMs + 1) })}\n`);
      } else if (typeof obj.ts === 'number' && obj.ts + periodMs <= cutMs + (periodMs ? 1 : 0)) {
        chunk.push(`${text}\n`);
        size += text.length;
      }
      first = false;
      if (size > 1 << 20) flush();
    }
    flush();
  } finally {
    closeSync(fd);
  }
  renameSync(part, out);
}

// Market data files: the header line that says what a file holds, candle rows and the intrabar path a bar replays
// as, funding-rate rows, how a file is read part by part (its lines: data-lines.ts), and the atomic writer.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { TIMEFRAME_MS, isTimeframe, type Timeframe } from '../domain/candles.js';
import { Decimal } from '../domain/decimal.js';
import type { ReplayRecord } from '../domain/replay-record.js';
import { assertNever } from '../util/assert-never.js';
import { dataLines, eachDataLine } from './data-lines.js';

export { dataLines, eachDataLine };

/** A data file that cannot be read as what it says it is (the message names file and line). */
export class DataFileError extends Error {}

export const DATA_FILE_VERSION = 1;

/** Market events to replay (ticks, candles), or a contract's settled funding rates (named by `backtest.funding`). */
export type DataKind = 'ticks' | 'candles' | 'funding';

/**
 * The first line of a data file: `{"sextant":"market-data","version":1,"kind":…,"timeframe":…,"symbols":[…],
 * "source":…,"fromMs":…,"toMs":…}`. `timeframe` only for candles. `fromMs` (inclusive) and `toMs` (exclusive):
 * the span the file was written for, when known (a recording knows its start only); holes are possible.
 */
export interface DataFileMeta {
  sextant: 'market-data';
  version: typeof DATA_FILE_VERSION;
  kind: DataKind;
  timeframe?: Timeframe;
  symbols: string[];
  /** Who wrote it: `record <venue>`, `download <venue> F11`, `download <venue> F16`, `synth seed 7`, `import bars.csv`. */
  source: string;
  fromMs?: number;
  toMs?: number;
}

/** A header with its keys in the documented order (the file's first line is byte-for-byte reproducible). */
export function dataFileMeta(fields: Omit<DataFileMeta, 'sextant' | 'version'>): DataFileMeta {
  if (fields.kind === 'candles' && !fields.timeframe) throw new RangeError('a candle file names its timeframe');
  return {
    sextant: 'market-data', version: DATA_FILE_VERSION, kind: fields.kind,
    ...(fields.kind === 'candles' && fields.timeframe ? { timeframe: fields.timeframe } : {}),
    symbols: [...fields.symbols], source: fields.source,
    ...(fields.fromMs !== undefined ? { fromMs: fields.fromMs } : {}),
    ...(fields.toMs !== undefined ? { toMs: fields.toMs } : {}),
  };
}

/** What a file holds, in words: `1h candles of cmt_btcusdt`, `ticks of BTCUSDT_SPBL, cmt_ethusdt`, `funding rates of cmt_btcusdt`. */
export function describeDataFile(meta: DataFileMeta): string {
  const what = meta.kind === 'candles' ? `${meta.timeframe} candles` : meta.kind === 'funding' ? 'funding rates' : 'ticks';
  return `${what} of ${meta.symbols.join(', ')}`;
}

/** The data files of `backtest.data` (one file, or several replayed as one) as a list. */
export function dataFileList(data: string | readonly string[]): string[] {
  return typeof data === 'string' ? [data] : [...data];
}

/** The data files as named in messages and reports: the file, or the files separated by commas. */
export function dataFilesName(data: string | readonly string[]): string {
  return dataFileList(data).join(', ');
}

/** A time as shown in messages: ISO 8601, UTC, without milliseconds when there are none. */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/**
 * The header in a line of JSON, or null when the object is not a header (a record: a file without a header). A
 * header that is malformed, or of a later version, is an error.
 */
function headerOf(obj: Record<string, unknown>, where: string): DataFileMeta | null {
  if (!('sextant' in obj)) return null;
  const bad = (what: string) => new DataFileError(`${where}: not a market data header: ${what}`);
  if (obj.sextant !== 'market-data') throw bad(`"sextant" is ${JSON.stringify(obj.sextant)}, expected "market-data"`);
  if (typeof obj.version !== 'number' || !Number.isInteger(obj.version) || obj.version < 1) throw bad('"version" is not a whole number');
  if (obj.version > DATA_FILE_VERSION) throw new DataFileError(`${where}: a market data file of version ${obj.version}; this sextant reads version ${DATA_FILE_VERSION}`);
  if (obj.kind !== 'ticks' && obj.kind !== 'candles' && obj.kind !== 'funding') throw bad(`"kind" is ${JSON.stringify(obj.kind)}, expected "ticks", "candles" or "funding"`);
  if (obj.kind === 'candles' && (typeof obj.timeframe !== 'string' || !isTimeframe(obj.timeframe))) throw bad(`"timeframe" is ${JSON.stringify(obj.timeframe)}: candles need one of ${Object.keys(TIMEFRAME_MS).join(', ')}`);
  if (!Array.isArray(obj.symbols) || !obj.symbols.every((s) => typeof s === 'string' && s !== '')) throw bad('"symbols" is not a list of symbols');
  if (typeof obj.source !== 'string') throw bad('"source" is not a string');
  for (const key of ['fromMs', 'toMs'] as const) {
    if (obj[key] !== undefined && (typeof obj[key] !== 'number' || !Number.isSafeInteger(obj[key]))) throw bad(`"${key}" is not a time in ms`);
  }
  return dataFileMeta({
    kind: obj.kind, ...(obj.kind === 'candles' ? { timeframe: obj.timeframe as Timeframe } : {}),
    symbols: obj.symbols as string[], source: obj.source,
    ...(obj.fromMs !== undefined ? { fromMs: obj.fromMs as number } : {}), ...(obj.toMs !== undefined ? { toMs: obj.toMs as number } : {}),
  });
}

function parseLine(text: string, path: string, lineNo: number): Record<string, unknown> {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    throw new DataFileError(`${path}:${lineNo}: not a JSON object`);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new DataFileError(`${path}:${lineNo}: not a JSON object`);
  return obj as Record<string, unknown>;
}

/** The header of a data file, or null for a file without one (an older or hand-made tick file, an empty file). */
export function readDataFileMeta(path: string): DataFileMeta | null {
  let meta: DataFileMeta | null = null;
  eachDataLine(path, (text, lineNo) => {
    meta = headerOf(parseLine(text, path, lineNo), `${path}:${lineNo}`);
    return false;
  });
  return meta;
}

/**
 * One candle of a candle file: open time and exact decimal strings; `volume` in the base currency. Futures may carry
 * the contract's mark and index price at the candle's close (its close tick carries them; see candleTicks).
 */
export interface CandleRow {
  ts: number;
  symbol: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  mark?: string;
  index?: string;
}

/** A candle's prices and volume as exact numbers, after the checks every candle passes (names the culprit). */
export function checkedCandle(fields: { open: string; high: string; low: string; close: string; volume: string }, fail: (field: keyof typeof fields, what: string) => Error): { open: Decimal; high: Decimal; low: Decimal; close: Decimal; volume: Decimal } {
  const num = (field: keyof typeof fields) => {
    const d = Decimal.parse(fields[field]);
    if (!d || d.isNegative()) throw fail(field, `${field} ${JSON.stringify(fields[field])} is not a non-negative decimal`);
    return d;
  };
  const c = { open: num('open'), high: num('high'), low: num('low'), close: num('close'), volume: num('volume') };
  if (c.high.lt(c.open) || c.high.lt(c.close) || c.high.lt(c.low) || c.low.gt(c.open) || c.low.gt(c.close)) throw fail('high', 'high and low do not bound open and close');
  return c;
}

/** A candle row as written: the fields in order, prices as exact normalised decimal strings. */
export function candleRow(symbol: string, ts: number, c: { open: Decimal; high: Decimal; low: Decimal; close: Decimal; volume: Decimal }): CandleRow {
  return { ts, symbol, open: c.open.toString(), high: c.high.toString(), low: c.low.toString(), close: c.close.toString(), volume: c.volume.toString() };
}

/** The optional mark and index prices of a row: positive decimal strings when present. */
function markIndexOf(obj: Record<string, unknown>, where: string): { mark?: string; index?: string } {
  const out: { mark?: string; index?: string } = {};
  for (const key of ['mark', 'index'] as const) {
    const v = obj[key];
    if (v === undefined) continue;
    const d = typeof v === 'string' ? Decimal.parse(v) : null;
    if (!d || !d.gt(Decimal.ZERO)) throw new DataFileError(`${where}: ${key} ${JSON.stringify(v)} is not a positive decimal string`);
    out[key] = v as string;
  }
  return out;
}

function parseCandleRow(obj: Record<string, unknown>, where: string): CandleRow {
  const strings = ['open', 'high', 'low', 'close', 'volume'] as const;
  if (typeof obj.ts !== 'number' || !Number.isSafeInteger(obj.ts) || typeof obj.symbol !== 'string' || strings.some((k) => typeof obj[k] !== 'string')) {
    throw new DataFileError(`${where}: expected {"ts": number, "symbol": string, "open", "high", "low", "close", "volume": decimal strings}`);
  }
  const row = obj as unknown as CandleRow;
  checkedCandle(row, (_field, what) => new DataFileError(`${where}: ${what}`));
  return { ts: row.ts, symbol: row.symbol, open: row.open, high: row.high, low: row.low, close: row.close, volume: row.volume, ...markIndexOf(obj, where) };
}

function parseTickRecord(obj: Record<string, unknown>, path: string, lineNo: number): ReplayRecord {
  if (typeof obj.ts !== 'number' || typeof obj.symbol !== 'string' || typeof obj.price !== 'string' || typeof obj.size !== 'string') {
    throw new DataFileError(`${path}:${lineNo}: expected {"ts": number, "symbol": string, "price": string, "size": string}`);
  }
  if (obj.mark !== undefined || obj.index !== undefined) markIndexOf(obj, `${path}:${lineNo}`);
  return obj as unknown as ReplayRecord;
}

/** One settled funding rate of a funding file (F16): the settlement time and the rate (positive: longs pay). */
export interface FundingRow {
  symbol: string;
  fundingTimeMs: number;
  rate: string;
}

function parseFundingRow(obj: Record<string, unknown>, where: string): FundingRow {
  if (typeof obj.symbol !== 'string' || typeof obj.fundingTimeMs !== 'number' || !Number.isSafeInteger(obj.fundingTimeMs) || typeof obj.rate !== 'string' || !Decimal.parse(obj.rate)) {
    throw new DataFileError(`${where}: expected {"symbol": string, "fundingTimeMs": number, "rate": decimal string}`);
  }
  return { symbol: obj.symbol, fundingTimeMs: obj.fundingTimeMs, rate: obj.rate };
}

const FOUR = Decimal.fromInt(4);
/** The size of each tick of a bar that traded nothing (a replay record is a trade: never size 0). */
const NO_VOLUME_TICK_SIZE = '0.000001';

/**
 * The intrabar path of one bar of `periodMs` (its own timeframe, whatever the gap to the next bar): four ticks at
 * 0, ¼, ½ and ¾ of the bar: open, then the extreme the bar went to first, then the other, then close. A bar that
 * closes up is taken to have gone down first (open, low, high, close); one that closes down, up first (open, high,
 * low, close). Each tick carries a quarter of the volume, exactly (a bar with volume 0: the smallest size).
 */
export function candleTicks(row: CandleRow, periodMs: number): ReplayRecord[] {
  const c = checkedCandle(row, (_field, what) => new DataFileError(`${row.symbol} candle at ${isoOf(row.ts)}: ${what}`));
  const path = c.close.gte(c.open) ? [c.open, c.low, c.high, c.close] : [c.open, c.high, c.low, c.close];
  // A quarter of a decimal of scale s has at most s + 2 places: exact.
  const quarter = c.volume.isZero() ? NO_VOLUME_TICK_SIZE : c.volume.div(FOUR, c.volume.scale + 2).toString();
  // Mark and index are known at the close only: the close tick carries them (earlier ones would see the future).
  const atClose = { ...(row.mark !== undefined ? { mark: row.mark } : {}), ...(row.index !== undefined ? { index: row.index } : {}) };
  return path.map((price, k) => ({ ts: row.ts + Math.floor((periodMs * k) / 4), symbol: row.symbol, price: price.toString(), size: quarter, ...(k === 3 ? atClose : {}) }));
}

/**
 * Candle rows to ticks in time order: each bar's path is held until no later row can come before it (rows come
 * sorted by open time; several symbols' bars of one instant interleave, each symbol's ticks in path order).
 */
export class CandleTicker {
  private pending: ReplayRecord[] = [];

  constructor(
    private readonly periodMs: number,
    private readonly onRecord: (r: ReplayRecord) => void,
  ) {}

  add(row: CandleRow): void {
    this.flush(row.ts);
    this.pending.push(...candleTicks(row, this.periodMs));
    // A stable sort: ticks of one instant keep the order their rows came in.
    this.pending.sort((a, b) => a.ts - b.ts);
  }

  /** Hands on every tick up to `uptoMs` (all of them by default). */
  flush(uptoMs = Number.POSITIVE_INFINITY): void {
    let n = 0;
    while (n < this.pending.length && this.pending[n]!.ts <= uptoMs) this.onRecord(this.pending[n++]!);
    if (n) this.pending = this.pending.slice(n);
  }
}

/** What is done with each part of a data file as it is read. */
export interface DataFileHandlers {
  /** The header, or null for a file without one (called once, before any row). */
  onMeta(meta: DataFileMeta | null): void;
  onTick(record: ReplayRecord): void;
  onCandle(row: CandleRow): void;
  /** Rows of a funding file; without it, a funding file is an error. */
  onFunding?(row: FundingRow): void;
}

/** One part of a data file as it is read: its header (null: a file without one), then its rows. */
export type DataFilePart =
  | { kind: 'meta'; meta: DataFileMeta | null }
  | { kind: 'tick'; record: ReplayRecord }
  | { kind: 'candle'; row: CandleRow }
  | { kind: 'funding'; row: FundingRow };

/**
 * Reads a data file: its header (when its first line is one; always the first part) and its rows, checked. A candle
 * file's rows must come in open-time order, each symbol's at least a timeframe apart, of the symbols the header
 * lists; a funding file's in settlement-time order, of the symbols the header lists.
 */
export function* dataFileParts(path: string): Generator<DataFilePart, void, undefined> {
  let meta: DataFileMeta | null | undefined;
  let lastTs = Number.NEGATIVE_INFINITY;
  const lastBySymbol = new Map<string, number>();
  for (const { text, lineNo } of dataLines(path)) {
    const obj = parseLine(text, path, lineNo);
    if (meta === undefined) {
      meta = headerOf(obj, `${path}:${lineNo}`);
      yield { kind: 'meta', meta };
      if (meta) continue;
    } else if ('sextant' in obj) {
      throw new DataFileError(`${path}:${lineNo}: a header line after the first line`);
    }
    if (!meta || meta.kind === 'ticks') {
      yield { kind: 'tick', record: parseTickRecord(obj, path, lineNo) };
      continue;
    }
    const where = `${path}:${lineNo}`;
    if (meta.kind === 'funding') {
      const row = parseFundingRow(obj, where);
      if (!meta.symbols.includes(row.symbol)) throw new DataFileError(`${where}: symbol ${row.symbol} is not among the header's symbols (${meta.symbols.join(', ')})`);
      if (row.fundingTimeMs < lastTs) throw new DataFileError(`${where}: funding rates out of time order (${isoOf(row.fundingTimeMs)} after ${isoOf(lastTs)})`);
      lastTs = row.fundingTimeMs;
      yield { kind: 'funding', row };
      continue;
    }
    const row = parseCandleRow(obj, where);
    const periodMs = TIMEFRAME_MS[meta.timeframe!];
    if (!meta.symbols.includes(row.symbol)) throw new DataFileError(`${where}: symbol ${row.symbol} is not among the header's symbols (${meta.symbols.join(', ')})`);
    if (row.ts < lastTs) throw new DataFileError(`${where}: candles out of time order (${isoOf(row.ts)} after ${isoOf(lastTs)})`);
    const prev = lastBySymbol.get(row.symbol);
    if (prev !== undefined && row.ts - prev < periodMs) throw new DataFileError(`${where}: ${row.symbol} candle at ${isoOf(row.ts)} is less than ${meta.timeframe} after the one at ${isoOf(prev)}`);
    lastTs = row.ts;
    lastBySymbol.set(row.symbol, row.ts);
    yield { kind: 'candle', row };
  }
  if (meta === undefined) yield { kind: 'meta', meta: null };
}

/** Reads a data file (see dataFileParts), handing each part to its handler. */
export function eachDataRow(path: string, handlers: DataFileHandlers): void {
  let meta: DataFileMeta | null = null;
  for (const part of dataFileParts(path)) {
    switch (part.kind) {
      case 'meta':
        meta = part.meta;
        handlers.onMeta(meta);
        break;
      case 'tick':
        handlers.onTick(part.record);
        break;
      case 'candle':
        handlers.onCandle(part.row);
        break;
      case 'funding':
        if (!handlers.onFunding) throw new DataFileError(`${path} holds ${describeDataFile(meta!)}, not market data to replay (a backtest names funding files under backtest.funding)`);
        handlers.onFunding(part.row);
        break;
      default:
        assertNever(part);
    }
  }
}

/** A funding file whole: its header and rows (a backtest's replayed funding; resuming a download). Throws when it is not one. */
export function readFundingFile(path: string): { meta: DataFileMeta; rows: FundingRow[] } {
  let header: DataFileMeta | null = null;
  const rows: FundingRow[] = [];
  eachDataRow(path, {
    onMeta: (meta) => {
      if (meta?.kind !== 'funding') throw new DataFileError(`${path}: not a funding file (it holds ${meta ? describeDataFile(meta) : 'ticks without a header'})`);
      header = meta;
    },
    onTick: () => {},
    onCandle: () => {},
    onFunding: (row) => rows.push(row),
  });
  return { meta: header!, rows };
}

/** Funding rows in file order: by settlement time, then symbol; one row per symbol and time (the first given kept). */
export function sortedFunding(rows: Iterable<FundingRow>): FundingRow[] {
  const byKey = new Map<string, FundingRow>();
  for (const row of rows) {
    const key = `${row.symbol}\u0000${row.fundingTimeMs}`;
    if (!byKey.has(key)) byKey.set(key, row);
  }
  return [...byKey.values()].sort((a, b) => a.fundingTimeMs - b.fundingTimeMs || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
}

/** A candle file whole: its header and rows (resuming a download; tests). Throws when the file is not candles. */
export function readCandleFile(path: string): { meta: DataFileMeta; rows: CandleRow[] } {
  let header: DataFileMeta | null = null;
  const rows: CandleRow[] = [];
  eachDataRow(path, {
    onMeta: (meta) => {
      if (meta?.kind !== 'candles') throw new DataFileError(`${path}: not a candle file (it holds ${meta ? describeDataFile(meta) : 'ticks without a header'})`);
      header = meta;
    },
    onTick: () => {},
    onCandle: (row) => rows.push(row),
  });
  return { meta: header!, rows };
}

/**
 * Writes a data file anew, whole, atomically (a temporary file beside it, then a rename: a reader, or a run
 * interrupted half-way, never sees half a file): the header, then one JSON line per row.
 */
export function writeDataFile(file: string, meta: DataFileMeta, rows: readonly object[]): void {
  const tmp = `${file}.tmp`;
  try {
    writeFileSync(tmp, [meta, ...rows].map((row) => JSON.stringify(row)).join('\n') + '\n');
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Candle rows in file order: by open time, then symbol; one row per symbol and open time (the first given kept). */
export function sortedCandles(rows: Iterable<CandleRow>): CandleRow[] {
  const byKey = new Map<string, CandleRow>();
  for (const row of rows) {
    const key = `${row.symbol}\u0000${row.ts}`;
    if (!byKey.has(key)) byKey.set(key, row);
  }
  return [...byKey.values()].sort((a, b) => a.ts - b.ts || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
}

// Whether data files can feed a backtest's strategies: the market data (its symbols, candles no coarser than the
// bars asked for, the window) and the funding files (settled rates of contracts the simulator trades).
import { TIMEFRAME_MS, type Timeframe } from '../domain/candles.js';
import { Decimal } from '../domain/decimal.js';
import { DataFileError, dataFileList, describeDataFile, isoOf, readDataFileMeta, readFundingFile, type DataFileMeta } from './data-file.js';

/** What a backtest will ask of its data: the symbols its strategies trade and the bar timeframes they want. */
export interface DataDemand {
  symbols: ReadonlyArray<{ strategy: string; symbol: string }>;
  timeframes: ReadonlyArray<{ strategy: string; timeframe: Timeframe }>;
  /** The file, as named in messages. */
  file: string;
  /** The replay window asked for (--from / --to), when given. */
  fromMs?: number;
  toMs?: number;
}

/**
 * Whether a data file can feed the strategies: each problem in a sentence (none: it can). A file without a header
 * (ticks of unknown origin) says nothing to check. Bars finer than a file's candles, or not a whole number of them,
 * would be made up from the intrabar path, not read from the market.
 */
export function checkDataPairing(meta: DataFileMeta | null, demand: DataDemand): string[] {
  return pairingProblems([{ file: demand.file, meta }], demand);
}

/**
 * Whether data files (`backtest.data`: one, or several replayed as one) can feed the strategies: as checkDataPairing,
 * the symbols and the window judged over the files together (a file without a header: over none).
 */
export function checkDataFiles(data: string | readonly string[], demand: Omit<DataDemand, 'file'>): string[] {
  return pairingProblems(dataFileList(data).map((file) => ({ file, meta: readDataFileMeta(file) })), demand);
}

function pairingProblems(files: ReadonlyArray<{ file: string; meta: DataFileMeta | null }>, demand: Omit<DataDemand, 'file'>): string[] {
  const problems: string[] = [];
  const market: Array<{ file: string; meta: DataFileMeta }> = [];
  for (const { file, meta } of files) {
    if (meta?.kind === 'funding') problems.push(`${file} holds ${describeDataFile(meta)}, not market data to replay: name it under backtest.funding`);
    else if (meta) market.push({ file, meta });
  }
  if (problems.length > 0 || market.length === 0) return problems;
  // Judged together only when every file says what it holds.
  const whole = market.length === files.length;
  const one = files.length === 1;
  const name = files.map((f) => f.file).join(', ');
  const holds = `${name} ${one ? 'holds' : 'hold'} ${market.map((m) => describeDataFile(m.meta)).join('; ')}`;
  const missing = new Map<string, string[]>();
  for (const { strategy, symbol } of whole ? demand.symbols : []) {
    if (market.some((m) => m.meta.symbols.includes(symbol))) continue;
    const strategies = missing.get(symbol) ?? [];
    if (!strategies.includes(strategy)) missing.set(symbol, [...strategies, strategy]);
  }
  for (const [symbol, strategies] of missing) {
    const who = strategies.length > 1 ? `strategies ${strategies.join(', ')} trade` : `strategy ${strategies[0]} trades`;
    problems.push(`${holds}: no data for ${symbol}, which ${who}`);
  }
  for (const { file, meta } of market) {
    if (meta.kind !== 'candles') continue;
    const tf = meta.timeframe!;
    const candleMs = TIMEFRAME_MS[tf];
    const seen = new Set<string>();
    for (const { strategy, timeframe } of demand.timeframes) {
      const key = `${strategy}\u0000${timeframe}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const barMs = TIMEFRAME_MS[timeframe];
      if (barMs < candleMs) problems.push(`strategy ${strategy} asks for ${timeframe} bars; ${file} holds ${tf} candles: the bars would be made up`);
      else if (barMs % candleMs !== 0) problems.push(`strategy ${strategy} asks for ${timeframe} bars; ${file} holds ${tf} candles: a ${timeframe} bar is not a whole number of ${tf} candles`);
    }
  }
  const { fromMs, toMs } = demand;
  const spans = market.map((m) => m.meta);
  if (whole && spans.every((m) => m.fromMs !== undefined && m.toMs !== undefined)) {
    const dataFrom = Math.min(...spans.map((m) => m.fromMs!));
    const dataTo = Math.max(...spans.map((m) => m.toMs!));
    if ((toMs !== undefined && toMs <= dataFrom) || (fromMs !== undefined && fromMs >= dataTo)) {
      problems.push(`${name} ${one ? 'covers' : 'cover'} ${isoOf(dataFrom)} to ${isoOf(dataTo)}; the window asked for (${fromMs !== undefined ? isoOf(fromMs) : 'its start'} to ${toMs !== undefined ? isoOf(toMs) : 'its end'}) lies outside it`);
    }
  }
  return problems;
}

/** How a symbol's prices come in a backtest's data: the file kind in words, and the longest regular gap between them. */
export interface PriceCadence {
  /** `1m candles`, `ticks`: the finest data of the symbol. */
  data: string;
  /** A candle replays as four ticks a quarter of its timeframe apart; ticks come as recorded (0: no cadence of their own). */
  everyMs: number;
}

/**
 * The cadence of each symbol's prices in a backtest's market data (`backtest.data`, one file or several): a symbol in
 * several files takes the finest (ticks before candles, then the shortest timeframe). A file without a header holds
 * ticks of symbols it does not name: the map has no entry for them.
 */
export function priceCadence(data: string | readonly string[]): Map<string, PriceCadence> {
  const out = new Map<string, PriceCadence>();
  for (const file of dataFileList(data)) {
    const meta = readDataFileMeta(file);
    if (!meta || meta.kind === 'funding') continue;
    const cadence: PriceCadence =
      meta.kind === 'candles' ? { data: `${meta.timeframe!} candles`, everyMs: TIMEFRAME_MS[meta.timeframe!] / 4 } : { data: 'ticks', everyMs: 0 };
    for (const symbol of meta.symbols) {
      const before = out.get(symbol);
      if (!before || cadence.everyMs < before.everyMs) out.set(symbol, cadence);
    }
  }
  return out;
}

/** One settled funding rate of a contract, as the simulator replays it. */
export interface ReplayedSettlement {
  settlementMs: number;
  rate: Decimal;
}

/**
 * The funding files of a backtest (`backtest.funding`) read into each contract's settlements, in time order, or the
 * problems in sentences: a file that is not a funding file, a symbol that is not one of the simulator's futures
 * contracts, two files giving one settlement different rates.
 */
export function replayedFunding(files: readonly string[], futures: ReadonlySet<string>): { bySymbol: Map<string, ReplayedSettlement[]>; problems: string[] } {
  const problems: string[] = [];
  const seen = new Map<string, { rate: Decimal; file: string }>();
  const bySymbol = new Map<string, ReplayedSettlement[]>();
  for (const file of files) {
    let rows;
    try {
      rows = readFundingFile(file).rows;
    } catch (err) {
      if (!(err instanceof DataFileError)) throw err;
      problems.push(`backtest.funding: ${err.message}`);
      continue;
    }
    for (const row of rows) {
      if (!futures.has(row.symbol)) {
        const problem = `backtest.funding: ${file} holds funding rates of ${row.symbol}, which is not a futures contract of the simulator`;
        if (!problems.includes(problem)) problems.push(problem);
        continue;
      }
      const rate = Decimal.from(row.rate);
      const key = `${row.symbol}\u0000${row.fundingTimeMs}`;
      const before = seen.get(key);
      if (before) {
        if (!before.rate.eq(rate)) problems.push(`backtest.funding: ${before.file} and ${file} give ${row.symbol} at ${isoOf(row.fundingTimeMs)} different rates (${before.rate.toString()}, ${rate.toString()})`);
        continue;
      }
      seen.set(key, { rate, file });
      const list = bySymbol.get(row.symbol) ?? [];
      list.push({ settlementMs: row.fundingTimeMs, rate });
      bySymbol.set(row.symbol, list);
    }
  }
  for (const list of bySymbol.values()) list.sort((a, b) => a.settlementMs - b.settlementMs);
  return { bySymbol, problems };
}

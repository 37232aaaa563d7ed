// `sextant data synth|import|download`: market data files for backtests: synthetic, from OHLCV CSV, or the venue's
// candle history or settled funding rates.
import { basename } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { isoMs, importOhlcvCsv } from '../../data/csv-import.js';
import { dataFileMeta, isoOf, writeDataFile } from '../../data/data-file.js';
import { downloadCandles, downloadFunding, FUNDING_HISTORY_LIMIT, type CandleGap, type DownloadResult } from '../../data/download.js';
import { isTimeframe, TIMEFRAMES, TIMEFRAME_MS, type Timeframe } from '../../domain/candles.js';
import { ExchangeError } from '../../exchange/errors.js';
import { DEFAULT_INSTRUMENTS } from '../../exchange/sim/instruments.js';
import { systemClock } from '../../util/clock.js';
import { createLogger } from '../../util/logger.js';
import { symbolsAtVenue } from '../instrument-list.js';
import { createLiveClient, openCommandVenue, venueName } from '../kernel.js';
import { waitForStop } from '../signals.js';
import { synthesize } from '../synth.js';
import { DEFAULT_CONFIG, type Io, type SetCode } from './io.js';
import { loadForCommand } from './load-for-command.js';

interface SynthOptions {
  symbol: string;
  from: string;
  to: string;
  interval: string;
  seed: string;
  out: string;
  revert?: string;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function synth(opts: SynthOptions, io: Io): number {
  const symbols = opts.symbol.split(',');
  const specs = DEFAULT_INSTRUMENTS.filter((spec) => symbols.includes(spec.symbol));
  const unknown = symbols.filter((symbol) => !specs.some((spec) => spec.symbol === symbol));
  const fromMs = isoMs(opts.from);
  const toMs = isoMs(opts.to);
  const interval = /^(\d+)(ms|s|m)$/.exec(opts.interval);
  const revert = opts.revert === undefined ? undefined : /^([1-9]\d*)(ms|s|m|h)$/.exec(opts.revert);
  const problems = [
    ...unknown.map((symbol) => `--symbol: unknown instrument ${symbol} (known: ${DEFAULT_INSTRUMENTS.map((spec) => spec.symbol).join(', ')})`),
    ...(fromMs === undefined ? [`--from: not an ISO 8601 time (UTC unless it names its zone): ${opts.from}`] : []),
    ...(toMs === undefined || (fromMs !== undefined && toMs <= fromMs) ? [`--to: must be an ISO 8601 time after --from: ${opts.to}`] : []),
    ...(!interval ? [`--interval: expected e.g. 250ms, 1s, 1m; got ${opts.interval}`] : []),
    ...(!/^\d+$/.test(opts.seed) ? [`--seed: expected a whole number, got ${opts.seed}`] : []),
    ...(revert === null ? [`--revert: expected a half-life above 0, e.g. 30m or 2h; got ${opts.revert}`] : []),
  ];
  if (problems.length || !interval || revert === null || fromMs === undefined || toMs === undefined) {
    problems.forEach((problem) => io.err(problem));
    return 1;
  }
  const intervalMs = Number(interval[1]) * UNIT_MS[interval[2]!]!;
  const revertHalfLifeMs = revert ? Number(revert[1]) * UNIT_MS[revert[2]!]! : undefined;
  const ticks = synthesize(specs, { fromMs, toMs, intervalMs, seed: Number(opts.seed), out: opts.out, ...(revertHalfLifeMs ? { revertHalfLifeMs } : {}) });
  io.out(`${opts.out}: ${ticks} ticks`);
  return 0;
}

interface ImportOptions {
  csv: string;
  symbol: string;
  timeframe?: string;
  out: string;
}

function importCsv(opts: ImportOptions, io: Io): number {
  if (opts.timeframe !== undefined && !isTimeframe(opts.timeframe)) {
    io.err(`--timeframe: expected one of ${TIMEFRAMES.join(', ')}; got ${opts.timeframe}`);
    return 1;
  }
  try {
    const { timeframe, candles } = importOhlcvCsv(opts.csv, opts.symbol, opts.timeframe as Timeframe | undefined);
    const meta = dataFileMeta({
      kind: 'candles',
      timeframe,
      symbols: [opts.symbol],
      source: `import ${basename(opts.csv)}`,
      fromMs: candles[0]!.ts,
      toMs: candles[candles.length - 1]!.ts + TIMEFRAME_MS[timeframe],
    });
    writeDataFile(opts.out, meta, candles);
    io.out(`${opts.out}: ${candles.length} ${timeframe} candles of ${opts.symbol}, ${isoOf(meta.fromMs!)} to ${isoOf(meta.toMs!)}`);
    return 0;
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  }
}

interface DownloadOptions {
  kind: string;
  symbol: string;
  timeframe?: string;
  from?: string;
  to?: string;
  latest?: boolean;
  out: string;
  config: string;
}

/** Gaps listed one a line, at most this many (then a count of the rest). */
const GAPS_LISTED = 20;

function gapLines(gaps: CandleGap[], tf: Timeframe): string[] {
  const lines = gaps
    .slice(0, GAPS_LISTED)
    .map((g) => `gap: ${g.symbol} ${isoOf(g.fromMs)} to ${isoOf(g.toMs)} (${g.candles} ${tf} candle${g.candles === 1 ? '' : 's'}): the venue served none`);
  const rest = gaps.slice(GAPS_LISTED);
  if (rest.length) lines.push(`… and ${rest.length} more gaps (${rest.reduce((n, g) => n + g.candles, 0)} candles)`);
  return lines;
}

function summary(out: string, tf: Timeframe, r: DownloadResult): string {
  const asked = [
    r.requests.F11 ? `${r.requests.F11} F11 request${r.requests.F11 === 1 ? '' : 's'}` : '',
    r.requests.S10 ? `${r.requests.S10} S10 request${r.requests.S10 === 1 ? '' : 's'}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `${out}: ${r.candles} ${tf} candles of ${r.meta.symbols.join(', ')}, ${isoOf(r.meta.fromMs!)} to ${isoOf(r.meta.toMs!)}; ${r.fetched} new from ${asked || 'no request'}`;
}

/** The command's public reads, on the configured venue (no keys go out); closed by `close`. */
async function publicVenue(config: string, io: Io) {
  const check = await loadForCommand(config, io, { strategies: false });
  if (!check) return undefined;
  const logger = createLogger({ level: 'warn', fd: 2 });
  const venue = await openCommandVenue(check.loaded, logger, systemClock);
  const client = createLiveClient({ ...venue.loaded, credentials: undefined }, logger, systemClock);
  return {
    venue,
    client,
    close: async () => {
      await client.close();
      await venue.close();
    },
  };
}

/**
 * `--kind funding`: the latest settled funding rates of futures contracts (F16) into a funding file, merged into the
 * one at --out. F16 takes no time window: the latest 100 settlements a contract are all there is.
 */
async function downloadFundingRates(opts: DownloadOptions, symbols: string[], io: Io): Promise<number> {
  const problems = [
    ...(symbols.length ? [] : ['--symbol: no symbol given']),
    ...(opts.timeframe !== undefined ? ['--timeframe: funding rates have none (a settlement every funding cycle)'] : []),
    ...(opts.from !== undefined || opts.to !== undefined || opts.latest
      ? [`--from, --to, --latest: F16 takes no time window; it serves the latest ${FUNDING_HISTORY_LIMIT} settlements of a contract`]
      : []),
  ];
  if (problems.length) {
    problems.forEach((problem) => io.err(problem));
    return 1;
  }
  const open = await publicVenue(opts.config, io);
  if (!open) return 1;
  const { venue, client } = open;
  try {
    const surfaces = await symbolsAtVenue('sextant data download', client, symbols, venue.where, (line) => io.err(line));
    if (!surfaces) return 1;
    if (surfaces.spot.length) {
      io.err(`sextant data download: ${surfaces.spot.join(', ')}: spot pairs have no funding rates (futures contracts only)`);
      return 1;
    }
    io.err(
      `sextant data download: funding rates of ${symbols.join(', ')} from ${venue.where} (F16: the latest ${FUNDING_HISTORY_LIMIT} settlements of each, about 33 days at 8 h; nothing older is served: download again before they roll off to extend the file)`,
    );
    const r = await downloadFunding(client, { out: opts.out, symbols, venue: venueName(venue), clock: systemClock });
    for (const note of r.notes) io.err(note);
    io.out(
      `${opts.out}: ${r.rates} funding rates of ${r.meta.symbols.join(', ')}, ${isoOf(r.meta.fromMs!)} to ${isoOf(r.meta.toMs!)}; ${r.fetched} new from ${r.requests.F16} F16 request${r.requests.F16 === 1 ? '' : 's'}`,
    );
    return 0;
  } catch (err) {
    io.err(`sextant data download: ${err instanceof ExchangeError ? err.summary() : (err as Error).message}`);
    return 1;
  } finally {
    await open.close();
  }
}

async function download(opts: DownloadOptions, io: Io): Promise<number> {
  const symbols = [
    ...new Set(
      opts.symbol
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (opts.kind === 'funding') return downloadFundingRates(opts, symbols, io);
  if (opts.kind !== 'candles') {
    io.err(`--kind: expected candles or funding; got ${opts.kind}`);
    return 1;
  }
  const fromMs = opts.from !== undefined ? isoMs(opts.from) : undefined;
  const toMs = opts.to !== undefined ? isoMs(opts.to) : undefined;
  const problems = [
    ...(symbols.length ? [] : ['--symbol: no symbol given']),
    ...(opts.timeframe === undefined
      ? ['--timeframe: required for candles']
      : !isTimeframe(opts.timeframe)
        ? [`--timeframe: expected one of ${TIMEFRAMES.join(', ')}; got ${opts.timeframe}`]
        : []),
    ...(opts.from === undefined && !opts.latest ? ['--from: required (or --latest for spot pairs: the candles the venue serves now)'] : []),
    ...(opts.from !== undefined && fromMs === undefined ? [`--from: not an ISO 8601 time (UTC unless it names its zone): ${opts.from}`] : []),
    ...(opts.to !== undefined && toMs === undefined ? [`--to: not an ISO 8601 time (UTC unless it names its zone): ${opts.to}`] : []),
    ...(fromMs !== undefined && toMs !== undefined && toMs <= fromMs ? ['--to: must be after --from'] : []),
  ];
  if (problems.length) {
    problems.forEach((problem) => io.err(problem));
    return 1;
  }
  const tf = opts.timeframe as Timeframe;
  const open = await publicVenue(opts.config, io);
  if (!open) return 1;
  const { venue, client } = open;
  let bar: cliProgress.SingleBar | undefined;
  try {
    const surfaces = await symbolsAtVenue('sextant data download', client, symbols, venue.where, (line) => io.err(line));
    if (!surfaces) return 1;
    io.err(`sextant data download: ${tf} candles of ${symbols.join(', ')} from ${venue.where}`);
    for (const symbol of surfaces.spot) io.err(`${symbol}: a spot pair: the venue has no spot candle history in v2, only the latest ~300 candles (S10)`);
    let stopped = false;
    void waitForStop().then(() => (stopped = true));
    // A progress bar on a terminal; a summary at the end when the output is piped.
    bar = process.stderr.isTTY
      ? new cliProgress.SingleBar(
          { stream: process.stderr, format: `download [{bar}] {percentage}% | {value}/{total} ${tf} candles | eta {eta}s` },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
    const result = await downloadCandles(client, {
      out: opts.out,
      timeframe: tf,
      venue: venueName(venue),
      targets: symbols.map((symbol) => ({ symbol, surface: surfaces.spot.includes(symbol) ? 'spot' : 'futures' })),
      ...(fromMs !== undefined ? { fromMs } : {}),
      ...(toMs !== undefined ? { toMs } : {}),
      latest: opts.latest === true,
      clock: systemClock,
      stopped: () => stopped,
      onProgress: (done, total) => {
        if (!bar) return;
        if (done === 0) bar.start(total, 0);
        else bar.update(done);
      },
    });
    bar?.stop();
    bar = undefined;
    for (const note of result.notes) io.err(note);
    io.out(summary(opts.out, tf, result));
    for (const line of gapLines(result.gaps, tf)) io.out(line);
    if (result.failure) {
      const why = result.failure instanceof ExchangeError ? result.failure.summary() : result.failure.message;
      io.err(`sextant data download: stopped: ${why}; ${opts.out} keeps what came: run the same command again to resume`);
      return 1;
    }
    if (result.stopped) {
      io.err(`sextant data download: interrupted; ${opts.out} keeps what came: run the same command again to resume`);
      return 1;
    }
    return 0;
  } catch (err) {
    bar?.stop();
    // A refusal, a venue error before the first page, a file that cannot be written: one line, exit 1.
    io.err(`sextant data download: ${err instanceof ExchangeError ? err.summary() : (err as Error).message}`);
    return 1;
  } finally {
    await open.close();
  }
}

export function registerData(program: Command, io: Io, setCode: SetCode): void {
  const data = program.command('data').description('market data files');
  data
    .command('synth')
    .description('write synthetic market data (the seeded synthetic market) for backtests')
    .requiredOption('--symbol <sym>', 'instrument, e.g. BTCUSDT_SPBL or cmt_btcusdt (repeat with commas)')
    .requiredOption('--from <iso>', 'start time (ISO 8601, UTC unless it names its zone)')
    .requiredOption('--to <iso>', 'end time')
    .option('--interval <dur>', 'tick interval: 250ms, 1s, 1m', '1s')
    .option('--seed <n>', 'seed', '42')
    .option(
      '--revert <dur>',
      'a range-bound market: each price pulled back to its start, the distance halving every <dur> (e.g. 30m); default: a plain random walk',
    )
    .requiredOption('--out <file>', 'output file (JSON lines)')
    .action((opts: SynthOptions) => setCode(synth(opts, io)));
  data
    .command('import')
    .description('import OHLCV CSV (timestamp,open,high,low,close,volume) as a candle file')
    .requiredOption('--csv <file>', 'CSV file')
    .requiredOption('--symbol <sym>', 'instrument the bars belong to')
    .option('--timeframe <tf>', `the bars' timeframe (${TIMEFRAMES.join(', ')}); default: the shortest gap between two bars`)
    .requiredOption('--out <file>', 'output file (JSON lines)')
    .action((opts: ImportOptions) => setCode(importCsv(opts, io)));
  data
    .command('download')
    .description(
      'download candle history (futures: F11, paged; spot: the latest candles S10 serves) into a candle file, or settled funding rates (F16, the latest 100) into a funding file; resumable',
    )
    .option('--kind <kind>', 'candles, or funding (settled funding rates of futures contracts, for backtest.funding)', 'candles')
    .requiredOption('--symbol <sym>', 'instrument (several: comma-separated)')
    .option('--timeframe <tf>', `candle timeframe (${TIMEFRAMES.join(', ')}); candles only`)
    .option('--from <iso>', 'first time wanted (ISO 8601, UTC unless it names its zone)')
    .option('--to <iso>', 'end of the window, exclusive (default: now; a candle still forming is never written)')
    .option('--latest', 'spot pairs: take the candles S10 serves now, even when they do not reach back to --from')
    .requiredOption('--out <file>', 'candle or funding file (JSON lines); an existing one is resumed: only what it lacks is fetched')
    .option('-c, --config <file>', 'config file (the venue: base URLs, rate limits)', DEFAULT_CONFIG)
    .action(async (opts: DownloadOptions) => setCode(await download(opts, io)));
}

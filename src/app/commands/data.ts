// `sextant data synth|import`: market data files for backtests, synthetic or from OHLCV CSV.
import type { Command } from 'commander';
import { importOhlcvCsv } from '../../data/csv-import.js';
import { writeReplayFile } from '../../data/replay-file.js';
import { DEFAULT_INSTRUMENTS } from '../../exchange/sim/instruments.js';
import { synthesize } from '../synth.js';
import type { Io, SetCode } from './io.js';

interface SynthOptions {
  symbol: string;
  from: string;
  to: string;
  interval: string;
  seed: string;
  out: string;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

function synth(opts: SynthOptions, io: Io): number {
  const symbols = opts.symbol.split(',');
  const specs = DEFAULT_INSTRUMENTS.filter((spec) => symbols.includes(spec.symbol));
  const unknown = symbols.filter((symbol) => !specs.some((spec) => spec.symbol === symbol));
  const fromMs = Date.parse(opts.from);
  const toMs = Date.parse(opts.to);
  const interval = /^(\d+)(ms|s|m)$/.exec(opts.interval);
  const problems = [
    ...unknown.map((symbol) => `--symbol: unknown instrument ${symbol} (known: ${DEFAULT_INSTRUMENTS.map((spec) => spec.symbol).join(', ')})`),
    ...(Number.isNaN(fromMs) ? [`--from: not a date: ${opts.from}`] : []),
    ...(Number.isNaN(toMs) || toMs <= fromMs ? [`--to: must be a date after --from: ${opts.to}`] : []),
    ...(!interval ? [`--interval: expected e.g. 250ms, 1s, 1m; got ${opts.interval}`] : []),
    ...(!/^\d+$/.test(opts.seed) ? [`--seed: expected a whole number, got ${opts.seed}`] : []),
  ];
  if (problems.length || !interval) {
    problems.forEach((problem) => io.err(problem));
    return 1;
  }
  const intervalMs = Number(interval[1]) * UNIT_MS[interval[2]!]!;
  const ticks = synthesize(specs, { fromMs, toMs, intervalMs, seed: Number(opts.seed), out: opts.out });
  io.out(`${opts.out}: ${ticks} ticks`);
  return 0;
}

function importCsv(opts: { csv: string; symbol: string; out: string }, io: Io): number {
  try {
    const records = importOhlcvCsv(opts.csv, opts.symbol);
    writeReplayFile(opts.out, records);
    io.out(`${opts.out}: ${records.length} ticks from ${records.length / 4} bars`);
    return 0;
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  }
}

export function registerData(program: Command, io: Io, setCode: SetCode): void {
  const data = program.command('data').description('market data files');
  data
    .command('synth')
    .description('write synthetic market data (the seeded synthetic market) for backtests')
    .requiredOption('--symbol <sym>', 'instrument, e.g. BTCUSDT_SPBL or cmt_btcusdt (repeat with commas)')
    .requiredOption('--from <iso>', 'start time')
    .requiredOption('--to <iso>', 'end time')
    .option('--interval <dur>', 'tick interval: 250ms, 1s, 1m', '1s')
    .option('--seed <n>', 'seed', '42')
    .requiredOption('--out <file>', 'output file (JSON lines)')
    .action((opts: SynthOptions) => setCode(synth(opts, io)));
  data
    .command('import')
    .description('import OHLCV CSV (timestamp,open,high,low,close,volume) into the replay format')
    .requiredOption('--csv <file>', 'CSV file')
    .requiredOption('--symbol <sym>', 'instrument the bars belong to')
    .requiredOption('--out <file>', 'output file (JSON lines)')
    .action((opts: { csv: string; symbol: string; out: string }) => setCode(importCsv(opts, io)));
}

// Backtest data: loading a warm tick cache, and the peak memory of a whole backtest over many events (on the compiled
// dist/). `node bench/data-bench.js [--quick]`; every figure is one JSON line (emit.js).
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { emit } from './emit.js';

const quick = process.argv.includes('--quick');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

/**
 * Writes `n` one-second futures ticks (the seeded random walk of backtest-bench.js's prepare(), written as it goes:
 * a file of any length) and a config running `strategy` over them.
 */
export function prepareLarge(n, strategy) {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-data-bench-'));
  const data = join(dir, 'ticks.jsonl');
  const fd = openSync(data, 'w');
  let x = 900000; // ticks of 0.1
  let seed = 12345;
  const t0 = Date.UTC(2026, 0, 1);
  let lines = [];
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    x += (seed % 7) - 3;
    lines.push(`{"ts":${t0 + i * 1000},"symbol":"cmt_btcusdt","price":"${Math.floor(x / 10)}.${x % 10}","size":"0.0${(seed % 9) + 1}"}`);
    if (lines.length === 100_000 || i === n - 1) {
      writeSync(fd, lines.join('\n') + '\n');
      lines = [];
    }
  }
  closeSync(fd);
  const cfg = join(dir, 'bench.yaml');
  writeFileSync(
    cfg,
    [
      'mode: backtest',
      `backtest: { data: ${JSON.stringify(data)}, out: ${JSON.stringify(join(dir, 'out'))} }`,
      `strategyDirs: [${JSON.stringify(resolve('bench/strategies'))}]`,
      `strategies: [{ id: bench, name: ${strategy}, symbols: [cmt_btcusdt] }]`,
      'sim: { accounts: { spot: { USDT: "1000" }, futuresCollateral: "1000000", leverage: 20 } }',
      'risk: { maxNotionalPerOrder: "100000", maxNotionalPerSymbol: "1000000", maxOrdersPerMinute: 100000 }',
      'log: { level: error }',
    ].join('\n') + '\n',
  );
  return { dir, data, cfg };
}

/** The simulator's instruments' units, as a backtest opens its data with them. */
async function simUnits() {
  const { ReplayMarket } = await import('../dist/exchange/sim/market.js');
  const { DEFAULT_INSTRUMENTS } = await import('../dist/exchange/sim/instruments.js');
  return new ReplayMarket(DEFAULT_INSTRUMENTS).units;
}

const entry = process.argv[1] && process.argv[1].endsWith('data-bench.js');

// As a command (`node bench/data-bench.js build <data>`): builds the data file's cache in this process.
if (entry && process.argv[2] === 'build') {
  const { openTickFeed } = await import('../dist/data/tick-feed.js');
  const t0 = process.hrtime.bigint();
  let built;
  openTickFeed(process.argv[3], await simUnits(), { cache: 'auto', onBuilt: (_file, b) => (built = b) }).close();
  console.log(JSON.stringify({ buildMs: ms(t0), count: built?.count ?? 0, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

// ---- loading a warm cache ------------------------------------------------------------------------------
if (entry) {
  const { openTickFeed } = await import('../dist/data/tick-feed.js');
  const { eachReplayRecord } = await import('../dist/data/replay-file.js');
  const units = await simUnits();
  const n = 1_000_000;
  const p = prepareLarge(n, 'bench-watch');
  try {
    const build = JSON.parse(execFileSync(process.execPath, ['bench/data-bench.js', 'build', p.data], { encoding: 'utf8' }).trim().split('\n').pop());
    const loads = [];
    for (let round = 0; round < (quick ? 3 : 7); round++) {
      const t0 = process.hrtime.bigint();
      const feed = openTickFeed(p.data, units, { cache: 'auto' });
      let rows = 0;
      for (let block = feed.next(); block; block = feed.next()) rows += block.end - block.begin;
      feed.close();
      if (rows !== n) throw new Error(`read ${rows} records of ${n}`);
      loads.push(ms(t0));
    }
    // Bare: the same records parsed from the JSON lines file (what every run did before the cache).
    const t0 = process.hrtime.bigint();
    let parsed = 0;
    eachReplayRecord(p.data, () => parsed++);
    const bare = ms(t0);
    emit(
      'backtest_cache_load_1m_events_ms',
      median(loads),
      'ms',
      bare,
      'open a warm cache of 1M one-second futures ticks and read every chunk; bare: parse the JSON lines file',
    );
    emit('backtest_cache_build_1m_events_ms', build.buildMs, 'ms', undefined, 'build the cache once from the JSON lines file (fresh process)');
  } finally {
    rmSync(p.dir, { recursive: true, force: true });
  }
}

// ---- a whole backtest's peak memory ----------------------------------------------------------------------
if (entry) {
  const n = quick ? 1_000_000 : 10_000_000;
  const p = prepareLarge(n, 'bench-watch');
  try {
    // The cache built in one process; the run measured in a fresh one.
    execFileSync(process.execPath, ['bench/data-bench.js', 'build', p.data], { encoding: 'utf8' });
    const out = JSON.parse(
      execFileSync(process.execPath, ['bench/backtest-bench.js', p.cfg], { encoding: 'utf8', maxBuffer: 1 << 24 })
        .trim()
        .split('\n')
        .pop(),
    );
    if (out.events !== n) throw new Error(`the backtest replayed ${out.events} events of ${n}`);
    const name = quick ? 'backtest_memory_peak_1m_events' : 'backtest_memory_peak_10m_events';
    emit(
      name,
      out.maxRssMiB,
      'MiB',
      undefined,
      `peak RSS of a backtest process over ${n / 1e6}M one-second futures ticks from a warm cache (strategy bench-watch, no orders); run ${Math.round(out.timings.runMs / 1000)} s`,
    );
  } finally {
    rmSync(p.dir, { recursive: true, force: true });
  }
}

// Backtest throughput: synthetic market events through the full pipeline (replay -> streams -> strategy ->
// risk -> executor -> simulator), with a strategy that never trades and one that trades every tenth event.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../dist/config/load.js';
import { runBacktest } from '../dist/app/backtest.js';
import { silentLogger } from '../dist/util/logger.js';

/**
 * Writes `n` one-second futures ticks (a seeded random walk) and a config running `strategy` over them (with bars of
 * `timeframes` when given).
 */
export function prepare(n, strategy, timeframes) {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-bench-'));
  const data = join(dir, 'ticks.jsonl');
  const lines = [];
  let x = 900000; // ticks of 0.1
  let seed = 12345;
  const t0 = Date.UTC(2026, 0, 1);
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    x += (seed % 7) - 3;
    lines.push(`{"ts":${t0 + i * 1000},"symbol":"cmt_btcusdt","price":"${Math.floor(x / 10)}.${x % 10}","size":"0.0${(seed % 9) + 1}"}`);
  }
  writeFileSync(data, lines.join('\n') + '\n');
  const cfg = join(dir, 'bench.yaml');
  writeFileSync(
    cfg,
    [
      'mode: backtest',
      `backtest: { data: ${JSON.stringify(data)}, out: ${JSON.stringify(join(dir, 'out'))} }`,
      `strategyDirs: [${JSON.stringify(resolve('bench/strategies'))}]`,
      `strategies: [{ id: bench, name: ${strategy}, symbols: [cmt_btcusdt]${timeframes ? `, timeframes: [${timeframes.join(', ')}]` : ''} }]`,
      'sim: { accounts: { spot: { USDT: "1000" }, futuresCollateral: "1000000", leverage: 20 } }',
      'risk: { maxNotionalPerOrder: "100000", maxNotionalPerSymbol: "1000000", maxOrdersPerMinute: 100000 }',
      'log: { level: error }',
    ].join('\n') + '\n',
  );
  return { dir, cfg, prices: lines.map((l) => l.slice(l.indexOf('"price":"') + 9, l.indexOf('","size"'))) };
}

export async function runOnce(cfg) {
  const loaded = loadConfig(cfg, {});
  return runBacktest(loaded, silentLogger, {});
}

export function cleanup(dir) {
  rmSync(dir, { recursive: true, force: true });
}

// As a command: one backtest of a prepared config in this (fresh) process; prints its figures as JSON.
if (process.argv[1] && process.argv[1].endsWith('backtest-bench.js')) {
  const r = await runOnce(process.argv[2]);
  console.log(JSON.stringify({ events: r.events, timings: r.timings, orders: r.orders, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
}

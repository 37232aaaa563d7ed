// Benchmarks (`npm run bench`, on the compiled dist/). Every figure is one JSON line: name, value, unit, and
// the same work done by a bare loop in the same run (`bare`) with `ratio` = value / bare (for latencies: how
// many times the bare figure). Figures vary with the machine; ratios within one run compare.
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { Decimal } from '../dist/domain/decimal.js';
import { sign } from '../dist/exchange/wire/signature.js';
import { parseJson } from '../dist/exchange/wire/json.js';
import { interpretResponse } from '../dist/exchange/live/rest-client.js';
import { prepare, runOnce, cleanup } from './backtest-bench.js';
import { emit } from './emit.js';

const quick = process.argv.includes('--quick');

/** Operations per second of `fn` over `n` calls, after a warm-up. */
function opsPerSecond(n, fn) {
  for (let i = 0; i < Math.min(n, 2000); i++) fn(i);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---- building blocks ------------------------------------------------------------------------------------
{
  const body = '{"symbol":"cmt_btcusdt","orderDataList":[{"client_oid":"sx_1","size":"0.01","type":"1","order_type":"0","match_price":"0","price":"88888.0"}]}';
  emit(
    'sign_per_second',
    opsPerSecond(200_000, (i) => sign('secret', String(1700000000000 + i), 'POST', '/capi/v2/order/batchOrders', '', body)),
    'ops/s',
    opsPerSecond(200_000, (i) =>
      createHmac('sha256', 'secret')
        .update(`${1700000000000 + i}POST/capi/v2/order/batchOrders${body}`)
        .digest('base64'),
    ),
    'bare: createHmac on the same prehash',
  );
  const S6 =
    '{"code":"00000","msg":"success","requestTime":1743736915184,"data":{"resultList":[' +
    Array.from({ length: 20 }, (_, i) => `{"orderId":${602876318261969338n + BigInt(i)},"clientOrderId":"sx_a_${i}"}`).join(',') +
    ']}}';
  emit(
    'lossless_parse_s6_per_second',
    opsPerSecond(50_000, () => parseJson(S6)),
    'ops/s',
    opsPerSecond(50_000, () => JSON.parse(S6)),
    'bare: JSON.parse (loses the 20 ids above 2^53)',
  );
  const F2 = JSON.stringify(
    Array.from({ length: 50 }, (_, i) => ({
      symbol: `cmt_c${i}usdt`,
      last: '90755.3',
      best_ask: '90755.4',
      best_bid: '90755.3',
      high_24h: '91130.0',
      low_24h: '90097.3',
      volume_24h: '2321170547.37995',
      timestamp: '1764482511864',
      priceChangePercent: '0.000474',
      base_volume: '25615.0755',
      markPrice: '90755.2',
      indexPrice: '90797.161',
    })),
  );
  emit(
    'f2_50_tickers_parse_validate_per_second',
    opsPerSecond(5_000, () => interpretResponse('F2', { status: 200, headers: {}, body: F2 })),
    'ops/s',
    opsPerSecond(5_000, () => JSON.parse(F2)),
    'bare: JSON.parse',
  );
  let sink = 0;
  emit(
    'decimal_parse_add_tostring_per_second',
    opsPerSecond(500_000, (i) =>
      Decimal.from('90755.3')
        .add(Decimal.from(i % 2 ? '0.1' : '0.25'))
        .toString(),
    ),
    'ops/s',
    opsPerSecond(500_000, (i) => (sink += Number('90755.3') + Number(i % 2 ? '0.1' : '0.25'))),
    'bare: Number() and float add (inexact)',
  );
  if (sink === 0) console.log('');
}

// ---- simulator engine ------------------------------------------------------------------------------------
{
  const { MatchingEngine } = await import('../dist/exchange/sim/engine.js');
  const { SyntheticMarket } = await import('../dist/exchange/sim/market.js');
  const { DEFAULT_INSTRUMENTS } = await import('../dist/exchange/sim/instruments.js');
  const { ManualClock } = await import('../dist/util/clock.js');
  const ticks = quick ? 500_000 : 3_000_000;
  const rates = [1, 2, 3].map(() => {
    const clock = new ManualClock(1_700_000_000_000);
    const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 1, startMs: clock.now(), tickIntervalMs: 100 });
    const engine = new MatchingEngine(
      market.symbols,
      { spot: { USDT: '1000000000', BTC: '1000', ETH: '100000', SOL: '10000000' }, futuresCollateral: '1000000000', leverage: 20 },
      clock,
    );
    const t0 = process.hrtime.bigint();
    market.advanceTo(clock.now() + Math.ceil(ticks / market.symbols.length) * 100, (m) => engine.onTick(m));
    return engine.stats.ticks / (Number(process.hrtime.bigint() - t0) / 1e9);
  });
  // Bare: the same number of ticks as a seeded integer random walk, no engine.
  const bare = opsPerSecond(ticks, (i) => {
    rates.x = ((rates.x ?? 1) * 1103515245 + i) >>> 0;
  });
  emit('engine_ticks_per_second', median(rates), 'ticks/s', bare, '6 symbols, synthetic market generation included; bare: a seeded integer random walk');
}

// ---- backtests through the whole pipeline ---------------------------------------------------------------
const EVENTS = quick ? 200_000 : 1_000_000;
/** One backtest in a fresh process (its own heap, its own peak memory). */
function childRun(cfg) {
  const out = execFileSync(process.execPath, ['bench/backtest-bench.js', cfg], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}
const backtestEps = {};
const cases = [
  ['no_orders', 'bench-watch', 'strategy reads every price, never trades'],
  ['bars_built', 'bench-watch', 'as no_orders, and 1-minute bars built from every tick (the strategy takes none)', ['1m']],
  ['bars_indicator', 'bench-bars', 'strategy reads a 14-period RSI of 1-minute bars, never trades', ['1m']],
  ['orders', 'bench-trade', 'a futures market order on every tenth event'],
].map(([name, strategy, note, timeframes]) => ({ name, note, p: prepare(EVENTS, strategy, timeframes), runs: [] }));
// The data cache of each case's file is built before the rounds (as a sweep warms it): every timed run reads it warm.
const { loadConfig } = await import('../dist/config/load.js');
const { warmDataCache } = await import('../dist/app/sim-market.js');
const cacheNote = (() => {
  try {
    for (const c of cases) warmDataCache(loadConfig(c.p.cfg, {}));
    return 'data cache warm (built before the rounds)';
  } catch (err) {
    return `data cache not built (${err.message}): the file read as it is`;
  }
})();
// Round by round, each case once a round: the machine's slow spells fall on every case alike.
for (let k = 0; k < (quick ? 1 : 3); k++) for (const c of cases) c.runs.push(childRun(c.p.cfg));
for (const { name, note, p, runs } of cases) {
  const eps = median(runs.map((r) => r.events / (r.timings.runMs / 1000)));
  // Bare: the same prices, parsed and compared (the strategy's work, without the pipeline).
  const bare = opsPerSecond(p.prices.length, (i) => {
    const x = Number(p.prices[i]);
    if (!(x <= p.high)) p.high = x;
  });
  const r = runs[runs.length - 1];
  emit(
    `backtest_events_per_second_${name}`,
    eps,
    'events/s',
    bare,
    `${EVENTS} one-second ticks, one poll each (replay -> streams -> strategy -> risk -> executor -> journal -> simulator, 50 ms round trip); ${note}; median of ${runs.length} processes; reading the file (${r.timings.loadMs} ms) and the report (${r.timings.reportMs} ms) not counted; orders ${JSON.stringify(r.orders)}`,
  );
  backtestEps[name] = eps;
  // End to end: reading the data, the run and the report (files written), as a user waits for them.
  if (name === 'no_orders' || name === 'orders') {
    const total = (r) => r.timings.loadMs + r.timings.runMs + r.timings.reportMs;
    const e2e = median(runs.map((x) => x.events / (total(x) / 1000)));
    const t = runs.map((x) => `${x.timings.loadMs}+${x.timings.runMs}+${x.timings.reportMs}`).join(', ');
    emit(
      `backtest_end_to_end_events_per_second_${name}`,
      e2e,
      'events/s',
      undefined,
      `${EVENTS} one-second ticks, load + run + report (runBacktest's timings; ms per process: ${t}); ${note}; median of ${runs.length} processes; ${cacheNote}; target ${name === 'orders' ? '150,000' : '1,000,000'}`,
    );
  }
  emit(`backtest_memory_peak_${name}`, median(runs.map((x) => x.maxRssMiB)), 'MiB', undefined, `peak RSS of the whole backtest process, ${EVENTS} events`);
  cleanup(p.dir);
}

// What building bars costs the no-order backtest: its events/s over the same run with bars built (≤ 1.15 target).
emit(
  'backtest_bar_building_overhead',
  backtestEps.no_orders / backtestEps.bars_built,
  'ratio',
  undefined,
  "no_orders events/s ÷ bars_built events/s (1.00 = free; target ≤ 1.15); rounds alternate the cases in fresh processes, so the machine's slow spells fall on both",
);

// Memory: the same backtest repeated in one process; the heap after each run (collected) should stay flat.
{
  const gc = globalThis.gc;
  const p = prepare(quick ? 100_000 : 300_000, 'bench-trade');
  const heaps = [];
  for (let k = 0; k < (quick ? 3 : 6); k++) {
    await runOnce(p.cfg);
    // After a turn of the event loop: the run's last promise reactions still queued hold it (not a retention).
    await new Promise((resolve) => setImmediate(resolve));
    if (gc) {
      gc();
      gc();
    }
    heaps.push(process.memoryUsage().heapUsed / 2 ** 20);
  }
  cleanup(p.dir);
  emit('memory_heap_after_run_first', heaps[0], 'MiB', undefined, gc ? 'collected' : 'not collected: run with --expose-gc');
  emit(
    'memory_heap_after_run_last',
    heaps[heaps.length - 1],
    'MiB',
    heaps[0],
    `${heaps.length} runs of the same backtest: ${heaps.map((h) => h.toFixed(1)).join(' / ')} MiB`,
  );
}

// ---- live path: tick to request ------------------------------------------------------------------------
// bench/tick-to-request.js: ticker answer in hand to the order request at `sextant sim`, as is and with a
// notifier whose receiver is down. In a process of its own, as the daemon is (not in this one, whose heap the
// backtests above left at ~190 MiB, with collections to match), once the files those backtests wrote are on disk
// (their write-back would otherwise land on the journal's commits).
execFileSync('sync');
execFileSync(process.execPath, ['bench/tick-to-request.js', ...(quick ? ['--quick'] : [])], { stdio: 'inherit' });
// What stopping a hook that runs over its time budget costs per call.
await import('./hook-timeout.js');
// Backtest data: a warm cache's load time and a long backtest's peak memory (bench/data-bench.js, its own process).
execFileSync(process.execPath, ['bench/data-bench.js', ...(quick ? ['--quick'] : [])], { stdio: 'inherit' });

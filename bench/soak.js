// Soak: the daemon's trading core (the trading loop: streams, strategies, risk gate, executor; order tracker,
// journal) against the in-process simulator in virtual time, for N poll cycles (default 1,000,000). Reports RSS and
// heap after each 100k cycles (after a full GC) and the slope after warm-up. Run: npm run soak [-- cycles]
import { SyntheticMarket } from '../dist/exchange/sim/market.js';
import { SimulatedExchange } from '../dist/exchange/sim/simulated-exchange.js';
import { DEFAULT_INSTRUMENTS } from '../dist/exchange/sim/instruments.js';
import { SqliteJournal } from '../dist/journal/sqlite-journal.js';
import { Decimal } from '../dist/domain/decimal.js';
import { silentLogger } from '../dist/util/logger.js';
import { Subject } from 'rxjs';
import { buildCore } from '../dist/app/core.js';
import { nextTurn } from '../dist/util/clock.js';

if (typeof global.gc !== 'function') {
  console.error('run with node --expose-gc (npm run soak does)');
  process.exit(2);
}
const CYCLES = Number(process.argv[2] ?? 1_000_000);
const STEP = Number(process.env.SOAK_STEP ?? Math.max(10_000, Math.round(CYCLES / 12 / 10_000) * 10_000));
const PERIOD_MS = 1000;

const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 9, startMs: 1_700_000_000_000, tickIntervalMs: 250 });
// The simulator keeps the last 5,000 final orders per symbol: its own history is not the daemon's memory.
const sim = new SimulatedExchange(market, { spot: { USDT: '1000000000', BTC: '1000' }, futuresCollateral: '1000000000', leverage: 20 }, 5000);
const clock = sim.clock;
// The journal on disk as in production (tmpfs when there is one: the soak measures memory, not fsync).
const { existsSync, mkdtempSync } = await import('node:fs');
const { join } = await import('node:path');
const { tmpdir } = await import('node:os');
const journalDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'sextant-soak-'));
const journal = new SqliteJournal(join(journalDir, 'journal.sqlite'), { clientOidPrefix: 'sx' });
const d = (s) => Decimal.from(s);
const instruments = new Map();
for (const s of ['spot', 'futures']) for (const i of await sim.instruments(s)) instruments.set(i.symbol, i);
const streams = { tickers$: new Subject(), openOrders$: new Subject(), balances$: new Subject(), positions$: new Subject() };
const core = await buildCore({
  instruments,
  bind: () => ({ trading: sim, streams }),
  journal,
  clock,
  logger: silentLogger,
  limits: {
    maxNotionalPerOrder: d('1000000'),
    maxNotionalPerSymbol: d('100000000'),
    maxOpenOrdersPerSymbol: 100,
    maxOpenOrdersPerStrategy: 100,
    priceBandPct: d('5'),
    staleAfterMs: 10_000,
    maxOrdersPerMinute: 1_000_000,
    maxDrawdownPct: d('99'),
    maxOrdersPerIntent: 1000,
    outlierPct: d('20'),
  },
  tracking: { graceMs: 0, lostAfterChecks: 2 },
  strategies: {
    instances: [
      { id: 'mm', name: 'spot-market-maker', symbols: ['BTCUSDT_SPBL'], params: { halfSpreadBps: 4, size: '0.002', maxInventory: '0.05' } },
      { id: 'grid', name: 'futures-grid', symbols: ['cmt_ethusdt'], params: { levels: 4, stepBps: 5, size: '0.05' } },
    ],
    dirs: ['strategies'],
    maxErrors: 1_000_000,
  },
});
const { tracker } = core;
core.start();
await core.reconcile({ scanForeign: true });

/** One poll of every stream, as the daemon's would see it, then the intents it caused, one at a time. */
async function cycle() {
  const at = { atMs: clock.now() };
  streams.openOrders$.next({ ...at, value: [...(await sim.openOrders('spot', 'BTCUSDT_SPBL')), ...(await sim.openOrders('futures', 'cmt_ethusdt'))] });
  streams.balances$.next({ ...at, value: [...(await sim.balances('spot')), ...(await sim.balances('futures'))] });
  streams.positions$.next({ ...at, value: await sim.positions('cmt_ethusdt') });
  const spot = (await sim.recentTrades('BTCUSDT_SPBL', 1))[0];
  const tickers = new Map([['cmt_ethusdt', (await sim.tickers()).find((t) => t.symbol === 'cmt_ethusdt')]]);
  tickers.set('BTCUSDT_SPBL', {
    symbol: 'BTCUSDT_SPBL',
    last: spot.price,
    bestBid: null,
    bestAsk: null,
    markPrice: null,
    indexPrice: null,
    high24h: null,
    low24h: null,
    volume24h: null,
    baseVolume24h: null,
    timestampMs: spot.timestampMs,
  });
  streams.tickers$.next({ ...at, value: tickers });
  while (core.inFlight.size > 0 || core.queued() > 0) await Promise.all([...core.inFlight, nextTurn()]);
}

const samples = [];
const mib = (b) => b / 1048576;
const t0 = performance.now();
for (let n = 1; n <= CYCLES; n++) {
  sim.advanceTo(clock.now() + PERIOD_MS);
  await cycle();
  if (n % 10 === 0) await tracker.reconcile();
  if (n % STEP === 0) {
    global.gc();
    const m = process.memoryUsage();
    samples.push({ cycle: n, rss: mib(m.rss), heap: mib(m.heapUsed) });
    console.log(
      `${String(n).padStart(8)} cycles  rss ${mib(m.rss).toFixed(1)} MiB  heap ${mib(m.heapUsed).toFixed(1)} MiB  active ${journal.activeOrders().length}  ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
  }
}
// Slope after warm-up (the first sample): least squares, MiB per 100k cycles.
const slope = (key) => {
  const xs = samples.slice(1);
  if (xs.length < 2) return NaN;
  const n = xs.length;
  const mx = xs.reduce((a, s) => a + s.cycle, 0) / n;
  const my = xs.reduce((a, s) => a + s[key], 0) / n;
  const num = xs.reduce((a, s) => a + (s.cycle - mx) * (s[key] - my), 0);
  const den = xs.reduce((a, s) => a + (s.cycle - mx) ** 2, 0);
  return (num / den) * 100_000;
};
console.log(
  `slope after warm-up: rss ${slope('rss').toFixed(3)} MiB / 100k cycles, heap ${slope('heap').toFixed(3)} MiB / 100k cycles (target <= 1); ${(CYCLES / ((performance.now() - t0) / 1000)).toFixed(0)} cycles/s; engine ticks ${sim.engine.stats.ticks}, fills ${sim.engine.stats.fills}`,
);
core.stopIntake();
journal.close();

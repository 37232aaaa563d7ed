// The bar feed: warm-up from the venue's candles (F10, then F11 pages further back; 2h futures bars made from 1h
// candles; spot from S10), the builders seeded so the live bars follow on, and the closing timer on the clock.
import { describe, expect, it } from '@jest/globals';
import { BarFeed, warmFromVenue, type BarNeed } from '../../../src/data/bar-feed.js';
import { TIMEFRAME_MS, barOpenMs, type Bar } from '../../../src/domain/candles.js';
import type { Instrument } from '../../../src/domain/market.js';
import type { ExchangeClient } from '../../../src/exchange/client.js';
import { DEFAULT_INSTRUMENTS } from '../../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../../src/exchange/sim/market.js';
import { SimulatedExchange } from '../../../src/exchange/sim/simulated-exchange.js';
import { ManualClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';

const FUT = 'cmt_btcusdt';
const SPOT = 'BTCUSDT_SPBL';
const START = Date.UTC(2026, 10, 23, 12, 0, 17);

/** The simulator a while after its start, and the reads it was asked (endpoint by method). */
async function venue(afterMs: number) {
  const clock = new ManualClock(START);
  const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 3, startMs: START, tickIntervalMs: 1000 });
  const sim = new SimulatedExchange(market, { spot: {}, futuresCollateral: '0', leverage: 1 }, undefined, clock);
  sim.advanceTo(START + afterMs);
  clock.set(START + afterMs);
  const reads: string[] = [];
  const client = new Proxy(sim, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver) as unknown;
      if (key === 'candles' || key === 'historyCandles') {
        return (...args: unknown[]) => {
          reads.push(`${String(key)} ${String(args[1])}`);
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as unknown as ExchangeClient;
  const instruments = new Map<string, Instrument>();
  for (const s of ['spot', 'futures'] as const) for (const i of await sim.instruments(s)) instruments.set(i.symbol, i);
  return { sim, client, clock, reads, instruments };
}

function feedOf(needs: BarNeed[], instruments: Map<string, Instrument>, clock: ManualClock, closeDelayMs = 3000) {
  const feed = new BarFeed({ needs, units: instruments, clock, closeDelayMs });
  const closed: Bar[] = [];
  feed.bar$.subscribe((b) => closed.push(b));
  return { feed, closed };
}

/** Consecutive, closed, of the timeframe's length, ending with the last bar closed before `nowMs`. */
function expectWhole(bars: Bar[], tf: Bar['timeframe'], nowMs: number, n: number) {
  expect(bars).toHaveLength(n);
  const len = TIMEFRAME_MS[tf];
  bars.forEach((b, k) => {
    expect(b.closeMs - b.openMs).toBe(len);
    if (k > 0) expect(b.openMs - bars[k - 1]!.openMs).toBe(len);
  });
  expect(bars.at(-1)!.closeMs).toBe(barOpenMs(nowMs, tf));
}

describe('warm-up from the venue', () => {
  it('futures: more than one F10 answer holds, so F11 pages reach further back; the history is whole and closed', async () => {
    const { client, clock, reads, instruments } = await venue(90 * 60_000);
    const need: BarNeed = { symbol: FUT, timeframe: '1m', lookback: 1200 };
    const { feed } = feedOf([need], instruments, clock);
    const [warm] = await warmFromVenue(feed, client, instruments, clock, silentLogger);
    expectWhole(warm!.bars, '1m', clock.now(), 1200);
    expect(reads[0]).toBe('candles 1m');
    expect(reads.filter((r) => r === 'historyCandles 1m').length).toBeGreaterThanOrEqual(2);
  });

  it('futures 2h (not a venue period): made from 1h candles, each the fold of its two hours', async () => {
    const { client, clock, instruments, sim } = await venue(5 * 3600_000);
    const { feed } = feedOf([{ symbol: FUT, timeframe: '2h', lookback: 12 }], instruments, clock);
    const [warm] = await warmFromVenue(feed, client, instruments, clock, silentLogger);
    expectWhole(warm!.bars, '2h', clock.now(), 12);
    const hours = await sim.candles(FUT, '1h', { limit: 40 });
    for (const b of warm!.bars) {
      const [first, second] = [hours.find((h) => h.openMs === b.openMs)!, hours.find((h) => h.openMs === b.openMs + 3600_000)!];
      expect([b.open, b.close, b.high, b.low].map(String)).toEqual([first.open, second.close, first.high.gt(second.high) ? first.high : second.high, first.low.lt(second.low) ? first.low : second.low].map(String));
    }
  });

  it('spot: S10; the builder is seeded, so the next trades extend the venue\'s forming bar and close it on time', async () => {
    const { client, clock, instruments, reads } = await venue(20 * 60_000);
    const need: BarNeed = { symbol: SPOT, timeframe: '1m', lookback: 10 };
    const { feed, closed } = feedOf([need], instruments, clock);
    const [warm] = await warmFromVenue(feed, client, instruments, clock, silentLogger);
    expect(reads).toEqual(['candles 1m']);
    expectWhole(warm!.bars, '1m', clock.now(), 10);
    const forming = feed.forming(SPOT, '1m')!;
    expect(forming.openMs).toBe(barOpenMs(clock.now(), '1m'));
    // The closing timer: nothing closes before the bar's end plus the delay; then the forming bar comes out closed.
    feed.start();
    clock.advance(forming.closeMs - clock.now() + 2999);
    expect(closed).toEqual([]);
    clock.advance(1);
    expect(closed.map((b) => [b.openMs, b.open.toString(), b.close.toString()])).toEqual([[forming.openMs, forming.open.toString(), forming.close.toString()]]);
    feed.stop();
  });

  it('a venue that fails leaves the history empty and the bars to the live tape', async () => {
    const { clock, instruments } = await venue(60_000);
    const failing = { candles: () => Promise.reject(new Error('down')) } as unknown as ExchangeClient;
    const { feed } = feedOf([{ symbol: SPOT, timeframe: '1m', lookback: 5 }], instruments, clock);
    expect(await warmFromVenue(feed, failing, instruments, clock, silentLogger)).toEqual([{ need: { symbol: SPOT, timeframe: '1m', lookback: 5 }, bars: [] }]);
    expect(feed.forming(SPOT, '1m')).toBeNull();
  });
});

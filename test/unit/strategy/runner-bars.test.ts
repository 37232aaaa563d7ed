// Bars in the strategy runner: onBar only for the declared symbols and timeframes, history bounded by the lookback,
// the forming bar, warm-up without hooks, the needs it reports, and faults and errors as for any other hook.
import { describe, expect, it } from '@jest/globals';
import { TIMEFRAME_MS, type Bar, type Timeframe } from '../../../src/domain/candles.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Intent } from '../../../src/domain/intent.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';
import { defineStrategy, z, type MarketUpdate, type StrategyContext, type StrategyDefinition } from '../../../src/strategy/api.js';
import { StrategyConfigError, StrategyRunner, type StrategyInstanceConfig } from '../../../src/strategy/runner.js';
import { silentLogger } from '../../../src/util/logger.js';

const instruments = new Map(DEFAULT_INSTRUMENTS.map((s) => [s.symbol, toInstrument(s)]));
const T0 = Date.UTC(2026, 0, 1);
const erase = <P>(d: StrategyDefinition<P>) => d as unknown as StrategyDefinition<unknown>;

/** The i-th bar of a symbol and timeframe from T0, closing at `close` (open the previous close). */
function bar(symbol: string, timeframe: Timeframe, i: number, close: number): Bar {
  const len = TIMEFRAME_MS[timeframe];
  const c = Decimal.fromInt(close);
  return {
    symbol,
    timeframe,
    openMs: T0 + i * len,
    closeMs: T0 + (i + 1) * len,
    open: Decimal.fromInt(close - 1),
    high: Decimal.fromInt(close + 1),
    low: Decimal.fromInt(close - 2),
    close: c,
    volume: Decimal.from('0.5'),
    trades: 3,
  };
}

/** Records each onBar call: which instance, which bar, what it saw. */
function recorder(name: string, extra: Partial<StrategyDefinition<{ n: number }>> = {}) {
  const seen: string[] = [];
  const def = defineStrategy({
    name,
    params: z.strictObject({ n: z.number().default(3) }),
    onBar: (ctx: StrategyContext<{ n: number }>, b: Bar, u: MarketUpdate) => {
      seen.push(`${ctx.id} ${b.symbol} ${b.timeframe} #${(b.openMs - T0) / TIMEFRAME_MS[b.timeframe]} at ${u.nowMs} for ${u.balances[0]?.asset}`);
    },
    ...extra,
  });
  return { def, seen };
}

const updateAt =
  (nowMs: number) =>
  (cfg: StrategyInstanceConfig): MarketUpdate => ({
    nowMs,
    tickers: new Map(),
    openOrders: [],
    positions: [],
    balances: [{ surface: 'spot', asset: cfg.id, available: null, frozen: null, total: Decimal.ZERO }],
  });

describe('strategy runner: bars', () => {
  it('onBar gets the bars of its own symbols and timeframes only, each once, with its own update', () => {
    const a = recorder('a', { timeframes: ['1m'] });
    const b = recorder('b', { timeframes: ['1m'] });
    const runner = new StrategyRunner({
      instances: [
        { cfg: { id: 'a', name: 'a', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(a.def) },
        // The config's timeframes replace the strategy's.
        { cfg: { id: 'b', name: 'b', symbols: ['BTCUSDT_SPBL', 'ETHUSDT_SPBL'], params: {}, timeframes: ['5m', '1h'] }, def: erase(b.def) },
      ],
      instruments,
      logger: silentLogger,
      maxErrors: 3,
    });
    const built: string[] = [];
    const build = (cfg: StrategyInstanceConfig) => (built.push(cfg.id), updateAt(7)(cfg));
    runner.onBar(bar('BTCUSDT_SPBL', '1m', 0, 100), build);
    runner.onBar(bar('BTCUSDT_SPBL', '5m', 0, 100), build);
    runner.onBar(bar('ETHUSDT_SPBL', '1m', 0, 100), build); // nobody's
    runner.onBar(bar('ETHUSDT_SPBL', '1h', 0, 100), build);
    runner.onBar(bar('SOLUSDT_SPBL', '1h', 0, 100), build); // nobody's
    runner.onBar(bar('BTCUSDT_SPBL', '1m', 0, 100), build); // a repeat: dropped
    expect(a.seen).toEqual(['a BTCUSDT_SPBL 1m #0 at 7 for a']);
    expect(b.seen).toEqual(['b BTCUSDT_SPBL 5m #0 at 7 for b', 'b ETHUSDT_SPBL 1h #0 at 7 for b']);
    // The update is built only for the instances that take the bar.
    expect(built).toEqual(['a', 'b', 'b']);
    expect(runner.barNeeds()).toEqual([
      { symbol: 'BTCUSDT_SPBL', timeframe: '1m', lookback: 100 },
      { symbol: 'BTCUSDT_SPBL', timeframe: '5m', lookback: 100 },
      { symbol: 'BTCUSDT_SPBL', timeframe: '1h', lookback: 100 },
      { symbol: 'ETHUSDT_SPBL', timeframe: '5m', lookback: 100 },
      { symbol: 'ETHUSDT_SPBL', timeframe: '1h', lookback: 100 },
    ]);
  });

  it('the history keeps the last `lookback` closed bars, newest last(0); numbers oldest first; the forming bar as the source gives it', () => {
    let view: StrategyContext<{ n: number }> | undefined;
    const { def } = recorder('r', { timeframes: ['1m'], lookback: (p) => p.n, onStart: (ctx) => void (view = ctx) });
    // Another instance asks for more of the same series: each reads only its own lookback.
    const long = recorder('long', { timeframes: ['1m'], lookback: 10 });
    const runner = new StrategyRunner({
      instances: [
        { cfg: { id: 'r', name: 'r', symbols: ['ETHUSDT_SPBL'], params: { n: 3 } }, def: erase(def) },
        { cfg: { id: 'l', name: 'long', symbols: ['ETHUSDT_SPBL'], params: {} }, def: erase(long.def) },
      ],
      instruments,
      logger: silentLogger,
      maxErrors: 3,
    });
    expect(runner.barNeeds()).toEqual([{ symbol: 'ETHUSDT_SPBL', timeframe: '1m', lookback: 10 }]);
    runner.start();
    const series = view!.bars('ETHUSDT_SPBL', '1m');
    expect(series.length).toBe(0);
    expect(series.last()).toBeUndefined();
    expect(series.forming).toBeNull();
    for (let i = 0; i < 5; i++) runner.onBar(bar('ETHUSDT_SPBL', '1m', i, 100 + i), updateAt(i));
    expect(series.length).toBe(3);
    expect(series.last()!.close.toString()).toBe('104');
    expect(series.last(2)!.close.toString()).toBe('102');
    expect(series.last(3)).toBeUndefined();
    expect(series.at(0)!.close.toString()).toBe('102');
    expect(series.at(-1)!.close.toString()).toBe('104');
    expect(series.at(3)).toBeUndefined();
    expect(series.closes()).toEqual([102, 103, 104]);
    expect(series.closes(2)).toEqual([103, 104]);
    expect(series.closes(50)).toEqual([102, 103, 104]);
    expect(series.highs()).toEqual([103, 104, 105]);
    expect(series.lows()).toEqual([100, 101, 102]);
    expect(series.opens(1)).toEqual([103]);
    expect(series.volumes()).toEqual([0.5, 0.5, 0.5]);
    expect(long.seen).toHaveLength(5);
    let reads = 0;
    runner.formingFrom('ETHUSDT_SPBL', '1m', () => (reads++, bar('ETHUSDT_SPBL', '1m', 5, 99)));
    expect(reads).toBe(0); // read when asked for, each time
    expect(series.forming!.close.toString()).toBe('99');
    expect(series.forming!.openMs).toBe(T0 + 5 * 60_000);
    expect(reads).toBe(2);
  });

  it('onBar sees the bar already in its history, and the forming one', () => {
    const seen: string[] = [];
    const def = defineStrategy({
      name: 'look',
      params: z.strictObject({}),
      timeframes: ['5m'],
      onBar: (ctx, b) =>
        void seen.push(`${ctx.bars(b.symbol, b.timeframe).last()!.openMs === b.openMs} ${ctx.bars(b.symbol, b.timeframe).forming?.openMs === b.closeMs}`),
    });
    const runner = new StrategyRunner({
      instances: [{ cfg: { id: 'k', name: 'look', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(def) }],
      instruments,
      logger: silentLogger,
      maxErrors: 3,
    });
    runner.formingFrom('BTCUSDT_SPBL', '5m', () => bar('BTCUSDT_SPBL', '5m', 1, 1));
    runner.onBar(bar('BTCUSDT_SPBL', '5m', 0, 1), updateAt(0));
    expect(seen).toEqual(['true true']);
  });

  it('warm() fills the history without calling onBar; live bars go on after it, older ones are not taken again', () => {
    let ctxOf: StrategyContext<{ n: number }> | undefined;
    const r = recorder('r', { timeframes: ['1h'], lookback: 4, onStart: (ctx) => void (ctxOf = ctx) });
    const runner = new StrategyRunner({
      instances: [{ cfg: { id: 'r', name: 'r', symbols: ['cmt_btcusdt'], params: {} }, def: erase(r.def) }],
      instruments,
      logger: silentLogger,
      maxErrors: 3,
    });
    runner.warm(
      'cmt_btcusdt',
      '1h',
      [0, 1, 2, 3, 4, 5].map((i) => bar('cmt_btcusdt', '1h', i, 10 + i)),
    );
    runner.warm('cmt_btcusdt', '4h', [bar('cmt_btcusdt', '4h', 0, 1)]); // not asked for: ignored
    runner.start();
    expect(r.seen).toEqual([]);
    const s = ctxOf!.bars('cmt_btcusdt', '1h');
    expect(s.closes()).toEqual([12, 13, 14, 15]);
    runner.onBar(bar('cmt_btcusdt', '1h', 5, 99), updateAt(1)); // already warmed
    runner.onBar(bar('cmt_btcusdt', '1h', 6, 16), updateAt(2));
    expect(r.seen).toEqual(['r cmt_btcusdt 1h #6 at 2 for r']);
    expect(s.closes()).toEqual([13, 14, 15, 16]);
  });

  it('bars() of a symbol or timeframe the instance did not declare throws a clear error, counted like any hook error', () => {
    let caught = '';
    const def = defineStrategy({
      name: 'nosy',
      params: z.strictObject({}),
      timeframes: ['1m'],
      onBar: (ctx) => {
        try {
          ctx.bars('BTCUSDT_SPBL', '1h');
        } catch (err) {
          caught = (err as Error).message;
        }
        ctx.bars('ETHUSDT_SPBL', '1m');
      },
    });
    const runner = new StrategyRunner({
      instances: [{ cfg: { id: 'n', name: 'nosy', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(def) }],
      instruments,
      logger: silentLogger,
      maxErrors: 2,
    });
    runner.onBar(bar('BTCUSDT_SPBL', '1m', 0, 1), updateAt(0));
    expect(caught).toBe('bars(BTCUSDT_SPBL, 1h): strategies[n] did not declare them (symbols: BTCUSDT_SPBL; timeframes: 1m)');
    runner.onBar(bar('BTCUSDT_SPBL', '1m', 1, 1), updateAt(0));
    expect(runner.status()).toEqual([
      {
        id: 'n',
        errors: 2,
        faulted: true,
        hook: 'onBar',
        error: 'bars(ETHUSDT_SPBL, 1m): strategies[n] did not declare them (symbols: BTCUSDT_SPBL; timeframes: 1m)',
        reason: '2 errors, the last in onBar: bars(ETHUSDT_SPBL, 1m): strategies[n] did not declare them (symbols: BTCUSDT_SPBL; timeframes: 1m)',
      },
    ]);
    // Faulted: no more onBar.
    runner.onBar(bar('BTCUSDT_SPBL', '1m', 2, 7), updateAt(0));
    expect(runner.status()[0]!.errors).toBe(2);
  });

  it('a throwing onBar is counted and faulted while the others go on; its intents carry the instance id', () => {
    const bad = defineStrategy({
      name: 'bad',
      params: z.strictObject({}),
      timeframes: ['1m'],
      onBar: () => {
        throw new Error('bar boom');
      },
    });
    const good = defineStrategy({
      name: 'good',
      params: z.strictObject({}),
      timeframes: ['1m'],
      onBar: (_ctx, b) => [{ kind: 'cancel-all', surface: 'spot', symbol: b.symbol }],
    });
    const runner = new StrategyRunner({
      instances: [
        { cfg: { id: 'x', name: 'bad', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(bad) },
        { cfg: { id: 'g', name: 'good', symbols: ['BTCUSDT_SPBL'], params: {} }, def: erase(good) },
      ],
      instruments,
      logger: silentLogger,
      maxErrors: 2,
    });
    const intents: Intent[] = [];
    runner.intents$.subscribe((i) => intents.push(i));
    for (let i = 0; i < 3; i++) runner.onBar(bar('BTCUSDT_SPBL', '1m', i, 1), updateAt(i));
    expect(runner.status()).toEqual([
      { id: 'x', errors: 2, faulted: true, hook: 'onBar', error: 'bar boom', reason: '2 errors, the last in onBar: bar boom' },
      { id: 'g', errors: 0, faulted: false },
    ]);
    expect(intents).toEqual([0, 1, 2].map(() => ({ kind: 'cancel-all', surface: 'spot', symbol: 'BTCUSDT_SPBL', strategyId: 'g' })));
  });

  it('timeframes and lookbacks are checked with the other config problems', () => {
    const onBar = () => undefined;
    const cases: Array<[StrategyDefinition<unknown>, Partial<StrategyInstanceConfig>, RegExp]> = [
      [
        erase(defineStrategy({ name: 's', params: z.strictObject({}), onBar })),
        {},
        /strategies\[i\]\.timeframes: strategy s has an onBar hook but no timeframes/,
      ],
      [
        erase(defineStrategy({ name: 's', params: z.strictObject({}) })),
        { timeframes: ['3m' as Timeframe] },
        /strategies\[i\]\.timeframes: unknown timeframe "3m"/,
      ],
      [
        erase(defineStrategy({ name: 's', params: z.strictObject({}), timeframes: ['1m'], lookback: 5001 })),
        {},
        /lookback 5001 is not a whole number from 1 to 5000/,
      ],
      [erase(defineStrategy({ name: 's', params: z.strictObject({}), timeframes: ['1m'], lookback: () => 0 })), {}, /lookback 0 is not a whole number/],
      [
        erase(
          defineStrategy({
            name: 's',
            params: z.strictObject({}),
            timeframes: ['1m'],
            lookback: () => {
              throw new Error('no');
            },
          }),
        ),
        {},
        /lookback failed: no/,
      ],
    ];
    for (const [def, cfg, message] of cases) {
      const build = () =>
        new StrategyRunner({
          instances: [{ cfg: { id: 'i', name: 's', symbols: ['BTCUSDT_SPBL'], params: {}, ...cfg }, def }],
          instruments,
          logger: silentLogger,
          maxErrors: 3,
        });
      expect(build).toThrow(StrategyConfigError);
      expect(build).toThrow(message);
    }
  });
});

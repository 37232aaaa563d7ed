// The futures grid from plain updates: its bids, its take-profits, the protection of its long (a protect intent for
// the stop manager), and what it holds back while a fill or a stop may have changed the position.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import type { Position } from '../../src/domain/market.js';
import type { Order } from '../../src/domain/order.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../src/exchange/sim/instruments.js';
import type { MarketUpdate, StrategyContext, StrategyIntent } from '../../src/strategy/api.js';
import grid from '../../examples/strategies/futures-grid/index.js';

const inst = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'cmt_btcusdt')!);
const d = (s: string) => Decimal.from(s);

function ctx(over: Record<string, unknown> = {}): StrategyContext<ReturnType<typeof grid.params.parse>> {
  return {
    id: 'g',
    params: grid.params.parse({ levels: 3, stepBps: 100, size: '0.01', stopLossSteps: 1, ...over }),
    symbols: [inst.symbol],
    instruments: new Map([[inst.symbol, inst]]),
    log: { info: () => {}, warn: () => {} },
    state: {},
    bars: () => {
      throw new Error('no bars in this test');
    },
    inventory: () => {
      throw new Error('no inventory in this test');
    },
  };
}
function u(last: string, positions: Position[] = [], openOrders: Order[] = []): MarketUpdate {
  return {
    nowMs: 0,
    tickers: new Map([
      [
        inst.symbol,
        {
          symbol: inst.symbol,
          last: d(last),
          bestBid: null,
          bestAsk: null,
          markPrice: null,
          indexPrice: null,
          high24h: null,
          low24h: null,
          volume24h: null,
          baseVolume24h: null,
          timestampMs: 0,
        },
      ],
    ]),
    openOrders,
    positions,
    balances: [],
  };
}
const long = (size: string, entry: string): Position => ({
  symbol: inst.symbol,
  side: 'long',
  size: d(size),
  openValue: d(size).mul(d(entry)),
  entryPrice: d(entry),
  leverage: null,
  marginMode: 'SHARED',
  isolatedMargin: null,
  openFee: null,
  fundingFee: null,
  updatedAtMs: null,
});
const resting = (price: string, size = '0.01', reduceOnly = false): Order => ({
  surface: 'futures',
  symbol: inst.symbol,
  orderId: `o${price}`,
  clientOid: `c${price}`,
  side: reduceOnly ? 'sell' : 'buy',
  positionSide: 'long',
  reduceOnly,
  kind: 'limit',
  timeInForce: 'gtc',
  price: d(price),
  size: d(size),
  filledSize: d('0'),
  avgFillPrice: null,
  fee: null,
  status: 'open',
  rawStatus: 'open',
  rawType: 'open_long',
  createdAtMs: 0,
  updatedAtMs: 0,
});

type Protect = Extract<StrategyIntent, { kind: 'protect' }>;
const protects = (out: StrategyIntent[]) => out.filter((i): i is Protect => i.kind === 'protect');

describe('futures-grid', () => {
  it('places a bid on each level below the centre, and asks once for the protection of its long', () => {
    const c = ctx();
    const out = grid.onMarket!(c, u('10000')) as StrategyIntent[];
    expect(out.map((i) => i.kind)).toEqual(['place', 'protect']);
    const place = out[0] as Extract<StrategyIntent, { kind: 'place' }>;
    expect(place.orders.map((o) => o.price!.toString())).toEqual(['9900', '9800', '9700']);
    expect(place.orders.every((o) => o.side === 'buy' && o.positionSide === 'long' && o.size.eq(d('0.01')))).toBe(true);
    // The stop-loss one step below the lowest level; no trailing stop unless asked for.
    expect(out[1]).toEqual({ kind: 'protect', symbol: inst.symbol, positionSide: 'long', stopLoss: d('9600'), trailing: null });
    expect(protects(grid.onMarket!(c, u('10000')) as StrategyIntent[])).toEqual([]);
  });

  it('with trailBps: a trailing stop that far behind the best price, moved in steps of trailStepBps', () => {
    const out = grid.onMarket!(ctx({ trailBps: 50, trailStepBps: 10 }), u('10000')) as StrategyIntent[];
    expect(protects(out)).toEqual([
      { kind: 'protect', symbol: inst.symbol, positionSide: 'long', stopLoss: d('9600'), trailing: { distance: d('50'), step: d('10') } },
    ]);
  });

  it('after a fill: take-profit above the entry, resting bids left alone; flat again, nothing to do (the stop manager removes the stops)', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    const out = grid.onMarket!(c, u('9890', [long('0.01', '9900')], [resting('9900'), resting('9800'), resting('9700')])) as StrategyIntent[];
    expect(out.map((i) => i.kind)).toEqual(['cancel', 'place']);
    expect((out[0] as { clientOids: string[] }).clientOids).toEqual(['c9900']);
    const tp = (out[1] as Extract<StrategyIntent, { kind: 'place' }>).orders;
    expect(tp).toEqual([{ side: 'sell', kind: 'limit', timeInForce: 'gtc', price: d('9999'), size: d('0.01'), positionSide: 'long', reduceOnly: true }]);
    expect(grid.onMarket!(c, u('10000', [], [resting('9900'), resting('9800'), resting('9700')]))).toEqual([]);
  });

  it('an order placed but not answered yet (no venue id) is not placed again', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    const unanswered = (price: string): Order => ({ ...resting(price), orderId: '', status: 'pending' });
    expect(grid.onMarket!(c, u('10000', [], [unanswered('9900'), unanswered('9800'), resting('9700')]))).toEqual([]);
  });
});

describe('futures-grid: the protection', () => {
  it('denied: asked for again after a while', () => {
    const c = ctx();
    expect(protects(grid.onMarket!(c, { ...u('10000'), nowMs: 0 }) as StrategyIntent[])).toHaveLength(1);
    grid.onEvent!(c, {
      type: 'denied',
      strategyId: 'g',
      surface: 'futures',
      symbol: inst.symbol,
      atMs: 1000,
      reason: 'halted',
      detail: 'new protection refused',
    });
    expect(protects(grid.onMarket!(c, { ...u('10000'), nowMs: 20_000 }) as StrategyIntent[])).toEqual([]);
    expect(protects(grid.onMarket!(c, { ...u('10000'), nowMs: 32_000 }) as StrategyIntent[])).toHaveLength(1);
  });

  it('a price at or below where its stop may sit: nothing new is placed until the position shows the change', () => {
    const c = ctx({ trailBps: 50 });
    grid.onMarket!(c, u('10000'));
    // Bought at 9900: the trailing stop sits at most 50 under the best price since (9900).
    const first = grid.onMarket!(c, u('9895', [long('0.01', '9900')], [resting('9800'), resting('9700')])) as StrategyIntent[];
    expect(first.flatMap((i) => (i.kind === 'place' ? i.orders : [])).map((o) => o.price!.toString())).toEqual(['9999']);
    // Grown to 0.02 and at 9840: below 9850, the stop may have fired: the uncovered take-profit waits.
    const held = grid.onMarket!(
      c,
      u('9840', [long('0.02', '9850')], [resting('9700'), { ...resting('9999', '0.01', true), orderId: 'tp', clientOid: 'tp' }]),
    ) as StrategyIntent[];
    expect(held.filter((i) => i.kind === 'place')).toEqual([]);
    // The stop fired: flat. The take-profit left is cancelled, the levels above the price are bid again.
    const flat = grid.onMarket!(c, u('9840', [], [resting('9700'), { ...resting('9999', '0.01', true), orderId: 'tp', clientOid: 'tp' }])) as StrategyIntent[];
    expect(flat.map((i) => i.kind)).toEqual(['cancel', 'place']);
    expect((flat[1] as Extract<StrategyIntent, { kind: 'place' }>).orders.map((o) => o.price!.toString())).toEqual(['9800']);
  });

  it('a close refused (the position is smaller than it was read): nothing new is placed until the position shows the change', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    grid.onMarket!(c, u('9890', [long('0.01', '9900')], [resting('9800'), resting('9700')]));
    grid.onEvent!(c, {
      type: 'rejected',
      strategyId: 'g',
      surface: 'futures',
      symbol: inst.symbol,
      clientOid: 'x',
      atMs: 1000,
      code: '40017',
      reason: 'close size exceeds the position',
    });
    expect(
      (grid.onMarket!(c, { ...u('9890', [long('0.01', '9900')], [resting('9800'), resting('9700')]), nowMs: 2000 }) as StrategyIntent[]).filter(
        (i) => i.kind === 'place',
      ),
    ).toEqual([]);
  });
});

describe('futures-grid: take-profits never exceed the position', () => {
  const tp = (price: string, size: string): Order => ({ ...resting(price, size, true), orderId: `tp${price}`, clientOid: `tp${price}` });
  const places = (out: StrategyIntent[]) => out.flatMap((i) => (i.kind === 'place' ? i.orders : []));
  const cancels = (out: StrategyIntent[]) => out.flatMap((i) => (i.kind === 'cancel' ? (i.clientOids ?? []) : []));

  it('a resting take-profit stays where it is, even once the price passed it (it is filling)', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    const out = grid.onMarket!(c, u('10050', [long('0.01', '9900')], [resting('9800'), resting('9700'), tp('9999', '0.01')])) as StrategyIntent[];
    expect(cancels(out)).toEqual([]);
    expect(places(out)).toEqual([]);
  });

  it('a level bought after the take-profit was placed gets its own, for what is not covered', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    const out = grid.onMarket!(c, u('9790', [long('0.02', '9850')], [resting('9700'), tp('9999', '0.01')])) as StrategyIntent[];
    expect(cancels(out)).toEqual([]);
    expect(places(out)).toEqual([
      { side: 'sell', kind: 'limit', timeInForce: 'gtc', price: d('9948.5'), size: d('0.01'), positionSide: 'long', reduceOnly: true },
    ]);
    // Partly filled: what is left of it counts.
    const partly = { ...tp('9999', '0.01'), filledSize: d('0.004') };
    const after = grid.onMarket!(c, u('9790', [long('0.016', '9850')], [resting('9700'), partly])) as StrategyIntent[];
    expect(places(after).map((o) => o.size.toString())).toEqual(['0.01']);
    // Flat: the take-profits left are cancelled.
    expect(cancels(grid.onMarket!(c, u('10100', [], [resting('9700'), tp('9999', '0.01')])) as StrategyIntent[])).toEqual(['tp9999']);
  });
});

describe('futures-grid: a fill before the positions poll shows it', () => {
  it('a filled level is not bought again, nor a filled take-profit placed anew, until the position has changed', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    // The 9900 level filled: its order is gone from our orders; the positions poll still says flat.
    grid.onEvent!(c, {
      type: 'filled',
      orderId: 'o9900',
      strategyId: 'g',
      surface: 'futures',
      symbol: inst.symbol,
      clientOid: 'c9900',
      atMs: 1000,
      filledSize: d('0.01'),
      avgPrice: d('9900'),
      side: 'buy',
      positionSide: 'long',
      reduceOnly: false,
    });
    const stale = grid.onMarket!(c, { ...u('9950', [], [resting('9800'), resting('9700')]), nowMs: 2000 }) as StrategyIntent[];
    expect(stale.filter((i) => i.kind === 'place')).toEqual([]);
    // The position shows: the take-profit goes out; the filled level is not bought again.
    const fresh = grid.onMarket!(c, { ...u('9950', [long('0.01', '9900')], [resting('9800'), resting('9700')]), nowMs: 3000 }) as StrategyIntent[];
    const places = fresh.filter((i): i is Extract<StrategyIntent, { kind: 'place' }> => i.kind === 'place').flatMap((i) => i.orders);
    expect(places.map((o) => [o.side, o.price!.toString(), o.reduceOnly ?? false])).toEqual([['sell', '9999', true]]);
  });
});

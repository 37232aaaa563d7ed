import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import type { Position } from '../../src/domain/market.js';
import type { Order } from '../../src/domain/order.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../src/exchange/sim/instruments.js';
import type { MarketUpdate, StrategyContext, StrategyIntent } from '../../src/strategy/api.js';
import grid from '../../strategies/futures-grid/index.js';

const inst = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'cmt_btcusdt')!);
const d = (s: string) => Decimal.from(s);

function ctx(): StrategyContext<ReturnType<typeof grid.params.parse>> {
  return { id: 'g', params: grid.params.parse({ levels: 3, stepBps: 100, size: '0.01', stopLossSteps: 1 }), symbols: [inst.symbol], instruments: new Map([[inst.symbol, inst]]), log: { info: () => {}, warn: () => {} }, state: {},
    bars: () => { throw new Error('no bars in this test'); }, inventory: () => { throw new Error('no inventory in this test'); } };
}
function u(last: string, positions: Position[] = [], openOrders: Order[] = []): MarketUpdate {
  return { nowMs: 0, tickers: new Map([[inst.symbol, { symbol: inst.symbol, last: d(last), bestBid: null, bestAsk: null, markPrice: null, indexPrice: null, high24h: null, low24h: null, volume24h: null, baseVolume24h: null, timestampMs: 0 }]]), openOrders, positions, balances: [] };
}
const long = (size: string, entry: string): Position => ({ symbol: inst.symbol, side: 'long', size: d(size), openValue: d(size).mul(d(entry)), entryPrice: d(entry), leverage: null, marginMode: 'SHARED', isolatedMargin: null, openFee: null, fundingFee: null, updatedAtMs: null });
const resting = (price: string, size = '0.01', reduceOnly = false): Order => ({ surface: 'futures', symbol: inst.symbol, orderId: `o${price}`, clientOid: `c${price}`, side: reduceOnly ? 'sell' : 'buy', positionSide: 'long', reduceOnly, kind: 'limit', timeInForce: 'gtc', price: d(price), size: d(size), filledSize: d('0'), avgFillPrice: null, fee: null, status: 'open', rawStatus: 'open', rawType: 'open_long', createdAtMs: 0, updatedAtMs: 0 });

describe('futures-grid', () => {
  it('places a bid on each level below the centre', () => {
    const out = grid.onMarket!(ctx(), u('10000')) as StrategyIntent[];
    expect(out).toHaveLength(1);
    const place = out[0] as Extract<StrategyIntent, { kind: 'place' }>;
    expect(place.orders.map((o) => o.price!.toString())).toEqual(['9900', '9800', '9700']);
    expect(place.orders.every((o) => o.side === 'buy' && o.positionSide === 'long' && o.size.eq(d('0.01')))).toBe(true);
  });

  it('after a fill: take-profit above the entry, stop-loss trigger below the grid, resting bids left alone', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    const out = grid.onMarket!(c, u('9890', [long('0.01', '9900')], [resting('9900'), resting('9800'), resting('9700')])) as StrategyIntent[];
    expect(out.map((i) => i.kind)).toEqual(['cancel', 'place', 'place-trigger']);
    expect((out[0] as { clientOids: string[] }).clientOids).toEqual(['c9900']);
    const tp = (out[1] as Extract<StrategyIntent, { kind: 'place' }>).orders;
    expect(tp).toEqual([{ side: 'sell', kind: 'limit', timeInForce: 'gtc', price: d('9999'), size: d('0.01'), positionSide: 'long', reduceOnly: true }]);
    expect((out[2] as Extract<StrategyIntent, { kind: 'place-trigger' }>).triggerPrice.toString()).toBe('9600');
    grid.onEvent!(c, { type: 'accepted', orderId: 'tp1', trigger: false, strategyId: 'g', surface: 'futures', symbol: inst.symbol, clientOid: 'y', atMs: 0 });
    grid.onEvent!(c, { type: 'accepted', orderId: 'sl1', trigger: true, strategyId: 'g', surface: 'futures', symbol: inst.symbol, clientOid: 'x', atMs: 0 });
    // Flat again: the stop-loss is cancelled.
    const flat = grid.onMarket!(c, u('10000', [], [resting('9900'), resting('9800'), resting('9700')])) as StrategyIntent[];
    expect(flat).toEqual([{ kind: 'cancel-trigger', symbol: inst.symbol, orderId: 'sl1' }]);
  });

  it('an order placed but not answered yet (no venue id) is not placed again', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    const unanswered = (price: string): Order => ({ ...resting(price), orderId: '', status: 'pending' });
    expect(grid.onMarket!(c, u('10000', [], [unanswered('9900'), unanswered('9800'), resting('9700')]))).toEqual([]);
  });
});

describe('futures-grid: the stop-loss', () => {
  it('a stop-loss whose placing was denied is placed again after a while; one that shows is adopted', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    const first = grid.onMarket!(c, { ...u('9890', [long('0.01', '9900')]), nowMs: 1000 }) as StrategyIntent[];
    expect(first.map((i) => i.kind)).toContain('place-trigger');
    // Denied (no accepted event): nothing shows for 30 s, then it is placed again.
    expect((grid.onMarket!(c, { ...u('9890', [long('0.01', '9900')]), nowMs: 20_000 }) as StrategyIntent[]).map((i) => i.kind)).not.toContain('place-trigger');
    expect((grid.onMarket!(c, { ...u('9890', [long('0.01', '9900')]), nowMs: 32_000 }) as StrategyIntent[]).map((i) => i.kind)).toContain('place-trigger');
    // Unknown, then listed by the venue: adopted, so it is cancelled when flat.
    const listed: Order = { ...resting('9600', '0.03', true), orderId: 'sl9', status: 'untriggered' };
    grid.onMarket!(c, { ...u('9890', [long('0.01', '9900')], [listed]), nowMs: 33_000 });
    const flat = grid.onMarket!(c, { ...u('10000', [], [listed]), nowMs: 34_000 }) as StrategyIntent[];
    expect(flat.filter((i) => i.kind === 'cancel-trigger')).toEqual([{ kind: 'cancel-trigger', symbol: inst.symbol, orderId: 'sl9' }]);
  });
});

describe('futures-grid: the stop-loss is sized to what is held', () => {
  it('placed for the position, replaced when it changes (the one replaced is never adopted), cancelled when flat', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    const first = grid.onMarket!(c, { ...u('9890', [long('0.01', '9900')]), nowMs: 1000 }) as StrategyIntent[];
    expect(first.filter((i) => i.kind === 'place-trigger').map((i) => (i as Extract<StrategyIntent, { kind: 'place-trigger' }>).size.toString())).toEqual(['0.01']);
    grid.onEvent!(c, { type: 'accepted', orderId: 'sl1', trigger: true, strategyId: 'g', surface: 'futures', symbol: inst.symbol, clientOid: 'x1', atMs: 1000 });
    const listed = (id: string, size: string): Order => ({ ...resting('9600', size, true), orderId: id, status: 'untriggered' });
    // Unchanged: left alone.
    expect((grid.onMarket!(c, { ...u('9890', [long('0.01', '9900')], [listed('sl1', '0.01')]), nowMs: 2000 }) as StrategyIntent[]).filter((i) => i.kind.endsWith('trigger'))).toEqual([]);
    // A second level bought: the stop follows the position.
    const grown = grid.onMarket!(c, { ...u('9790', [long('0.02', '9850')], [listed('sl1', '0.01')]), nowMs: 3000 }) as StrategyIntent[];
    expect(grown.filter((i) => i.kind.endsWith('trigger')).map((i) => [i.kind, i.kind === 'place-trigger' ? i.size.toString() : (i as { orderId: string }).orderId])).toEqual([['cancel-trigger', 'sl1'], ['place-trigger', '0.02']]);
    // Its answer lost, the old one still listed: not adopted; the new one, once listed, is.
    grid.onMarket!(c, { ...u('9790', [long('0.02', '9850')], [listed('sl1', '0.01')]), nowMs: 4000 });
    expect(c.state.stopLoss).toBe('pending');
    grid.onMarket!(c, { ...u('9790', [long('0.02', '9850')], [listed('sl2', '0.02')]), nowMs: 5000 });
    expect(c.state.stopLoss).toBe('sl2');
    expect((grid.onMarket!(c, { ...u('10100', []), nowMs: 6000 }) as StrategyIntent[]).filter((i) => i.kind.endsWith('trigger'))).toEqual([{ kind: 'cancel-trigger', symbol: inst.symbol, orderId: 'sl2' }]);
  });
});

describe('futures-grid: take-profits never exceed the position', () => {
  const tp = (price: string, size: string): Order => ({ ...resting(price, size, true), orderId: `tp${price}`, clientOid: `tp${price}` });
  const places = (out: StrategyIntent[]) => out.flatMap((i) => (i.kind === 'place' ? i.orders : []));
  const cancels = (out: StrategyIntent[]) => out.flatMap((i) => (i.kind === 'cancel' ? i.clientOids ?? [] : []));

  it('a resting take-profit stays where it is, even once the price passed it (it is filling)', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    c.state.stopLoss = 'sl1';
    const out = grid.onMarket!(c, u('10050', [long('0.01', '9900')], [resting('9800'), resting('9700'), tp('9999', '0.01')])) as StrategyIntent[];
    expect(cancels(out)).toEqual([]);
    expect(places(out)).toEqual([]);
  });

  it('a level bought after the take-profit was placed gets its own, for what is not covered', () => {
    const c = ctx();
    grid.onMarket!(c, u('10000'));
    c.state.stopLoss = 'sl1';
    const out = grid.onMarket!(c, u('9790', [long('0.02', '9850')], [resting('9700'), tp('9999', '0.01')])) as StrategyIntent[];
    expect(cancels(out)).toEqual([]);
    expect(places(out)).toEqual([{ side: 'sell', kind: 'limit', timeInForce: 'gtc', price: d('9948.5'), size: d('0.01'), positionSide: 'long', reduceOnly: true }]);
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
    grid.onEvent!(c, { type: 'filled', orderId: 'o9900', strategyId: 'g', surface: 'futures', symbol: inst.symbol, clientOid: 'c9900', atMs: 1000, filledSize: d('0.01'), avgPrice: d('9900'), side: 'buy', positionSide: 'long', reduceOnly: false });
    const stale = grid.onMarket!(c, { ...u('9950', [], [resting('9800'), resting('9700')]), nowMs: 2000 }) as StrategyIntent[];
    expect(stale.filter((i) => i.kind === 'place' || i.kind === 'place-trigger')).toEqual([]);
    // The position shows: the take-profit and the stop go out; the filled level is not bought again.
    const fresh = grid.onMarket!(c, { ...u('9950', [long('0.01', '9900')], [resting('9800'), resting('9700')]), nowMs: 3000 }) as StrategyIntent[];
    const places = fresh.filter((i): i is Extract<StrategyIntent, { kind: 'place' }> => i.kind === 'place').flatMap((i) => i.orders);
    expect(places.map((o) => [o.side, o.price!.toString(), o.reduceOnly ?? false])).toEqual([['sell', '9999', true]]);
    expect(fresh.map((i) => i.kind)).toContain('place-trigger');
  });
});

import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import type { Order } from '../../src/domain/order.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../src/exchange/sim/instruments.js';
import type { MarketUpdate, StrategyContext } from '../../src/strategy/api.js';
import mm from '../../examples/strategies/spot-market-maker/index.js';

const inst = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'BTCUSDT_SPBL')!);
const d = (s: string) => Decimal.from(s);

function ctx(): StrategyContext<ReturnType<typeof mm.params.parse>> {
  return {
    id: 'mm',
    // The quotes' arithmetic at 10 bps with a 3 bps tolerance (the defaults leave more room for the fees).
    params: mm.params.parse({ halfSpreadBps: 10, toleranceBps: 3 }),
    symbols: ['BTCUSDT_SPBL'],
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

function update(last: string, base: string, open: Order[] = [], book?: { bid: string; ask: string }): MarketUpdate {
  return {
    nowMs: 0,
    tickers: new Map([
      [
        inst.symbol,
        {
          symbol: inst.symbol,
          last: d(last),
          bestBid: book ? d(book.bid) : null,
          bestAsk: book ? d(book.ask) : null,
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
    openOrders: open,
    positions: [],
    balances: [{ surface: 'spot', asset: 'BTC', available: d(base), frozen: d('0'), total: d(base) }],
  };
}

function order(side: 'buy' | 'sell', price: string): Order {
  return {
    surface: 'spot',
    symbol: inst.symbol,
    orderId: `${side}${price}`,
    clientOid: null,
    side,
    positionSide: null,
    reduceOnly: false,
    kind: 'limit',
    timeInForce: 'post_only',
    price: d(price),
    size: d('0.001'),
    filledSize: d('0'),
    avgFillPrice: null,
    fee: null,
    status: 'open',
    rawStatus: 'open',
    rawType: 'limit',
    createdAtMs: 0,
    updatedAtMs: 0,
  };
}

describe('spot-market-maker', () => {
  it('quotes both sides post-only around the last price, on the tick', () => {
    const c = ctx();
    const out = mm.onMarket!(c, update('90000', '1'))!;
    expect(out).toEqual([
      {
        kind: 'place',
        surface: 'spot',
        symbol: inst.symbol,
        orders: [
          { side: 'buy', kind: 'limit', timeInForce: 'post_only', price: d('89910'), size: d('0.001') },
          { side: 'sell', kind: 'limit', timeInForce: 'post_only', price: d('90090'), size: d('0.001') },
        ],
      },
    ]);
  });

  it('leaves quotes near their target alone, replaces those that drifted', () => {
    const c = ctx();
    mm.onMarket!(c, update('90000', '1'));
    expect(mm.onMarket!(c, update('90010', '1', [order('buy', '89910'), order('sell', '90090')]))).toEqual([]);
    const out = mm.onMarket!(c, update('90500', '1', [order('buy', '89910'), order('sell', '90090')]))!;
    expect(out.map((i) => i.kind)).toEqual(['cancel', 'place']);
  });

  it('skews against inventory and pulls the side that would add to a full one', () => {
    const c = ctx();
    mm.onMarket!(c, update('90000', '1'));
    const long = mm.onMarket!(c, update('90000', '1.01'))!;
    const orders = (long[0] as { orders: Array<{ side: string; price: Decimal }> }).orders;
    expect(orders.map((o) => o.side)).toEqual(['sell']);
    expect(orders[0]!.price.lt(d('90090'))).toBe(true);
  });

  it('an inventory past the maximum shifts quotes by skewBps at most: the ask stays over the last trade (post-only)', () => {
    const c = ctx();
    mm.onMarket!(c, update('90000', '1'));
    // Three times maxInventory long (orders filled while others were under way): skewed by 10 bps, not 30.
    const out = mm.onMarket!(c, update('90000', '1.03'))!;
    const orders = (out[0] as { orders: Array<{ side: string; price: Decimal }> }).orders;
    expect(orders.map((o) => [o.side, o.price.toString()])).toEqual([['sell', '90000.1']]);
  });

  it('with the book in the ticker, a bid stays under the best ask and an ask over the best bid', () => {
    const c = { ...ctx(), params: mm.params.parse({ halfSpreadBps: 1, skewBps: 0 }) };
    // The book moved up past the last trade: an ask 1 bp over the last trade (90009) would take the bid at 90020.
    const up = mm.onMarket!(c, update('90000', '1', [], { bid: '90020', ask: '90020.2' }))!;
    expect((up[0] as { orders: Array<{ side: string; price: Decimal }> }).orders.map((o) => [o.side, o.price.toString()])).toEqual([
      ['buy', '89991'],
      ['sell', '90020.1'],
    ]);
    const down = mm.onMarket!({ ...c, state: {} }, update('90000', '1', [], { bid: '89979.8', ask: '89980' }))!;
    expect((down[0] as { orders: Array<{ side: string; price: Decimal }> }).orders.map((o) => [o.side, o.price.toString()])).toEqual([
      ['buy', '89979.9'],
      ['sell', '90009'],
    ]);
  });
});

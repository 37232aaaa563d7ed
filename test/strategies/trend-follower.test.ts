import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import type { Position } from '../../src/domain/market.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../src/exchange/sim/instruments.js';
import type { MarketUpdate, StrategyContext, StrategyIntent } from '../../src/strategy/api.js';
import trend from '../../examples/strategies/trend-follower/index.js';

const inst = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'cmt_ethusdt')!);
const d = (s: string) => Decimal.from(s);

function ctx(): StrategyContext<ReturnType<typeof trend.params.parse>> {
  return {
    id: 't',
    params: trend.params.parse({ fast: 2, slow: 4, size: '0.05' }),
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
function u(last: string, positions: Position[] = []): MarketUpdate {
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
    openOrders: [],
    positions,
    balances: [],
  };
}
const long = (size: string): Position => ({
  symbol: inst.symbol,
  side: 'long',
  size: d(size),
  openValue: d('150'),
  entryPrice: d('3000'),
  leverage: null,
  marginMode: 'SHARED',
  isolatedMargin: null,
  openFee: null,
  fundingFee: null,
  updatedAtMs: null,
});

describe('trend-follower', () => {
  it('enters on a cross up with a stop-loss and a take-profit trigger, exits on the cross down and cancels them', () => {
    const c = ctx();
    let out: StrategyIntent[] = [];
    for (const p of ['3000', '2990', '2980', '2970', '2960']) out = (trend.onMarket!(c, u(p)) as StrategyIntent[] | undefined) ?? [];
    expect(out).toEqual([]);
    out = trend.onMarket!(c, u('3100')) as StrategyIntent[];
    expect(out.map((i) => i.kind)).toEqual(['place', 'place-trigger', 'place-trigger']);
    const [sl, tp] = [out[1], out[2]] as Array<Extract<StrategyIntent, { kind: 'place-trigger' }>>;
    expect([sl!.triggerPrice.toString(), tp!.triggerPrice.toString()]).toEqual(['3053.5', '3193']);
    expect(sl!.reduceOnly && tp!.reduceOnly).toBe(true);
    // The answers: entry, stop-loss, take-profit.
    for (const [i, id] of ['e1', 's1', 't1'].entries())
      trend.onEvent!(c, {
        type: 'accepted',
        orderId: id,
        trigger: i > 0,
        strategyId: 't',
        surface: 'futures',
        symbol: inst.symbol,
        clientOid: `c${i}`,
        atMs: 0,
      });
    out = trend.onMarket!(c, u('2800', [long('0.05')])) as StrategyIntent[];
    expect(out).toEqual([
      {
        kind: 'place',
        surface: 'futures',
        symbol: inst.symbol,
        orders: [{ side: 'sell', kind: 'market', timeInForce: 'ioc', size: d('0.05'), positionSide: 'long', reduceOnly: true }],
      },
      { kind: 'cancel-trigger', symbol: inst.symbol, orderId: 's1' },
      { kind: 'cancel-trigger', symbol: inst.symbol, orderId: 't1' },
    ]);
  });

  it('rejects a fast window not shorter than the slow one', () => {
    expect(trend.params.safeParse({ fast: 30, slow: 10 }).success).toBe(false);
  });
});

// Own fills -> domain fills: sizes above zero, the price the venue's or amount / size, the futures side from
// orderSide or a direction name.
import { describe, expect, it } from '@jest/globals';
import { ParseContext } from '../../../../src/exchange/live/parse-context.js';
import { futuresFill, spotFill } from '../../../../src/exchange/live/parse-fills.js';
import type { WireFuturesFill, WireSpotFill } from '../../../../src/exchange/wire/responses.js';

const str = (v: unknown) => String(v);

const spot = (fields: Partial<WireSpotFill>): WireSpotFill =>
  ({
    symbol: 'BTCUSDT_SPBL',
    orderId: '1',
    fillId: '2',
    orderType: '',
    side: 'sell',
    fillPrice: '',
    fillQuantity: '0.03',
    fillTotalAmount: '2722.659',
    fees: '2.72',
    cTime: '1764482511864',
    ...fields,
  }) as WireSpotFill;

const futures = (fields: Partial<WireFuturesFill>): WireFuturesFill =>
  ({
    tradeId: '5',
    orderId: '6',
    symbol: 'cmt_btcusdt',
    orderSide: 'BUY',
    fillSize: '0.002',
    fillValue: '181.5106',
    fillFee: '0.1089',
    createdTime: 1764482511864,
    ...fields,
  }) as WireFuturesFill;

describe('spot fills', () => {
  it('derives an empty fillPrice from amount / size, exactly', () => {
    const fill = spotFill(new ParseContext('S2'), spot({}), 0);
    expect([fill.price, fill.size, fill.amount, fill.fee].map(str)).toEqual(['90755.3', '0.03', '2722.659', '2.72']);
    expect(fill).toMatchObject({ side: 'sell', orderId: '1', fillId: '2', timestampMs: 1764482511864 });
    expect(str(spotFill(new ParseContext('S2'), spot({ fillPrice: '90755.4' }), 0).price)).toBe('90755.4');
  });

  it('fails on a size not above zero, a non-positive derived price, or an unknown side, naming the field', () => {
    const ctx = new ParseContext('S2');
    expect(() => spotFill(ctx, spot({ fillQuantity: '0' }), 1)).toThrow('data.fillsOrderResultList[1].fillQuantity: must be above zero, got "0"');
    expect(() => spotFill(ctx, spot({ fillTotalAmount: '-1' }), 2)).toThrow(
      'data.fillsOrderResultList[2].fillTotalAmount: gives a non-positive price: "-1" / "0.03"',
    );
    expect(() => spotFill(ctx, spot({ side: 'x' }), 3)).toThrow('data.fillsOrderResultList[3].side: unknown side "x"');
  });
});

describe('futures fills', () => {
  it('prices by fillValue / fillSize unless a price is sent; the side from orderSide', () => {
    const fill = futuresFill(new ParseContext('F20'), futures({}), 0);
    expect([fill.price, fill.size, fill.amount, fill.fee, fill.side].map(str)).toEqual(['90755.3', '0.002', '181.5106', '0.1089', 'buy']);
    expect(fill).toMatchObject({ fillId: '5', orderId: '6' });
    expect(() => futuresFill(new ParseContext('F20'), futures({ fillSize: '-0.002' }), 4)).toThrow('list[4].fillSize: must be above zero, got "-0.002"');
  });

  it('takes the side from a direction name when orderSide is missing or unknown (reported)', () => {
    const ctx = new ParseContext('F20');
    expect(futuresFill(ctx, futures({ orderSide: null, legacyOrdeDirection: 'CLOSE_LONG' }), 0).side).toBe('sell');
    expect(futuresFill(ctx, futures({ orderSide: 'HOLD', legacyOrdeDirection: null, direction: 'OPEN_SHORT' }), 1).side).toBe('sell');
    expect(ctx.anomalies.map((a) => a.field)).toEqual(['list[1].orderSide']);
    expect(() => futuresFill(ctx, futures({ orderSide: undefined, direction: 'MAKER' }), 2)).toThrow(
      'list[2].orderSide: no side: orderSide null, direction "MAKER"',
    );
  });
});

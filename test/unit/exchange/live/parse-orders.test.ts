// Order records -> domain orders: statuses, sides and types mapped or reported as unknown; market prices "0" are no price.
import { describe, expect, it } from '@jest/globals';
import { ParseContext } from '../../../../src/exchange/live/parse-context.js';
import { futuresOrder, spotOrder } from '../../../../src/exchange/live/parse-orders.js';
import { JsonBigInt } from '../../../../src/exchange/wire/json.js';
import type { WireFuturesOrder, WireSpotOrder } from '../../../../src/exchange/wire/responses.js';
import { shown } from '../../../../src/util/shown.js';

const str = (v: unknown) => (v === null ? null : shown(v));

const spot = (fields: Partial<WireSpotOrder>): WireSpotOrder =>
  ({
    symbol: 'BTCUSDT_SPBL',
    orderId: new JsonBigInt('602876318261969338'),
    clientOrderId: 'sx_a_1',
    price: '90000.0',
    quantity: '0.01',
    orderType: 'limit',
    side: 'buy',
    status: 'partial_fill',
    fillQuantity: '0.004',
    fillTotalAmount: '360.02',
    cTime: '1764482511864',
    uTime: '1764482512000',
    ...fields,
  }) as WireSpotOrder;

const futures = (fields: Partial<WireFuturesOrder>): WireFuturesOrder =>
  ({
    symbol: 'cmt_btcusdt',
    size: '0.02',
    client_oid: 'sx_b_1',
    createTime: '1764482511864',
    filled_qty: '0',
    fee: '0',
    order_id: '11',
    price: '90000.5',
    price_avg: '0',
    status: 'open',
    type: 'close_short',
    order_type: 'postOnly',
    ...fields,
  }) as WireFuturesOrder;

describe('spot orders', () => {
  it('maps a partially filled limit order, its id kept exact and its average derived', () => {
    const order = spotOrder(new ParseContext('S3'), spot({}), 'data[0]');
    expect(order).toMatchObject({
      orderId: '602876318261969338',
      clientOid: 'sx_a_1',
      side: 'buy',
      kind: 'limit',
      status: 'open',
      rawStatus: 'partial_fill',
      createdAtMs: 1764482511864,
      updatedAtMs: 1764482512000,
    });
    expect([order.price, order.size, order.filledSize, order.avgFillPrice].map(str)).toEqual(['90000', '0.01', '0.004', '90005']);
  });

  it('gives a market order no price, and reports what it does not know', () => {
    const ctx = new ParseContext('S15');
    const order = spotOrder(ctx, spot({ orderType: 'market', price: '0', status: 'weird', side: 'both', clientOrderId: '' }), 'data.orderInfoResultList[4]');
    expect(order).toMatchObject({ price: null, status: 'unknown', side: null, clientOid: null });
    expect(ctx.anomalies.map((a) => a.field)).toEqual(['data.orderInfoResultList[4].status', 'data.orderInfoResultList[4].side']);
    expect(() => spotOrder(ctx, spot({ quantity: '' }), 'data[0]')).toThrow('data[0].quantity: a value is required');
  });
});

describe('futures orders', () => {
  it('derives side and position from the type name, time in force from order_type', () => {
    const order = futuresOrder(new ParseContext('F5'), futures({}), '[0]');
    expect(order).toMatchObject({
      side: 'buy',
      positionSide: 'short',
      reduceOnly: true,
      kind: 'limit',
      timeInForce: 'post_only',
      status: 'open',
      avgFillPrice: null,
      updatedAtMs: null,
    });
  });

  it('takes price "0.0" as a market order; names fields bare for a bare record', () => {
    const ctx = new ParseContext('F18');
    const order = futuresOrder(ctx, futures({ price: '0.0', type: 'swap', order_type: 'ioc', price_avg: '90001.5', filled_qty: '0.02' }), '');
    expect(order).toMatchObject({ kind: 'market', price: null, side: null, positionSide: null, timeInForce: 'ioc' });
    expect(str(order.avgFillPrice)).toBe('90001.5');
    expect(ctx.anomalies.map((a) => a.field)).toEqual(['type']);
  });
});

// What the simulator keeps of past orders and fills: lookups by id and client id, fills newest first, and the
// bound that drops old final orders and old fills (with their details) but never an open order.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import type { Fill } from '../../../../src/domain/market.js';
import { createBook, type Book } from '../../../../src/exchange/sim/book.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../../../src/exchange/sim/market.js';
import { OrderHistory } from '../../../../src/exchange/sim/order-history.js';
import type { SimOrder } from '../../../../src/exchange/sim/sim-order.js';

function book(): Book {
  return createBook(new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 1, startMs: 0, tickIntervalMs: 100 }).symbols[3]!);
}

function order(orderId: string, fields: Partial<SimOrder> = {}): SimOrder {
  return {
    orderId,
    clientOid: `c${orderId}`,
    surface: 'futures',
    symbol: 'cmt_btcusdt',
    side: 'buy',
    positionSide: 'long',
    reduceOnly: false,
    kind: 'limit',
    tif: 'gtc',
    priceTicks: 1,
    sizeSteps: 1,
    filledSteps: 0,
    filledValue: Decimal.ZERO,
    fee: Decimal.ZERO,
    status: 'filled',
    createdAtMs: Number(orderId),
    updatedAtMs: 0,
    reserved: Decimal.ZERO,
    triggerTicks: null,
    triggerUp: false,
    isTrigger: false,
    firedAtMs: null,
    ...fields,
  };
}

const fill = (orderId: string, fillId: string): Fill => ({
  symbol: 'cmt_btcusdt',
  orderId,
  fillId,
  side: 'buy',
  price: Decimal.fromInt(1),
  size: Decimal.fromInt(1),
  amount: Decimal.fromInt(1),
  fee: Decimal.ZERO,
  timestampMs: Number(fillId),
});

describe('order history', () => {
  it('keeps every order and fill without a bound, fills by order newest first', () => {
    const history = new OrderHistory(Number.POSITIVE_INFINITY);
    const b = book();
    for (let k = 1; k <= 50; k++) history.remember(b, order(String(k)));
    history.recordFill(b, fill('1', '101'), undefined);
    history.recordFill(b, fill('2', '102'), {
      taker: true,
      positionSide: 'long',
      reduceOnly: false,
      realizedPnl: null,
      liquidation: false,
      liquidateFee: null,
    });
    history.recordFill(b, fill('1', '103'), undefined);
    expect(b.history).toHaveLength(50);
    expect(history.get('1')?.clientOid).toBe('c1');
    expect(history.fills(b).map((f) => f.fillId)).toEqual(['103', '102', '101']);
    expect(history.fills(b, '1').map((f) => f.fillId)).toEqual(['103', '101']);
    expect(history.fills(b, '9')).toEqual([]);
    expect([...b.fillDetails.keys()]).toEqual(['102']);
  });

  it('past twice the bound, drops the oldest final orders down to the bound (open ones stay) and fills beyond it', () => {
    const history = new OrderHistory(3);
    const b = book();
    history.remember(b, order('1', { status: 'open' }));
    for (let k = 2; k <= 6; k++) {
      history.remember(b, order(String(k)));
      history.recordFill(b, fill(String(k), String(100 + k)), {
        taker: false,
        positionSide: 'long',
        reduceOnly: false,
        realizedPnl: null,
        liquidation: false,
        liquidateFee: null,
      });
    }
    expect(b.history.map((o) => o.orderId)).toEqual(['1', '2', '3', '4', '5', '6']);
    history.remember(b, order('7'));
    expect(b.history.map((o) => o.orderId)).toEqual(['1', '6', '7']);
    expect(history.get('2')).toBeUndefined();
    expect(history.get('1')?.status).toBe('open');
    expect(history.fills(b).map((f) => f.fillId)).toEqual(['106', '105', '104']);
    expect([...b.fillDetails.keys()]).toEqual(['104', '105', '106']);
    expect([...b.fillsByOrder.keys()]).toEqual(['4', '5', '6']);
  });

  it('finds the newest kept order carrying a client id', () => {
    const history = new OrderHistory(Number.POSITIVE_INFINITY);
    const b = book();
    history.remember(b, order('10', { clientOid: 'same' }));
    history.remember(b, order('30', { clientOid: 'same' }));
    history.remember(b, order('20', { clientOid: 'same' }));
    expect(history.newestWithClientOid([b], 'same')?.orderId).toBe('30');
    expect(history.newestWithClientOid([b], 'none')).toBeUndefined();
  });
});

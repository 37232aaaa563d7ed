// The venue's checks on a new simulator order: each refusal with the code and message the venue uses.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import type { OrderRequest } from '../../../../src/exchange/client.js';
import { createBook, type Book } from '../../../../src/exchange/sim/book.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../../../src/exchange/sim/market.js';
import { validateOrder, validateTrigger } from '../../../../src/exchange/sim/order-validation.js';

const d = (s: string) => Decimal.from(s);

function bookOf(symbol: string, lastTicks: number): Book {
  const source = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 1, startMs: 0, tickIntervalMs: 100 });
  const market = source.symbols.find((m) => m.spec.symbol === symbol)!;
  market.last = lastTicks;
  return createBook(market);
}

const limit = (fields: Partial<OrderRequest>): OrderRequest => ({
  clientOid: 'ok_1',
  side: 'buy',
  kind: 'limit',
  timeInForce: 'gtc',
  size: d('0.001'),
  price: d('1000'),
  ...fields,
});

describe('order validation', () => {
  // BTCUSDT_SPBL: tick 0.1, step 0.000001, min 0.00001, max 100, band 5 %; last 1000.0.
  const spot = bookOf('BTCUSDT_SPBL', 10_000);
  // cmt_ethusdt: tick 0.01, step 0.001, min 0.001, max 10000, band 5 %; last 1000.00.
  const futures = bookOf('cmt_ethusdt', 100_000);

  it('passes a good order with its price in ticks and size in steps; a market order has no price', () => {
    expect(validateOrder(spot, limit({ price: d('1000.3'), size: d('0.0025') }))).toEqual({ ticks: 10_003, steps: 2500 });
    expect(validateOrder(spot, limit({ kind: 'market', price: d('1.23456') }))).toEqual({ ticks: null, steps: 1000 });
  });

  it("refuses each bad field with the surface's code", () => {
    expect(validateOrder(spot, limit({ clientOid: 'has space' }))).toEqual({ code: '40409', message: 'Incorrect format: clientOid' });
    expect(validateOrder(futures, limit({ clientOid: 'x'.repeat(41) }))).toEqual({ code: '40020', message: 'Parameter clientOid is invalid' });
    expect(validateOrder(spot, limit({ size: d('0.0000015') }))).toEqual({ code: '40409', message: 'Incorrect format: size' });
    expect(validateOrder(spot, limit({ size: d('0.000001') }))).toEqual({ code: '43006', message: 'Amount is less than the minimum order amount' });
    expect(validateOrder(spot, limit({ size: d('101') }))).toEqual({ code: '43007', message: 'Amount exceeds maximum order amount' });
    expect(validateOrder(futures, limit({ size: d('0') }))).toEqual({ code: '40020', message: 'Parameter size is invalid' });
    expect(validateOrder(spot, limit({ price: d('1000.05') }))).toEqual({ code: '40409', message: 'Incorrect format: price' });
  });

  it('holds limit prices inside the band around the last price', () => {
    expect(validateOrder(spot, limit({ side: 'buy', price: d('1050') }))).toEqual({ ticks: 10_500, steps: 1000 });
    expect(validateOrder(spot, limit({ side: 'buy', price: d('1050.1') }))).toEqual({ code: '43009', message: 'The current order price exceeds the limit' });
    expect(validateOrder(futures, limit({ side: 'sell', price: d('949.99') }))).toEqual({
      code: '40020',
      message: 'Parameter price: outside the allowed range is invalid',
    });
  });

  it("checks a trigger order's execution price against its trigger price, and leaves the market as it was", () => {
    const req = limit({ price: d('1200'), positionSide: 'long', reduceOnly: false });
    expect(validateOrder(futures, req)).toMatchObject({ code: '40020' });
    expect(validateTrigger(futures, req, d('1190'))).toEqual({ ticks: 120_000, steps: 1, trigger: 119_000 });
    expect(futures.m.last).toBe(100_000);
    expect(validateTrigger(futures, req, d('1190.005'))).toEqual({ code: '40020', message: 'Parameter trigger_price is invalid' });
  });
});

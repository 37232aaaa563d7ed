// A symbol's book in the simulator: the trade tape (a ring of the newest 1000 trades), the quick-reject bounds
// over live orders, and the checks placement asks of it.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import { createBook, crossesMarket, hasLiveClientOid, recordTrade, reindex, tapeTrades, tickerOf, type Book } from '../../../../src/exchange/sim/book.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { SyntheticMarket, type SymbolMarket } from '../../../../src/exchange/sim/market.js';
import type { SimOrder } from '../../../../src/exchange/sim/sim-order.js';

function btcSpot(): { market: SymbolMarket; book: Book } {
  const source = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 3, startMs: 1_000, tickIntervalMs: 100 });
  const market = source.symbols.find((m) => m.spec.symbol === 'BTCUSDT_SPBL')!;
  return { market, book: createBook(market) };
}

function order(fields: Partial<SimOrder>): SimOrder {
  return {
    orderId: '1',
    clientOid: 'a',
    surface: 'spot',
    symbol: 'BTCUSDT_SPBL',
    side: 'buy',
    positionSide: null,
    reduceOnly: false,
    kind: 'limit',
    tif: 'gtc',
    priceTicks: 100,
    sizeSteps: 1,
    filledSteps: 0,
    filledValue: Decimal.ZERO,
    fee: Decimal.ZERO,
    status: 'open',
    createdAtMs: 0,
    updatedAtMs: 0,
    reserved: Decimal.ZERO,
    triggerTicks: null,
    triggerUp: false,
    isTrigger: false,
    firedAtMs: null,
    ...fields,
  };
}

describe('book', () => {
  it("starts the tape with the market's opening tick and names trades by symbol and tick sequence, newest first", () => {
    const { market, book } = btcSpot();
    expect(book.tradeCount).toBe(1);
    market.ticks = 2;
    market.ts = 2_000;
    market.last = 900_010;
    market.tradeSize = 30;
    market.buyerMaker = true;
    recordTrade(book, market);
    const trades = tapeTrades(book, 10);
    expect(trades.map((t) => t.tradeId)).toEqual(['BTCUSDT_SPBL-2', 'BTCUSDT_SPBL-1']);
    expect(trades[0]).toMatchObject({ ts: 2_000, buyerMaker: true });
    expect(trades[0]!.price.toString()).toBe('90001');
    expect(trades[0]!.size.toString()).toBe('0.00003');
  });

  it('keeps the newest 1000 trades once the ring wraps', () => {
    const { market, book } = btcSpot();
    for (let k = 0; k < 1500; k++) {
      market.ticks++;
      market.last = 800_000 + k;
      recordTrade(book, market);
    }
    const trades = tapeTrades(book, 5000);
    expect(trades).toHaveLength(1000);
    expect(trades[0]!.price.toString()).toBe(Decimal.ofSteps(800_000 + 1499, book.inst.tickSize).toString());
    expect(trades[999]!.price.toString()).toBe(Decimal.ofSteps(800_000 + 500, book.inst.tickSize).toString());
  });

  it('bounds live orders for the quick reject: highest buy, lowest sell, nearest triggers each way', () => {
    const { book } = btcSpot();
    book.open.push(
      order({ side: 'buy', priceTicks: 100 }),
      order({ side: 'buy', priceTicks: 120 }),
      order({ side: 'sell', priceTicks: 150 }),
      order({ side: 'sell', priceTicks: 140 }),
    );
    book.open.push(
      order({ status: 'untriggered', isTrigger: true, triggerTicks: 200, triggerUp: true }),
      order({ status: 'untriggered', isTrigger: true, triggerTicks: 180, triggerUp: true }),
    );
    book.open.push(order({ status: 'untriggered', isTrigger: true, triggerTicks: 50, triggerUp: false }), order({ side: 'buy', priceTicks: null }));
    reindex(book);
    expect([book.maxBuyTicks, book.minSellTicks, book.minTriggerUpTicks, book.maxTriggerDownTicks]).toEqual([120, 140, 180, 50]);
    book.open.length = 0;
    reindex(book);
    expect([book.maxBuyTicks, book.minSellTicks, book.minTriggerUpTicks, book.maxTriggerDownTicks]).toEqual([-Infinity, Infinity, Infinity, -Infinity]);
  });

  it('tells whether an order takes liquidity now, and whether a client id is live', () => {
    const { market, book } = btcSpot();
    market.bid = 1000;
    market.ask = 1001;
    expect(crossesMarket(book, order({ side: 'buy', priceTicks: 1001 }))).toBe(true);
    expect(crossesMarket(book, order({ side: 'buy', priceTicks: 1000 }))).toBe(false);
    expect(crossesMarket(book, order({ side: 'sell', priceTicks: 1000 }))).toBe(true);
    expect(crossesMarket(book, order({ side: 'sell', priceTicks: 1001 }))).toBe(false);
    expect(crossesMarket(book, order({ priceTicks: null }))).toBe(true);
    book.open.push(order({ clientOid: 'live' }));
    expect([hasLiveClientOid(book, 'live'), hasLiveClientOid(book, 'other')]).toEqual([true, false]);
  });

  it("reads a ticker of the market and the day's statistics; trade-only keeps the last trade alone", () => {
    const { market, book } = btcSpot();
    const full = tickerOf(book, 'full');
    expect(full.last!.eq(Decimal.ofSteps(market.last, book.inst.tickSize))).toBe(true);
    expect(full.bestBid!.eq(Decimal.ofSteps(market.bid, book.inst.tickSize))).toBe(true);
    const tradeOnly = tickerOf(book, 'trade');
    expect(tradeOnly.last!.eq(full.last!)).toBe(true);
    expect([tradeOnly.bestBid, tradeOnly.bestAsk, tradeOnly.volume24h]).toEqual([null, null, null]);
  });
});

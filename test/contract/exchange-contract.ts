// How an exchange behaves, as one suite: run against the in-process simulator and against the live client
// talking HTTP to `sextant sim`. A difference between the faces is a bug in one of them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TIMEFRAME_MS, type VenueCandle } from '../../src/domain/candles.js';
import { Decimal } from '../../src/domain/decimal.js';
import type { Instrument, Ticker } from '../../src/domain/market.js';
import type { ExchangeClient, ItemResult, OrderRequest } from '../../src/exchange/client.js';

export interface Face {
  client: ExchangeClient;
  /** Lets market time pass (virtual or real). */
  advance(ms: number): Promise<void>;
  /** Jumps a symbol's price by `ticks` (scripted market move). */
  shift(symbol: string, ticks: number): Promise<void>;
  close(): Promise<void>;
}

const SPOT = 'BTCUSDT_SPBL';
const FUT = 'cmt_ethusdt';
const d = (s: string) => Decimal.from(s);
const HOUR_MS = 3_600_000;
const CYCLE_MS = 480 * 60_000;

/** Each candle's high and low hold its open and close; volumes are not negative. */
function wellFormed(rows: VenueCandle[]): void {
  for (const c of rows) {
    expect(c.low.lte(c.open) && c.low.lte(c.close) && c.high.gte(c.open) && c.high.gte(c.close)).toBe(true);
    expect(c.baseVolume.isNegative() || c.quoteVolume.isNegative()).toBe(false);
  }
}

/** Open times, one period apart, oldest first. */
function consecutive(rows: VenueCandle[], periodMs: number): void {
  for (let i = 1; i < rows.length; i++) expect(rows[i]!.openMs - rows[i - 1]!.openMs).toBe(periodMs);
}

/** The minutes of a period folded into one candle (open of the first, close of the last, extremes, sums). */
function folded(minutes: VenueCandle[]): string[] {
  const high = minutes.reduce((a, c) => (c.high.gt(a) ? c.high : a), minutes[0]!.high);
  const low = minutes.reduce((a, c) => (c.low.lt(a) ? c.low : a), minutes[0]!.low);
  const base = minutes.reduce((a, c) => a.add(c.baseVolume), Decimal.ZERO);
  const quote = minutes.reduce((a, c) => a.add(c.quoteVolume), Decimal.ZERO);
  return [minutes[0]!.open, high, low, minutes.at(-1)!.close, base, quote].map(String);
}

let seq = 0;
const oid = (tag: string) => `ct_${tag}_${++seq}`;

function accepted(r: ItemResult): string {
  if (r.outcome !== 'accepted') throw new Error(`expected accepted, got ${r.outcome}: ${'error' in r ? r.error.message : ''}`);
  return r.orderId;
}

export function describeExchangeContract(name: string, make: () => Promise<Face>): void {
  describe(`exchange contract: ${name}`, () => {
    let face: Face;
    let c: ExchangeClient;
    let spotInst: Instrument;
    let futInst: Instrument;

    beforeAll(async () => {
      face = await make();
      c = face.client;
      spotInst = (await c.instruments('spot')).find((i) => i.symbol === SPOT)!;
      futInst = (await c.instruments('futures')).find((i) => i.symbol === FUT)!;
    });
    afterAll(async () => face.close());

    async function lastSpot(): Promise<Decimal> {
      return (await c.recentTrades(SPOT, 1))[0]!.price;
    }
    async function futTicker(): Promise<Ticker> {
      return (await c.tickers()).find((t) => t.symbol === FUT)!;
    }
    function limit(side: 'buy' | 'sell', price: Decimal, size: string, extra: Partial<OrderRequest> = {}): OrderRequest {
      return { clientOid: oid(side), side, kind: 'limit', timeInForce: 'gtc', price, size: d(size), ...extra };
    }
    const below = (p: Decimal, pct: number, inst: Instrument) => p.mul(d(String(1 - pct / 100))).roundToStep(inst.tickSize, 'down');
    const above = (p: Decimal, pct: number, inst: Instrument) => p.mul(d(String(1 + pct / 100))).roundToStep(inst.tickSize, 'up');
    async function spotBal(asset: string) {
      return (await c.balances('spot')).find((b) => b.asset === asset)!;
    }

    it('lists instruments with exact steps', async () => {
      expect(spotInst).toMatchObject({ surface: 'spot', base: 'BTC', quote: 'USDT' });
      expect(spotInst.tickSize.toString()).toBe('0.1');
      expect(spotInst.stepSize.toString()).toBe('0.000001');
      expect(futInst.tickSize.toString()).toBe('0.01');
      expect(futInst.stepSize.toString()).toBe('0.001');
      const sol = (await c.instruments('futures')).find((i) => i.symbol === 'cmt_solusdt')!;
      expect(sol.tickSize.toString()).toBe('0.005');
    });

    it('tickers: bid below ask, prices on the tick', async () => {
      const t = await futTicker();
      expect(t.bestBid!.lt(t.bestAsk!)).toBe(true);
      expect(t.last!.isMultipleOf(futInst.tickSize)).toBe(true);
      expect(t.markPrice).not.toBeNull();
    });

    it('spot: a resting limit order freezes funds, is found by id and client id, and cancels', async () => {
      const usdt0 = await spotBal('USDT');
      const req = limit('buy', below(await lastSpot(), 3, spotInst), '0.01');
      const [r] = await c.placeOrders('spot', SPOT, [req]);
      const id = accepted(r!);
      const open = await c.openOrders('spot', SPOT);
      expect(open.map((o) => o.orderId)).toContain(id);
      const byId = await c.order('spot', SPOT, { orderId: id });
      const byOid = await c.order('spot', SPOT, { clientOid: req.clientOid });
      expect(byId).toMatchObject({ orderId: id, clientOid: req.clientOid, status: 'open', side: 'buy', kind: 'limit' });
      expect(byOid!.orderId).toBe(id);
      expect(byId!.price!.eq(req.price!)).toBe(true);
      const usdt1 = await spotBal('USDT');
      expect(usdt1.frozen!.sub(usdt0.frozen!).eq(req.price!.mul(d('0.01')).mul(d('1.001')))).toBe(true);
      expect(usdt1.total.eq(usdt0.total)).toBe(true);
      const [x] = await c.cancelOrders('spot', SPOT, { orderIds: [id] });
      expect(x).toMatchObject({ outcome: 'accepted', orderId: id });
      expect((await c.order('spot', SPOT, { orderId: id }))!.status).toBe('canceled');
      expect((await c.openOrders('spot', SPOT)).map((o) => o.orderId)).not.toContain(id);
      expect((await spotBal('USDT')).frozen!.eq(usdt0.frozen!)).toBe(true);
    });

    it('spot: a market buy fills at the ask, fills and balances agree exactly', async () => {
      const usdt0 = await spotBal('USDT');
      const btc0 = await spotBal('BTC');
      const [r] = await c.placeOrders('spot', SPOT, [{ clientOid: oid('mkt'), side: 'buy', kind: 'market', timeInForce: 'ioc', size: d('0.002') }]);
      const id = accepted(r!);
      const o = (await c.order('spot', SPOT, { orderId: id }))!;
      expect(o.status).toBe('filled');
      const fills = await c.fills('spot', SPOT, id);
      expect(fills.length).toBeGreaterThan(0);
      let size = Decimal.ZERO;
      let cost = Decimal.ZERO;
      for (const f of fills) {
        expect(f.price.mul(f.size).eq(f.amount)).toBe(true);
        expect(f.fee.eq(f.amount.mul(spotInst.takerFeeRate))).toBe(true);
        size = size.add(f.size);
        cost = cost.add(f.amount).add(f.fee);
      }
      expect(size.eq(d('0.002'))).toBe(true);
      expect((await spotBal('BTC')).total.sub(btc0.total).eq(size)).toBe(true);
      expect(usdt0.total.sub((await spotBal('USDT')).total).eq(cost)).toBe(true);
    });

    it('spot: a large crossing limit fills partly, rests, and its remainder cancels', async () => {
      const price = above(await lastSpot(), 0.5, spotInst);
      const [r] = await c.placeOrders('spot', SPOT, [limit('buy', price, '1')]);
      const id = accepted(r!);
      const o = (await c.order('spot', SPOT, { orderId: id }))!;
      // The taker part sweeps at most five levels of the book: never the whole 1 BTC.
      expect(o.status).toBe('open');
      expect(o.filledSize.gt(Decimal.ZERO) && o.filledSize.lt(d('1'))).toBe(true);
      const [x] = await c.cancelOrders('spot', SPOT, { clientOids: [o.clientOid!] });
      const after = (await c.order('spot', SPOT, { orderId: id }))!;
      // The rest keeps filling as the market moves: either the cancel won, or the order completed first.
      if (x!.outcome === 'accepted') expect(after.status).toBe('canceled');
      else expect(after.status).toBe('filled');
      expect(after.filledSize.gte(o.filledSize)).toBe(true);
      const fills = await c.fills('spot', SPOT, id);
      expect(fills.reduce((a, f) => a.add(f.size), Decimal.ZERO).eq(after.filledSize)).toBe(true);
    });

    it('spot: refusals carry the venue category', async () => {
      const last = await lastSpot();
      const cases: Array<[OrderRequest, string]> = [
        [limit('buy', last.sub(d('0.05')), '0.01'), 'bad-request'], // off the tick
        [limit('buy', below(last, 1, spotInst), '0.000001'), 'invalid-order'], // below the minimum size
        [limit('buy', below(last, 20, spotInst), '0.01'), 'invalid-order'], // outside the price band
        [limit('buy', above(last, 1, spotInst), '0.01', { timeInForce: 'post_only' }), 'invalid-order'], // post-only would take
        [limit('sell', above(last, 1, spotInst), '50'), 'insufficient-funds'], // more BTC than held
      ];
      for (const [req, category] of cases) {
        const [r] = await c.placeOrders('spot', SPOT, [req]);
        expect({ clientOid: req.clientOid, outcome: r!.outcome, category: 'error' in r! ? r.error.category : undefined }).toEqual({
          clientOid: req.clientOid,
          outcome: 'rejected',
          category,
        });
      }
    });

    it('spot: cancelling an unknown order is a per-item not-found', async () => {
      const [r] = await c.cancelOrders('spot', SPOT, { orderIds: ['700000000000999999'] });
      expect(r).toMatchObject({ outcome: 'rejected', orderId: '700000000000999999' });
      expect('error' in r! && r.error.category).toBe('not-found');
    });

    it('spot: cancel-all cancels every open order of the pair', async () => {
      const p = below(await lastSpot(), 3, spotInst);
      const res = await c.placeOrders('spot', SPOT, [limit('buy', p, '0.001'), limit('buy', p, '0.002')]);
      res.forEach(accepted);
      const out = await c.cancelAll('spot', SPOT);
      expect(out.filter((x) => x.outcome === 'accepted').length).toBeGreaterThanOrEqual(2);
      expect(await c.openOrders('spot', SPOT)).toEqual([]);
    });

    it('spot: a client id already used by an open order is refused', async () => {
      const p = below(await lastSpot(), 3, spotInst);
      const req = limit('buy', p, '0.001');
      accepted((await c.placeOrders('spot', SPOT, [req]))[0]!);
      const [dup] = await c.placeOrders('spot', SPOT, [{ ...req }]);
      expect(dup!.outcome).toBe('rejected');
      await c.cancelAll('spot', SPOT);
    });

    it('futures: open long at market, then closes: larger than the position refused, exact close accepted', async () => {
      const size = '0.5';
      const [r] = await c.placeOrders('futures', FUT, [
        { clientOid: oid('ol'), side: 'buy', kind: 'market', timeInForce: 'ioc', size: d(size), positionSide: 'long' },
      ]);
      accepted(r!);
      const [pos] = await c.positions(FUT);
      expect(pos).toMatchObject({ symbol: FUT, side: 'long' });
      expect(pos!.size.eq(d(size))).toBe(true);
      const t = await futTicker();
      expect(pos!.entryPrice!.gt(t.last!.mul(d('0.9')))).toBe(true);
      const tooBig = await c.placeOrders('futures', FUT, [
        { clientOid: oid('cl'), side: 'sell', kind: 'market', timeInForce: 'ioc', size: d('0.6'), positionSide: 'long', reduceOnly: true },
      ]);
      expect(tooBig[0]!.outcome).toBe('rejected');
      const collateral0 = (await c.balances('futures'))[0]!.total;
      accepted(
        (
          await c.placeOrders('futures', FUT, [
            { clientOid: oid('cl'), side: 'sell', kind: 'market', timeInForce: 'ioc', size: d(size), positionSide: 'long', reduceOnly: true },
          ])
        )[0]!,
      );
      expect(await c.positions(FUT)).toEqual([]);
      const collateral1 = (await c.balances('futures'))[0]!.total;
      // Realised PnL and the closing fee moved the collateral; a round trip of 0.5 ETH cannot move it by 5 %.
      expect(
        collateral1
          .sub(collateral0)
          .abs()
          .lt(collateral0.mul(d('0.05'))),
      ).toBe(true);
      expect(collateral1.eq(collateral0)).toBe(false);
    });

    it('futures: a filled and a canceled order are found in any state, by id and by client id, with their fills', async () => {
      const size = d('0.05');
      const mkt: OrderRequest = { clientOid: oid('fm'), side: 'buy', kind: 'market', timeInForce: 'ioc', size, positionSide: 'long' };
      const mid = accepted((await c.placeOrders('futures', FUT, [mkt]))[0]!);
      const lim = limit('buy', below((await futTicker()).last!, 3, futInst), '0.01', { positionSide: 'long' });
      const lid = accepted((await c.placeOrders('futures', FUT, [lim]))[0]!);
      expect((await c.cancelOrders('futures', FUT, { orderIds: [lid] }))[0]!.outcome).toBe('accepted');

      const fills = await c.fills('futures', FUT, mid);
      expect(fills.length).toBeGreaterThan(0);
      let filled = Decimal.ZERO;
      let value = Decimal.ZERO;
      let fee = Decimal.ZERO;
      for (const f of fills) {
        expect(f).toMatchObject({ symbol: FUT, orderId: mid, side: 'buy' });
        expect(f.price.mul(f.size).eq(f.amount)).toBe(true);
        expect(f.price.isMultipleOf(futInst.tickSize)).toBe(true);
        expect(f.fee.eq(f.amount.mul(futInst.takerFeeRate))).toBe(true);
        filled = filled.add(f.size);
        value = value.add(f.amount);
        fee = fee.add(f.fee);
      }
      expect(filled.eq(size)).toBe(true);
      for (const lookup of [{ orderId: mid }, { clientOid: mkt.clientOid }]) {
        const o = (await c.order('futures', FUT, lookup))!;
        expect(o).toMatchObject({
          orderId: mid,
          clientOid: mkt.clientOid,
          status: 'filled',
          kind: 'market',
          price: null,
          side: 'buy',
          positionSide: 'long',
          reduceOnly: false,
        });
        expect(o.filledSize.eq(size)).toBe(true);
        expect(o.avgFillPrice!.eq(value.div(size, 12))).toBe(true);
        expect(o.fee!.eq(fee)).toBe(true);
      }
      for (const lookup of [{ orderId: lid }, { clientOid: lim.clientOid }]) {
        const o = (await c.order('futures', FUT, lookup))!;
        expect(o).toMatchObject({ orderId: lid, clientOid: lim.clientOid, status: 'canceled', kind: 'limit', avgFillPrice: null });
        expect(o.price!.eq(lim.price!)).toBe(true);
        expect(o.filledSize.isZero()).toBe(true);
      }
      expect(await c.fills('futures', FUT, lid)).toEqual([]);
      expect(await c.order('futures', FUT, { orderId: '600000000000999999' })).toBeNull();
      expect(await c.order('futures', FUT, { clientOid: 'ct_never_sent' })).toBeNull();
      // Flat again for the tests after this one.
      accepted(
        (
          await c.placeOrders('futures', FUT, [
            { clientOid: oid('fc'), side: 'sell', kind: 'market', timeInForce: 'ioc', size, positionSide: 'long', reduceOnly: true },
          ])
        )[0]!,
      );
      expect(await c.positions(FUT)).toEqual([]);
    });

    it('futures: a batch answers per item, a bad item does not sink the others', async () => {
      const t = await futTicker();
      const good = limit('buy', below(t.last!, 3, futInst), '0.01', { positionSide: 'long' });
      const offTick = limit('buy', below(t.last!, 3, futInst).add(d('0.001')), '0.01', { positionSide: 'long' });
      const res = await c.placeOrders('futures', FUT, [good, offTick]);
      expect(res.map((x) => x.outcome)).toEqual(['accepted', 'rejected']);
      expect(res[1]!.clientOid).toBe(offTick.clientOid);
      const open = await c.openOrders('futures', FUT);
      expect(open.find((o) => o.clientOid === good.clientOid)).toMatchObject({
        status: 'open',
        side: 'buy',
        positionSide: 'long',
        reduceOnly: false,
        timeInForce: 'gtc',
      });
      expect((await c.order('futures', FUT, { clientOid: good.clientOid }))!.orderId).toBe(accepted(res[0]!));
    });

    it('futures: more than 20 orders in one batch are refused whole', async () => {
      const t = await futTicker();
      const many = Array.from({ length: 21 }, () => limit('buy', below(t.last!, 3, futInst), '0.01', { positionSide: 'long' }));
      const res = await c.placeOrders('futures', FUT, many);
      expect(res).toHaveLength(21);
      expect(new Set(res.map((x) => x.outcome))).toEqual(new Set(['rejected']));
    });

    it('futures: cancel-all cancels the open orders of the contract', async () => {
      const t = await futTicker();
      (
        await c.placeOrders(
          'futures',
          FUT,
          [1, 2, 3].map(() => limit('sell', above(t.last!, 3, futInst), '0.01', { positionSide: 'short' })),
        )
      ).forEach(accepted);
      const out = await c.cancelAll('futures', FUT);
      expect(out.filter((x) => x.outcome === 'accepted').length).toBeGreaterThanOrEqual(3);
      expect((await c.openOrders('futures', FUT)).filter((o) => o.status === 'open')).toEqual([]);
      const [again] = await c.cancelOrders('futures', FUT, { orderIds: [out[0]!.orderId!] });
      expect('error' in again! && again.error.category).toBe('not-found');
    });

    it('futures: a trigger order waits untriggered, and cancels before it fires', async () => {
      const t = await futTicker();
      const r = await c.placeTrigger({
        symbol: FUT,
        clientOid: oid('tr'),
        positionSide: 'long',
        reduceOnly: false,
        size: d('0.01'),
        triggerPrice: above(t.last!, 4, futInst),
        executePrice: above(t.last!, 4, futInst),
      });
      const id = accepted(r);
      expect((await c.openOrders('futures', FUT)).find((o) => o.orderId === id)).toMatchObject({ status: 'untriggered' });
      expect((await c.cancelTrigger(FUT, id)).outcome).toBe('accepted');
      const again = await c.cancelTrigger(FUT, id);
      expect(again.outcome).toBe('rejected');
      expect((await c.openOrders('futures', FUT)).find((o) => o.orderId === id)).toBeUndefined();
    });

    it('futures: a trigger fires when the price crosses it, then trades at market', async () => {
      const t = await futTicker();
      const trigger = above(t.last!, 1, futInst);
      const id = accepted(
        await c.placeTrigger({ symbol: FUT, clientOid: oid('tf'), positionSide: 'short', reduceOnly: false, size: d('0.02'), triggerPrice: trigger }),
      );
      const ticks = Number(t.last!.mul(d('0.02')).div(futInst.tickSize, 0).toUnits(0));
      await face.shift(FUT, ticks);
      await face.advance(200);
      expect((await c.openOrders('futures', FUT)).find((o) => o.orderId === id)).toBeUndefined();
      const short = (await c.positions(FUT)).find((p) => p.side === 'short');
      expect(short!.size.eq(d('0.02'))).toBe(true);
    });
    it('ticker of one symbol: spot (S11) last and day figures without bid or ask; futures (F12) index at the last trade, the mark on it (no basis by default)', async () => {
      const spot = await c.ticker(SPOT);
      expect([spot.symbol, spot.bestBid, spot.bestAsk, spot.markPrice, spot.indexPrice]).toEqual([SPOT, null, null, null, null]);
      expect(spot.last!.isMultipleOf(spotInst.tickSize)).toBe(true);
      expect(spot.high24h!.gte(spot.last!) && spot.low24h!.lte(spot.last!)).toBe(true);
      expect(spot.baseVolume24h!.gt(Decimal.ZERO) && spot.volume24h!.gt(Decimal.ZERO)).toBe(true);
      const fut = await c.ticker(FUT);
      expect(fut.bestBid!.lt(fut.bestAsk!)).toBe(true);
      expect(fut.indexPrice!.eq(fut.last!)).toBe(true);
      expect(fut.markPrice!.eq(fut.indexPrice!)).toBe(true);
      await expect(c.ticker('cmt_nothing')).rejects.toMatchObject({ category: 'bad-request' });
    });

    it('depth: 15 levels a side by default, 200 on request, one tick apart from the top of the book; other gears refused', async () => {
      for (const [symbol, inst] of [
        [SPOT, spotInst],
        [FUT, futInst],
      ] as const) {
        const book = await c.depth(symbol);
        expect([book.symbol, book.bids.length, book.asks.length]).toEqual([symbol, 15, 15]);
        expect(book.bids[0]!.price.lt(book.asks[0]!.price)).toBe(true);
        book.bids.forEach((l, k) => expect(book.bids[0]!.price.sub(l.price).eq(inst.tickSize.mul(Decimal.fromInt(k)))).toBe(true));
        book.asks.forEach((l, k) => expect(l.price.sub(book.asks[0]!.price).eq(inst.tickSize.mul(Decimal.fromInt(k)))).toBe(true));
        for (const l of [...book.bids, ...book.asks]) expect(l.size.gt(Decimal.ZERO) && l.size.isMultipleOf(inst.stepSize)).toBe(true);
      }
      const deep = await c.depth(FUT, 200);
      expect([deep.bids.length, deep.asks.length]).toEqual([200, 200]);
      await expect(c.depth(FUT, 20 as 15)).rejects.toMatchObject({ category: 'bad-request', endpoint: 'F13' });
    });

    it('candles: the latest of a timeframe, oldest first, one per period; spot serves 300 by default; futures has no 2h', async () => {
      const minutes = await c.candles(FUT, '1m', { limit: 30 });
      expect(minutes).toHaveLength(30);
      consecutive(minutes, 60_000);
      wellFormed(minutes);
      for (const m of minutes) expect(m.open.isMultipleOf(futInst.tickSize) && m.close.isMultipleOf(futInst.tickSize)).toBe(true);
      const now = (await c.ticker(FUT)).timestampMs;
      expect(minutes.at(-1)!.openMs).toBeLessThanOrEqual(now);
      expect(minutes.at(-1)!.openMs).toBeGreaterThan(now - 2 * 60_000);
      const spot = await c.candles(SPOT, '2h', { limit: 5 });
      expect(spot).toHaveLength(5);
      consecutive(spot, 2 * HOUR_MS);
      expect(await c.candles(SPOT, '1m')).toHaveLength(300);
      await expect(c.candles(FUT, '2h')).rejects.toMatchObject({ category: 'bad-request', endpoint: 'F10' });
      await expect(c.candles(SPOT, '1m', { priceType: 'mark' })).rejects.toMatchObject({ category: 'bad-request', endpoint: 'S10' });
    });

    it('history candles: a window of at most 100 rows, 90 days back and more, the same on every read; hours agree with their minutes', async () => {
      const [hour] = await c.candles(FUT, '1h', { limit: 3 });
      const minutes = await c.historyCandles(FUT, '1m', { startMs: hour!.openMs, endMs: hour!.openMs + HOUR_MS - 1 });
      expect(minutes).toHaveLength(60);
      consecutive(minutes, 60_000);
      expect(folded(minutes)).toEqual([hour!.open, hour!.high, hour!.low, hour!.close, hour!.baseVolume, hour!.quoteVolume].map(String));
      const now = (await c.ticker(FUT)).timestampMs;
      const from = Math.floor((now - 90 * 24 * HOUR_MS) / 60_000) * 60_000;
      const window = { startMs: from, endMs: from + 150 * 60_000 };
      const old = await c.historyCandles(FUT, '1m', window);
      expect(old).toHaveLength(100);
      expect(old.at(-1)!.openMs).toBe(window.endMs);
      consecutive(old, 60_000);
      wellFormed(old);
      expect(await c.historyCandles(FUT, '1m', window)).toEqual(old);
      const days = await c.historyCandles(FUT, '1d', { startMs: from, endMs: from + 10 * 24 * HOUR_MS, limit: 5 });
      expect(days).toHaveLength(5);
      consecutive(days, TIMEFRAME_MS['1d']);
      await expect(c.historyCandles(FUT, '1m', { ...window, limit: 101 })).rejects.toMatchObject({ category: 'bad-request', endpoint: 'F11' });
      await expect(c.historyCandles(SPOT, '1m', window)).rejects.toMatchObject({
        category: 'bad-request',
        message: expect.stringContaining('spot has no history candles in v2'),
      });
    });

    it("funding: every contract's current rate on a 480-minute cycle, the next settlement within a cycle, settled rates newest first", async () => {
      const rates = await c.fundingRates();
      expect(rates.map((r) => r.symbol).sort()).toEqual((await c.instruments('futures')).map((i) => i.symbol).sort());
      for (const r of rates) {
        expect(r.cycleMinutes).toBe(480);
        expect(r.rate.abs().lt(d('0.001'))).toBe(true);
      }
      expect((await c.fundingRates(FUT)).map((r) => r.symbol)).toEqual([FUT]);
      const now = (await c.ticker(FUT)).timestampMs;
      const next = await c.nextFundingTime(FUT);
      expect(next % CYCLE_MS).toBe(0);
      expect(next).toBeGreaterThan(now - 5_000);
      expect(next).toBeLessThanOrEqual(now + CYCLE_MS);
      const settled = await c.fundingHistory(FUT, 5);
      expect(settled.map((s) => next - s.fundingTimeMs)).toEqual([1, 2, 3, 4, 5].map((k) => k * CYCLE_MS));
      expect(settled.every((s) => s.symbol === FUT && s.rate.abs().lt(d('0.001')))).toBe(true);
      expect(await c.fundingHistory(FUT)).toHaveLength(10);
    });

    it('index and mark prices (F17): both on the tick, close to each other', async () => {
      const mark = await c.priceIndex(FUT, 'mark');
      const index = await c.priceIndex(FUT, 'index');
      expect([mark.symbol, mark.kind, index.kind]).toEqual([FUT, 'mark', 'index']);
      expect(mark.price.isMultipleOf(futInst.tickSize)).toBe(true);
      expect(index.price.isMultipleOf(futInst.tickSize)).toBe(true);
      expect(
        mark.price
          .sub(index.price)
          .abs()
          .lt(mark.price.mul(d('0.01'))),
      ).toBe(true);
    });

    it('trigger orders: F21 lists the untriggered ones with their trigger price; F22 the final ones, newest first, fired ones with their time', async () => {
      const t = await futTicker();
      const up = above(t.last!, 4, futInst);
      const down = below(t.last!, 4, futInst);
      const limitReq = {
        symbol: FUT,
        clientOid: oid('tl'),
        positionSide: 'long' as const,
        reduceOnly: false,
        size: d('0.01'),
        triggerPrice: up,
        executePrice: up,
      };
      const lid = accepted(await c.placeTrigger(limitReq));
      const mid = accepted(
        await c.placeTrigger({ symbol: FUT, clientOid: oid('tm'), positionSide: 'short', reduceOnly: false, size: d('0.01'), triggerPrice: down }),
      );
      expect(BigInt(lid) > 2n ** 53n).toBe(true);
      const listed = await c.triggerOrders(FUT);
      const l = listed.find((o) => o.orderId === lid)!;
      expect(l).toMatchObject({
        symbol: FUT,
        clientOid: limitReq.clientOid,
        status: 'untriggered',
        rawStatus: '0',
        rawType: '1',
        side: 'buy',
        positionSide: 'long',
        reduceOnly: false,
        kind: 'limit',
        timeInForce: 'gtc',
        triggeredAtMs: null,
      });
      expect([l.triggerPrice!.eq(up), l.price!.eq(up), l.size.eq(d('0.01')), l.filledSize.isZero()]).toEqual([true, true, true, true]);
      expect(listed.find((o) => o.orderId === mid)).toMatchObject({
        status: 'untriggered',
        rawType: '2',
        side: 'sell',
        kind: 'market',
        price: null,
        timeInForce: 'ioc',
      });
      expect((await c.triggerOrders()).map((o) => o.orderId)).toEqual(expect.arrayContaining([lid, mid]));
      // Resting orders are not trigger orders.
      expect(listed.every((o) => o.triggerPrice !== null)).toBe(true);

      expect((await c.cancelTrigger(FUT, lid)).outcome).toBe('accepted');
      const fired = accepted(
        await c.placeTrigger({
          symbol: FUT,
          clientOid: oid('tf'),
          positionSide: 'short',
          reduceOnly: false,
          size: d('0.01'),
          triggerPrice: above(t.last!, 1, futInst),
        }),
      );
      await face.shift(FUT, Number(t.last!.mul(d('0.02')).div(futInst.tickSize, 0).toUnits(0)));
      await face.advance(200);
      expect((await c.triggerOrders(FUT)).map((o) => o.orderId)).toEqual([mid]);

      const history = await c.triggerOrderHistory(FUT);
      expect(history.slice(0, 2).map((o) => [o.orderId, o.status, o.rawStatus])).toEqual([
        [fired, 'filled', '2'],
        [lid, 'canceled', '-1'],
      ]);
      expect(history[0]!.triggeredAtMs).toBeGreaterThanOrEqual(history[0]!.createdAtMs!);
      expect(history[0]!.filledSize.eq(d('0.01'))).toBe(true);
      expect(history[1]!.triggeredAtMs).toBeNull();
      expect((await c.triggerOrderHistory(FUT, { limit: 1 })).map((o) => o.orderId)).toEqual([fired]);
      expect(await c.triggerOrderHistory(FUT, { startMs: history[0]!.createdAtMs! + 60_000 })).toEqual([]);
      expect((await c.cancelTrigger(FUT, mid)).outcome).toBe('accepted');
      expect(await c.triggerOrders(FUT)).toEqual([]);
    });
  });
}

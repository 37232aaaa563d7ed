// How an exchange behaves, as one suite: run against the in-process simulator and against the live client
// talking HTTP to `sextant sim`. A difference between the faces is a bug in one of them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
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
        expect({ clientOid: req.clientOid, outcome: r!.outcome, category: 'error' in r! ? r.error.category : undefined }).toEqual({ clientOid: req.clientOid, outcome: 'rejected', category });
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
      const [r] = await c.placeOrders('futures', FUT, [{ clientOid: oid('ol'), side: 'buy', kind: 'market', timeInForce: 'ioc', size: d(size), positionSide: 'long' }]);
      accepted(r!);
      const [pos] = await c.positions(FUT);
      expect(pos).toMatchObject({ symbol: FUT, side: 'long' });
      expect(pos!.size.eq(d(size))).toBe(true);
      const t = await futTicker();
      expect(pos!.entryPrice!.gt(t.last!.mul(d('0.9')))).toBe(true);
      const tooBig = await c.placeOrders('futures', FUT, [{ clientOid: oid('cl'), side: 'sell', kind: 'market', timeInForce: 'ioc', size: d('0.6'), positionSide: 'long', reduceOnly: true }]);
      expect(tooBig[0]!.outcome).toBe('rejected');
      const collateral0 = (await c.balances('futures'))[0]!.total;
      accepted((await c.placeOrders('futures', FUT, [{ clientOid: oid('cl'), side: 'sell', kind: 'market', timeInForce: 'ioc', size: d(size), positionSide: 'long', reduceOnly: true }]))[0]!);
      expect(await c.positions(FUT)).toEqual([]);
      const collateral1 = (await c.balances('futures'))[0]!.total;
      // Realised PnL and the closing fee moved the collateral; a round trip of 0.5 ETH cannot move it by 5 %.
      expect(collateral1.sub(collateral0).abs().lt(collateral0.mul(d('0.05')))).toBe(true);
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
        expect(o).toMatchObject({ orderId: mid, clientOid: mkt.clientOid, status: 'filled', kind: 'market', price: null, side: 'buy', positionSide: 'long', reduceOnly: false });
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
      accepted((await c.placeOrders('futures', FUT, [{ clientOid: oid('fc'), side: 'sell', kind: 'market', timeInForce: 'ioc', size, positionSide: 'long', reduceOnly: true }]))[0]!);
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
      expect(open.find((o) => o.clientOid === good.clientOid)).toMatchObject({ status: 'open', side: 'buy', positionSide: 'long', reduceOnly: false, timeInForce: 'gtc' });
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
      (await c.placeOrders('futures', FUT, [1, 2, 3].map(() => limit('sell', above(t.last!, 3, futInst), '0.01', { positionSide: 'short' })))).forEach(accepted);
      const out = await c.cancelAll('futures', FUT);
      expect(out.filter((x) => x.outcome === 'accepted').length).toBeGreaterThanOrEqual(3);
      expect((await c.openOrders('futures', FUT)).filter((o) => o.status === 'open')).toEqual([]);
      const [again] = await c.cancelOrders('futures', FUT, { orderIds: [out[0]!.orderId!] });
      expect('error' in again! && again.error.category).toBe('not-found');
    });

    it('futures: a trigger order waits untriggered, and cancels before it fires', async () => {
      const t = await futTicker();
      const r = await c.placeTrigger({ symbol: FUT, clientOid: oid('tr'), positionSide: 'long', reduceOnly: false, size: d('0.01'), triggerPrice: above(t.last!, 4, futInst), executePrice: above(t.last!, 4, futInst) });
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
      const id = accepted(await c.placeTrigger({ symbol: FUT, clientOid: oid('tf'), positionSide: 'short', reduceOnly: false, size: d('0.02'), triggerPrice: trigger }));
      const ticks = Number(t.last!.mul(d('0.02')).div(futInst.tickSize, 0).toUnits(0));
      await face.shift(FUT, ticks);
      await face.advance(200);
      expect((await c.openOrders('futures', FUT)).find((o) => o.orderId === id)).toBeUndefined();
      const short = (await c.positions(FUT)).find((p) => p.side === 'short');
      expect(short!.size.eq(d('0.02'))).toBe(true);
    });
  });
}

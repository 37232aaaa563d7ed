// How an exchange behaves for positions and the ledger (F23–F30), as one suite run against both simulator faces:
// take-profit / stop-loss placed, moved and canceled; one order placed and canceled; every order of a kind canceled;
// positions closed at market; every position with its margin, PnL and liquidation price; the ledger summing to the
// change of collateral. A difference between the faces is a bug in one of them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import type { Instrument, Position } from '../../src/domain/market.js';
import type { ExchangeClient, ItemResult, OrderRequest } from '../../src/exchange/client.js';
import type { Face } from './exchange-contract.js';

const FUT = 'cmt_ethusdt';
const d = (s: string) => Decimal.from(s);

let seq = 0;
const oid = (tag: string) => `cx_${tag}_${++seq}`;

function accepted(r: ItemResult): string {
  if (r.outcome !== 'accepted') throw new Error(`expected accepted, got ${r.outcome}: ${'error' in r ? r.error.message : ''}`);
  return r.orderId;
}

export function describeFuturesActionsContract(name: string, make: () => Promise<Face>): void {
  describe(`futures actions contract: ${name}`, () => {
    let face: Face;
    let c: ExchangeClient;
    let inst: Instrument;
    let collateral0: Decimal;

    beforeAll(async () => {
      face = await make();
      c = face.client;
      inst = (await c.instruments('futures')).find((i) => i.symbol === FUT)!;
      collateral0 = (await c.balances('futures'))[0]!.total;
    });
    afterAll(async () => face.close());

    const last = async () => (await c.ticker(FUT)).last!;
    const off = (p: Decimal, pct: number) => p.mul(d(String(1 + pct / 100))).roundToStep(inst.tickSize, pct < 0 ? 'down' : 'up');
    const market = (side: 'buy' | 'sell', size: string, positionSide: 'long' | 'short', reduceOnly = false): OrderRequest => ({
      clientOid: oid('m'),
      side,
      kind: 'market',
      timeInForce: 'ioc',
      size: d(size),
      positionSide,
      reduceOnly,
    });
    const long = async (): Promise<Position | undefined> => (await c.allPositions()).find((p) => p.symbol === FUT && p.side === 'long');

    it('F25 places one order; F29 lists the position with its id, margin, PnL and liquidation price, as F4 does', async () => {
      const id = accepted(await c.placeOrder(FUT, market('buy', '0.5', 'long')));
      expect(BigInt(id) > 2n ** 53n).toBe(true);
      expect(await c.order('futures', FUT, { orderId: id })).toMatchObject({ status: 'filled', side: 'buy', positionSide: 'long', reduceOnly: false });
      const p = (await long())!;
      expect(p.size.eq(d('0.5'))).toBe(true);
      expect(p.positionId).toMatch(/^\d+$/);
      expect(p.margin!.gt(Decimal.ZERO) && p.margin!.lte(p.openValue)).toBe(true);
      expect(p.unrealizedPnl).toBeInstanceOf(Decimal);
      expect(p.cumFundingFee).toBeInstanceOf(Decimal);
      // A small long on ample collateral is at low risk: no liquidation price, or one far under the market.
      if (p.liquidationPrice) expect(p.liquidationPrice.lt((await last()).mul(d('0.5')))).toBe(true);
      const [single] = await c.positions(FUT);
      expect([single!.positionId, String(single!.size), String(single!.margin), String(single!.openValue)]).toEqual([
        p.positionId,
        String(p.size),
        String(p.margin),
        String(p.openValue),
      ]);
    });

    it('F23 places a take-profit and a stop-loss on the long; F21 lists them as close-long trigger orders; F24 moves one in place', async () => {
      const price = await last();
      const tp = accepted(
        await c.placeTpSl({ symbol: FUT, clientOid: oid('tp'), role: 'take-profit', positionSide: 'long', size: d('0.5'), triggerPrice: off(price, 5) }),
      );
      const sl = accepted(
        await c.placeTpSl({
          symbol: FUT,
          clientOid: oid('sl'),
          role: 'stop-loss',
          positionSide: 'long',
          size: d('0.5'),
          triggerPrice: off(price, -5),
          executePrice: off(price, -6),
        }),
      );
      const listed = await c.triggerOrders(FUT);
      expect(listed.find((o) => o.orderId === tp)).toMatchObject({
        status: 'untriggered',
        rawType: '3',
        side: 'sell',
        positionSide: 'long',
        reduceOnly: true,
        kind: 'market',
      });
      expect(listed.find((o) => o.orderId === sl)).toMatchObject({ status: 'untriggered', rawType: '3', kind: 'limit' });
      expect(listed.find((o) => o.orderId === tp)!.triggerPrice!.eq(off(price, 5))).toBe(true);

      expect(await c.modifyTpSl({ symbol: FUT, orderId: tp, triggerPrice: off(price, 8), triggerPriceType: 'mark' })).toMatchObject({
        outcome: 'accepted',
        orderId: tp,
      });
      const moved = (await c.triggerOrders(FUT)).find((o) => o.orderId === tp)!;
      expect([moved.status, moved.triggerPrice!.eq(off(price, 8))]).toEqual(['untriggered', true]);
      const unknown = await c.modifyTpSl({ symbol: FUT, orderId: '600000000000999999', triggerPrice: off(price, 8) });
      expect(unknown).toMatchObject({ outcome: 'rejected', error: { category: 'not-found' } });
    });

    it('F23 refuses a take-profit of a side with no position', async () => {
      const r = await c.placeTpSl({
        symbol: FUT,
        clientOid: oid('tpx'),
        role: 'take-profit',
        positionSide: 'short',
        size: d('0.1'),
        triggerPrice: off(await last(), -5),
      });
      expect(r.outcome).toBe('rejected');
    });

    it('F28 plan cancels every trigger order of the contract (TP/SL included); normal cancels the resting orders only', async () => {
      const price = await last();
      const rest = [1, 2].map(() => ({
        clientOid: oid('r'),
        side: 'buy' as const,
        kind: 'limit' as const,
        timeInForce: 'gtc' as const,
        price: off(price, -3),
        size: d('0.01'),
        positionSide: 'long' as const,
      }));
      const ids = await Promise.all(rest.map(async (o) => accepted(await c.placeOrder(FUT, o))));
      const plan = await c.cancelAllFutures('plan', FUT);
      expect(plan.length).toBe(2);
      expect(plan.every((r) => r.outcome === 'accepted')).toBe(true);
      expect(await c.triggerOrders(FUT)).toEqual([]);
      expect((await c.openOrders('futures', FUT)).map((o) => o.orderId).sort()).toEqual([...ids].sort());
      const normal = await c.cancelAllFutures('normal', FUT);
      expect(normal.map((r) => [r.outcome, r.orderId]).sort()).toEqual(ids.map((id) => ['accepted', id]).sort());
      expect(await c.openOrders('futures', FUT)).toEqual([]);
    });

    it('F26 cancels one order by client id or by id, without its symbol; a second cancel is not-found', async () => {
      const req = {
        clientOid: oid('c'),
        side: 'sell' as const,
        kind: 'limit' as const,
        timeInForce: 'gtc' as const,
        price: off(await last(), 3),
        size: d('0.01'),
        positionSide: 'short' as const,
      };
      const id = accepted(await c.placeOrder(FUT, req));
      expect(await c.cancelOrder({ clientOid: req.clientOid })).toMatchObject({ outcome: 'accepted', clientOid: req.clientOid, orderId: id });
      expect((await c.order('futures', FUT, { orderId: id }))!.status).toBe('canceled');
      const again = await c.cancelOrder({ orderId: id });
      expect(again).toMatchObject({ outcome: 'rejected', orderId: id, error: { category: 'not-found' } });
    });

    it('F27 closes the positions of the contract at market: one result per side, the closing order filled', async () => {
      accepted(await c.placeOrder(FUT, market('sell', '0.2', 'short')));
      const before = await c.allPositions();
      const results = await c.closePositions(FUT);
      expect(results.map((r) => r.positionId).sort()).toEqual(
        before
          .filter((p) => p.symbol === FUT)
          .map((p) => p.positionId)
          .sort(),
      );
      for (const r of results) {
        expect([r.ok, r.error]).toEqual([true, null]);
        expect(await c.order('futures', FUT, { orderId: r.orderId! })).toMatchObject({ status: 'filled', reduceOnly: true, kind: 'market' });
      }
      expect(await c.positions(FUT)).toEqual([]);
      expect((await c.allPositions()).filter((p) => p.symbol === FUT)).toEqual([]);
      expect(await c.closePositions(FUT)).toEqual([]);
    });

    it('F30: the ledger, newest first, sums to the change of collateral; kinds filter; limit pages', async () => {
      const collateral = (await c.balances('futures'))[0]!;
      expect(collateral.liquidating).toBe(false);
      expect(collateral.cumFunding).toBeInstanceOf(Decimal);
      const all = await c.ledger({ limit: 100 });
      expect(all.hasMore).toBe(false);
      expect(all.entries.length).toBeGreaterThanOrEqual(4);
      for (let i = 1; i < all.entries.length; i++) expect(all.entries[i - 1]!.timestampMs).toBeGreaterThanOrEqual(all.entries[i]!.timestampMs);
      const sum = all.entries.reduce((a, e) => a.add(e.amount), Decimal.ZERO);
      expect(sum.eq(collateral.total.sub(collateral0))).toBe(true);
      expect(all.entries[0]!.balance!.eq(collateral.total)).toBe(true);
      expect(all.entries.every((e) => e.asset === 'USDT' && e.symbol === FUT && /^\d+$/.test(e.billId))).toBe(true);

      const opens = await c.ledger({ kind: 'open', symbol: FUT });
      expect(opens.entries.map((e) => e.rawKind).sort()).toEqual(['position_open_long', 'position_open_short']);
      expect(opens.entries.every((e) => e.amount.isNegative() && e.amount.neg().eq(e.fee!))).toBe(true);
      const closes = await c.ledger({ kind: 'close' });
      expect(closes.entries.map((e) => e.rawKind).sort()).toEqual(['position_close_long', 'position_close_short']);
      expect((await c.ledger({ kind: 'liquidation-start' })).entries).toEqual([]);

      const newest = await c.ledger({ limit: 1 });
      expect([newest.entries.map((e) => e.billId), newest.hasMore]).toEqual([[all.entries[0]!.billId], true]);
      const older = await c.ledger({ endMs: all.entries.at(-1)!.timestampMs - 1 });
      expect(older.entries).toEqual([]);
    });
  });
}

// Orders of positions: a position's take-profit and stop-loss (placed, moved in place, fired by role, capped at the
// position, canceled when the side goes flat), closing positions at market, canceling every normal or trigger order;
// and the in-process port methods over them (F23–F29).
import { describe, expect, it } from '@jest/globals';
import { SimulatedExchange } from '../../../../src/exchange/sim/simulated-exchange.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { ReplayMarket } from '../../../../src/exchange/sim/market.js';
import { BTC, ETH, d, futuresVenue, tick } from './futures-fixture.js';

const tpsl = (role: 'stop-loss' | 'take-profit', positionSide: 'long' | 'short', trigger: string, size: string, clientOid: string) => ({
  symbol: ETH,
  clientOid,
  role,
  positionSide,
  size: d(size),
  triggerPrice: d(trigger),
});
const sizeOf = (v: ReturnType<typeof futuresVenue>, side: 'long' | 'short') =>
  v.engine
    .positionViews(ETH)
    .find((p) => p.side === side)
    ?.size.toString() ?? '0';

describe('position TP/SL', () => {
  it('refused without a position on that side; placed as an untriggered close listed among the pending triggers', () => {
    const v = futuresVenue([tick(1000, ETH, '3000')], { collateral: '10000', leverage: 10 });
    v.to(1000);
    const refused = v.engine.placeTpSl(tpsl('stop-loss', 'long', '2900', '1', 'a'));
    expect(refused).toEqual({ ok: false, refusal: { code: '40017', message: 'Parameter validation failed: no long position to attach a stop-loss to' } });
    v.market(ETH, 'long', '1');
    const r = v.engine.placeTpSl(tpsl('stop-loss', 'long', '2900', '1', 'a'));
    expect(r.ok).toBe(true);
    const [order] = v.engine.pendingTriggers(ETH);
    expect([order!.role, order!.status, order!.reduceOnly, order!.positionSide, order!.side, order!.isTrigger]).toEqual([
      'stop-loss',
      'untriggered',
      true,
      'long',
      'sell',
      true,
    ]);
    expect(v.engine.placeTpSl(tpsl('stop-loss', 'long', '2900.001', '1', 'b')).ok).toBe(false);
  });

  it("fires by role: a long's take-profit on a rise, its stop-loss on a fall; closes at most the position; the rest canceled when flat", () => {
    const v = futuresVenue([tick(1000, ETH, '3000'), tick(2000, ETH, '3050'), tick(3000, ETH, '3100'), tick(4000, ETH, '2980'), tick(5000, ETH, '2950')], {
      collateral: '10000',
      leverage: 10,
    });
    v.to(1000);
    v.market(ETH, 'long', '1');
    const positionId = v.engine.positionViews(ETH)[0]!.positionId;
    const tp = v.engine.placeTpSl(tpsl('take-profit', 'long', '3100', '0.4', 'tp'));
    const sl = v.engine.placeTpSl(tpsl('stop-loss', 'long', '2900', '5', 'sl'));
    const tp2 = v.engine.placeTpSl(tpsl('take-profit', 'long', '3500', '1', 'tp2'));
    if (!tp.ok || !sl.ok || !tp2.ok) throw new Error('refused');
    // Moved in place: same id, new trigger; unknown ids refused with 50005.
    expect(v.engine.modifyTpSl({ symbol: ETH, orderId: sl.orderId, triggerPrice: d('2960') })).toEqual({ ok: true });
    expect(v.engine.rawOrder(sl.orderId)!.triggerTicks).toBe(296_000);
    expect(v.engine.modifyTpSl({ symbol: ETH, orderId: '600000000000009999', triggerPrice: d('2960') })).toEqual({
      ok: false,
      refusal: { code: '50005', message: 'Order does not exist' },
    });
    v.to(2000);
    expect(sizeOf(v, 'long')).toBe('1');
    v.to(3000);
    expect([v.engine.rawOrder(tp.orderId)!.status, sizeOf(v, 'long')]).toEqual(['filled', '0.6']);
    v.to(4000);
    expect(sizeOf(v, 'long')).toBe('0.6');
    v.to(5000);
    const stop = v.engine.rawOrder(sl.orderId)!;
    expect([stop.status, stop.sizeSteps, stop.filledSteps]).toEqual(['filled', 600, 600]);
    expect(v.engine.positionViews(ETH)).toEqual([]);
    expect(v.engine.rawOrder(tp2.orderId)!.status).toBe('canceled');
    expect(v.engine.pendingTriggers()).toEqual([]);
    // A new opening is a new position.
    v.market(ETH, 'long', '0.1');
    expect(v.engine.positionViews(ETH)[0]!.positionId).not.toBe(positionId);
    expect(BigInt(v.engine.positionViews(ETH)[0]!.positionId)).toBe(BigInt(positionId) + 1n);
  });

  it("a short's stop-loss fires on a rise; one placed already reached fires at once; a limit execute price rests", () => {
    const v = futuresVenue([tick(1000, ETH, '3000'), tick(2000, ETH, '3010')], { collateral: '10000', leverage: 10 });
    v.to(1000);
    v.market(ETH, 'short', '1');
    const now = v.engine.placeTpSl(tpsl('stop-loss', 'short', '2990', '0.2', 'now'));
    expect(now.ok && v.engine.rawOrder(now.orderId)!.status).toBe('filled');
    expect(sizeOf(v, 'short')).toBe('0.8');
    const limit = v.engine.placeTpSl({ ...tpsl('stop-loss', 'short', '3010', '0.3', 'lim'), executePrice: d('3005') });
    const market = v.engine.placeTpSl(tpsl('stop-loss', 'short', '3010', '0.1', 'mkt'));
    if (!limit.ok || !market.ok) throw new Error('refused');
    // Mark-watching: moved with the price type.
    expect(v.engine.modifyTpSl({ symbol: ETH, orderId: market.orderId, triggerPrice: d('3010'), triggerPriceType: 'mark' })).toEqual({ ok: true });
    v.to(2000);
    expect(v.engine.rawOrder(market.orderId)!.status).toBe('filled');
    const resting = v.engine.rawOrder(limit.orderId)!;
    expect([resting.status, resting.priceTicks]).toEqual(['open', 300_500]);
    expect(sizeOf(v, 'short')).toBe('0.7');
  });
});

describe('closing positions and canceling all', () => {
  it('closes every side at market with its position id; resting orders stay, a reduce-only one finding no position is canceled', () => {
    const v = futuresVenue([tick(1000, ETH, '3000'), tick(1000, BTC, '90000'), tick(2000, ETH, '3100')], { collateral: '100000', leverage: 10 });
    v.to(1000);
    v.market(ETH, 'long', '1');
    v.market(BTC, 'short', '0.01');
    const rest = v.engine.place('futures', ETH, [
      { clientOid: 'close', side: 'sell', kind: 'limit', timeInForce: 'gtc', price: d('3100'), size: d('0.5'), positionSide: 'long', reduceOnly: true },
    ])[0]!;
    const open = v.engine.place('futures', ETH, [
      { clientOid: 'open', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d('2900'), size: d('0.1'), positionSide: 'long' },
    ])[0]!;
    const ids = v.engine.positionViews().map((p) => p.positionId);
    const results = v.engine.closePositions();
    expect(results.map((r) => [r.positionId, r.ok, r.error])).toEqual(ids.map((id) => [id, true, '']));
    expect(results.map((r) => v.engine.rawOrder(r.orderId!)!.status)).toEqual(['filled', 'filled']);
    expect(v.engine.positionViews()).toEqual([]);
    expect(v.engine.openOrders('futures').map((o) => o.clientOid)).toEqual(['close', 'open']);
    v.to(2000);
    expect(rest.ok && v.engine.rawOrder(rest.orderId)!.status).toBe('canceled');
    expect(open.ok && v.engine.rawOrder(open.orderId)!.status).toBe('open');
    expect(v.engine.closePositions()).toEqual([]);
  });

  it('cancel all: normal orders or trigger orders (TP/SL included), of a contract or of all', () => {
    const v = futuresVenue([tick(1000, ETH, '3000'), tick(1000, BTC, '90000')], { collateral: '100000', leverage: 10 });
    v.to(1000);
    v.market(ETH, 'long', '1');
    v.engine.place('futures', ETH, [
      { clientOid: 'e1', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d('2900'), size: d('0.1'), positionSide: 'long' },
    ]);
    v.engine.place('futures', BTC, [
      { clientOid: 'b1', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d('89000'), size: d('0.01'), positionSide: 'long' },
    ]);
    v.engine.placeTrigger({ symbol: BTC, clientOid: 'bt', positionSide: 'long', reduceOnly: false, size: d('0.01'), triggerPrice: d('91000') });
    v.engine.placeTpSl(tpsl('stop-loss', 'long', '2800', '1', 'es'));
    expect(v.engine.cancelAllOrders('normal', ETH).map((r) => r.ok && r.clientOid)).toEqual(['e1']);
    expect(v.engine.cancelAllOrders('plan').map((r) => r.ok && r.clientOid)).toEqual(['bt', 'es']);
    expect(v.engine.openOrders('futures').map((o) => o.clientOid)).toEqual(['b1']);
    expect(v.engine.cancelAllOrders('normal').map((r) => r.ok && r.clientOid)).toEqual(['b1']);
    expect(v.engine.cancelAllOrders('normal', 'cmt_nothing')).toEqual([]);
  });
});

describe('in-process port methods (F23–F30)', () => {
  it("answer per item like the others, with the venue's refusals", async () => {
    const sim = new SimulatedExchange(new ReplayMarket(DEFAULT_INSTRUMENTS, [tick(1000, ETH, '3000'), tick(1000, BTC, '90000')]), {
      spot: {},
      futuresCollateral: '10000',
      leverage: 10,
    });
    sim.advanceTo(1000);
    const placed = await sim.placeOrder(ETH, { clientOid: 'o1', side: 'buy', kind: 'market', timeInForce: 'ioc', size: d('1'), positionSide: 'long' });
    expect(placed).toMatchObject({ outcome: 'accepted', clientOid: 'o1' });
    const bad = await sim.placeOrder(ETH, {
      clientOid: 'o2',
      side: 'buy',
      kind: 'limit',
      timeInForce: 'gtc',
      price: d('1'),
      size: d('1'),
      positionSide: 'long',
    });
    expect(bad.outcome).toBe('rejected');
    const tp = await sim.placeTpSl(tpsl('take-profit', 'long', '3200', '1', 'tp'));
    expect(tp.outcome).toBe('accepted');
    const moved = await sim.modifyTpSl({ symbol: ETH, orderId: tp.orderId!, triggerPrice: d('3300') });
    expect(moved).toEqual({ outcome: 'accepted', clientOid: 'tp', orderId: tp.orderId });
    const unknown = await sim.modifyTpSl({ symbol: ETH, orderId: '1', triggerPrice: d('3300') });
    expect(unknown.outcome === 'rejected' && unknown.error.category).toBe('not-found');
    await sim.placeOrder(BTC, { clientOid: 'rest', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d('89000'), size: d('0.01'), positionSide: 'long' });
    expect(await sim.cancelOrder({ clientOid: 'rest' })).toMatchObject({ outcome: 'accepted', clientOid: 'rest' });
    expect((await sim.cancelOrder({ clientOid: 'rest' })).outcome).toBe('rejected');
    const all = await sim.allPositions();
    expect(all.map((p) => [p.symbol, p.side, p.size.toString(), p.markPrice!.toString(), p.positionId])).toEqual([
      [ETH, 'long', '1', '3000', '500000000000000001'],
    ]);
    expect(all[0]!.liquidationPrice).toBeNull();
    const [balance] = await sim.balances('futures');
    expect([balance!.total.toString(), balance!.available!.toString(), balance!.cumFunding!.toString(), balance!.liquidating]).toEqual([
      '9998.2',
      '9698.2',
      '0',
      false,
    ]);
    expect((await sim.cancelAllFutures('plan', ETH)).map((r) => r.outcome)).toEqual(['accepted']);
    const closed = await sim.closePositions(ETH);
    expect(closed.map((r) => [r.positionId, r.ok, r.error])).toEqual([['500000000000000001', true, null]]);
    await expect(sim.closePositions('cmt_nothing')).rejects.toMatchObject({ category: 'bad-request' });
    const page = await sim.ledger({ symbol: ETH, limit: 1 });
    expect([page.entries.map((e) => e.rawKind), page.hasMore]).toEqual([['position_close_long'], true]);
    expect(page.entries[0]!.billId).toBe('900000000000000002');
    expect((await sim.ledger({ kind: 'open' })).entries.map((e) => [e.symbol, e.amount.toString()])).toEqual([[ETH, '-1.8']]);
  });
});

// The futures account at mark: margin available counts unrealised PnL; position views and the in-process F4
// positions carry id, mark, PnL, margin, funding and the liquidation estimate; the account view its margin rate;
// the ledger pages newest first with filters and a bounded memory.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import { crossMargin } from '../../../../src/domain/margin.js';
import { FuturesLedger } from '../../../../src/exchange/sim/futures-ledger.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { ReplayMarket } from '../../../../src/exchange/sim/market.js';
import { SimulatedExchange } from '../../../../src/exchange/sim/simulated-exchange.js';
import { DEFAULT_MAINTENANCE_TIERS } from '../../../../src/domain/margin.js';
import { ETH, d, futuresVenue, tick } from './futures-fixture.js';

describe('futures account at mark', () => {
  it("available = collateral + unrealised PnL − position margin − opening orders' margin", () => {
    const v = futuresVenue([tick(1000, ETH, '3000'), tick(2000, ETH, '3100'), tick(3000, ETH, '2960')], { collateral: '1000', leverage: 10 });
    v.to(1000);
    v.market(ETH, 'long', '1');
    // 1000 − 1.8 fee; margin 300.
    expect(v.engine.accountView().available.toString()).toBe('698.2');
    v.to(2000);
    expect(v.engine.accountView().available.toString()).toBe('798.2');
    v.engine.place('futures', ETH, [
      { clientOid: 'o', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d('2950'), size: d('0.1'), positionSide: 'long' },
    ]);
    // 2950 × 0.1 / 10 + 295 × 0.0006 = 29.677
    expect(v.engine.accountView().available.toString()).toBe('768.523');
    v.to(3000);
    const view = v.engine.accountView();
    expect([view.collateral.toString(), view.unrealizedPnl.toString(), view.equity.toString(), view.available.toString()]).toEqual([
      '998.2',
      '-40',
      '958.2',
      '628.523',
    ]);
    // A loss at mark leaves less for new orders.
    const big = v.engine.place('futures', ETH, [
      { clientOid: 'big', side: 'buy', kind: 'market', timeInForce: 'ioc', size: d('2.2'), positionSide: 'long' },
    ])[0]!;
    expect(big.ok || big.refusal.message).toBe('Parameter validation failed: insufficient balance: margin available 628.523, needs 655.1160528');
  });

  it('position views, F4 positions and the account view', () => {
    const v = futuresVenue([tick(1000, ETH, '3000'), tick(2000, ETH, '3050')], { collateral: '1000', leverage: 10 });
    v.to(1000);
    v.market(ETH, 'long', '1');
    v.to(2000);
    const [p] = v.engine.positionViews();
    expect({
      id: p!.positionId,
      mark: p!.mark.toString(),
      upnl: p!.unrealizedPnl.toString(),
      margin: p!.margin.toString(),
      openFee: p!.openFee.toString(),
      cumOpen: [p!.cumOpenSize.toString(), p!.cumOpenValue.toString(), p!.cumOpenFee.toString()],
      created: p!.createdAtMs,
    }).toEqual({ id: '500000000000000001', mark: '3050', upnl: '50', margin: '300', openFee: '1.8', cumOpen: ['1', '3000', '1.8'], created: 1000 });
    // Liquidation at (3000 − 998.2) / 0.975, up to the tick.
    expect(p!.liquidationPrice!.toString()).toBe('2053.13');
    const [f4] = v.engine.positions(ETH);
    expect([
      f4!.positionId,
      f4!.markPrice!.toString(),
      f4!.unrealizedPnl!.toString(),
      f4!.margin!.toString(),
      f4!.cumFundingFee!.toString(),
      f4!.liquidationPrice!.toString(),
    ]).toEqual(['500000000000000001', '3050', '50', '300', '0', '2053.13']);
    const view = v.engine.accountView();
    const cross = crossMargin(d('998.2'), [{ side: 'long', size: d('1'), openValue: d('3000'), mark: d('3050'), contractValue: d('0.001') }], {
      tiers: DEFAULT_MAINTENANCE_TIERS,
      trigger: 'maintenance',
      closeFeeRate: Decimal.ZERO,
    });
    expect([view.equity.toString(), view.marginRate!.toString(), view.maintenanceRate!.toString(), view.liquidating]).toEqual([
      cross.equity.toString(),
      cross.marginRate!.toString(),
      '0.025',
      false,
    ]);
    // A close books realised PnL; the lifetime figures follow.
    v.market(ETH, 'long', '0.4', true);
    const [after] = v.engine.positionViews();
    expect([after!.size.toString(), after!.cumCloseSize.toString(), after!.cumCloseValue.toString()]).toEqual(['0.6', '0.4', '1220']);
  });
});

describe('in-process positions and futures balance', () => {
  it("read as plain objects: every field its own and enumerable, in the port's order, worked out as the account was when polled", async () => {
    const replay = new ReplayMarket(DEFAULT_INSTRUMENTS, [tick(1000, ETH, '3000'), tick(2000, ETH, '3050'), tick(3000, ETH, '3100')]);
    const sim = new SimulatedExchange(replay, { spot: {}, futuresCollateral: '1000', leverage: 10 });
    sim.advanceTo(1000);
    expect(
      (await sim.placeOrders('futures', ETH, [{ clientOid: 'o1', side: 'buy', kind: 'market', timeInForce: 'ioc', size: d('1'), positionSide: 'long' }]))[0]!
        .outcome,
    ).toBe('accepted');
    sim.advanceTo(2000);
    const [p] = sim.positionsNow(ETH);
    const [balance] = sim.balancesNow('futures');
    expect(Object.keys(p!)).toEqual([
      'symbol',
      'side',
      'size',
      'openValue',
      'entryPrice',
      'leverage',
      'marginMode',
      'isolatedMargin',
      'openFee',
      'fundingFee',
      'updatedAtMs',
      'positionId',
      'markPrice',
      'unrealizedPnl',
      'margin',
      'cumFundingFee',
      'liquidationPrice',
    ]);
    expect(Object.keys(balance!)).toEqual(['surface', 'asset', 'available', 'frozen', 'total', 'cumFunding', 'liquidating']);
    // The account moves on before anything is read: the poll's objects still show it as it was.
    sim.advanceTo(3000);
    expect(
      (
        await sim.placeOrders('futures', ETH, [
          { clientOid: 'o2', side: 'sell', kind: 'market', timeInForce: 'ioc', size: d('0.5'), positionSide: 'long', reduceOnly: true },
        ])
      )[0]!.outcome,
    ).toBe('accepted');
    const copy = { ...p! };
    expect(JSON.parse(JSON.stringify(p))).toEqual(JSON.parse(JSON.stringify(copy)));
    expect([
      copy.entryPrice!.toString(),
      copy.markPrice!.toString(),
      copy.unrealizedPnl!.toString(),
      copy.margin!.toString(),
      copy.liquidationPrice!.toString(),
    ]).toEqual(['3000', '3050', '50', '300', '2053.13']);
    expect(JSON.parse(JSON.stringify(balance))).toEqual({
      surface: 'futures',
      asset: 'USDT',
      available: '748.2',
      frozen: null,
      total: '998.2',
      cumFunding: '0',
      liquidating: false,
    });
    expect({ ...balance! }.available!.toString()).toBe('748.2');
    // Read now, the account as it is.
    expect(sim.positionsNow(ETH).map((x) => [x.size.toString(), x.markPrice!.toString()])).toEqual([['0.5', '3100']]);
  });
});

describe('futures ledger', () => {
  const fill = (ledger: FuturesLedger, symbol: string, ts: number) =>
    ledger.recordFill(symbol, { positionSide: 'long', reduceOnly: false }, undefined, d('1'), d('99'), ts);

  it('pages newest first with symbol, kind and time filters; hasMore when more match; ids digit for digit', () => {
    const ledger = new FuturesLedger();
    for (let k = 0; k < 30; k++) fill(ledger, k % 2 ? 'cmt_a' : 'cmt_b', 1000 + k);
    ledger.record('cmt_a', 'funding', 'position_funding', d('0.5'), d('99.5'), Decimal.ZERO, 2000);
    const first = ledger.query();
    expect([first.entries.length, first.hasMore, first.entries[0]!.billId, first.entries[0]!.kind]).toEqual([20, true, '900000000000000031', 'funding']);
    expect(first.entries.map((e) => e.timestampMs)).toEqual([2000, ...Array.from({ length: 19 }, (_, k) => 1029 - k)]);
    expect(ledger.query({ symbol: 'cmt_a', kind: 'open', limit: 100 }).entries.length).toBe(15);
    const window = ledger.query({ startMs: 1010, endMs: 1019, limit: 10 });
    expect([window.entries.length, window.hasMore]).toEqual([10, false]);
    expect(ledger.query({ limit: 500 }).entries.length).toBe(31);
    expect(ledger.query({ limit: 0 }).entries.length).toBe(1);
    const [e] = ledger.query({ kind: 'open', limit: 1 }).entries;
    expect([e!.rawKind, e!.amount.toString(), e!.fee!.toString(), e!.balance!.toString(), e!.asset]).toEqual(['position_open_long', '-1', '1', '99', 'USDT']);
  });

  it('keeps at most `retain` entries per symbol once it holds twice that', () => {
    const ledger = new FuturesLedger(5);
    for (let k = 0; k < 11; k++) fill(ledger, 'cmt_a', k);
    fill(ledger, 'cmt_b', 100);
    expect(ledger.entries('cmt_a').map((e) => e.timestampMs)).toEqual([6, 7, 8, 9, 10]);
    expect(ledger.entries().length).toBe(6);
  });
});

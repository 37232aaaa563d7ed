// Liquidation of the cross account: when equity at mark is at or below maintenance, every order is canceled and the
// contract's positions close at the venue's estimated liquidation price (worked out here from entry, size,
// collateral and the tier rate, independently of the simulator), with the liquidation fee, the ledger entries
// around it, and compensation of a loss beyond the collateral.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import { BTC, ETH, d, futuresVenue, tick } from './futures-fixture.js';

const one = Decimal.fromInt(1);
const TICK = d('0.01');
// cmt_ethusdt: taker 0.0006, contract 0.001 ETH; 1 ETH = 1000 contracts, the first tier: 2.5 %.
const RATE = d('0.025');
const TAKER = d('0.0006');

const ledgerOf = (v: ReturnType<typeof futuresVenue>) => v.engine.ledgerEntries().map((e) => [e.kind, e.rawKind, e.amount.toString(), e.balance!.toString()]);

describe('liquidation', () => {
  it('a long: closes at (open value − collateral) / (size × (1 − rate)), rounded up to the tick, after canceling every order', () => {
    const v = futuresVenue([tick(1000, ETH, '3000'), tick(2000, ETH, '2976.3'), tick(3000, ETH, '2976'), tick(4000, ETH, '2970')], {
      collateral: '100',
      leverage: 50,
    });
    v.to(1000);
    v.market(ETH, 'long', '1');
    const collateral = v.engine.futuresCollateral();
    const [position] = v.engine.positionViews(ETH);
    // Independently: entry 3000 × 1, the collateral after the open fee.
    expect([position!.openValue.toString(), collateral.toString()]).toEqual(['3000', '98.2']);
    const expected = d('3000').sub(collateral).div(one.sub(RATE), 12).roundToStep(TICK, 'up');
    expect(expected.toString()).toBe('2976.21');
    expect(position!.liquidationPrice!.toString()).toBe(expected.toString());

    const resting = v.engine.place('futures', ETH, [
      { clientOid: 'rest', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d('2900'), size: d('0.01'), positionSide: 'long' },
    ])[0]!;
    const trigger = v.engine.placeTrigger({
      symbol: ETH,
      clientOid: 'trig',
      positionSide: 'long',
      reduceOnly: false,
      size: d('0.01'),
      triggerPrice: d('3100'),
    });
    const stop = v.engine.placeTpSl({ symbol: ETH, clientOid: 'sl', role: 'stop-loss', positionSide: 'long', size: d('1'), triggerPrice: d('2900') });
    expect([resting.ok, trigger.ok, stop.ok]).toEqual([true, true, true]);

    let liquidatingDuringFill = false;
    v.engine.onFill = (_f, order) => {
      if (order.liquidation) liquidatingDuringFill = v.engine.accountView().liquidating;
    };
    v.to(2000);
    expect(v.engine.liquidations()).toEqual([]);
    v.to(3000);
    const [liq] = v.engine.liquidations();
    expect({ side: liq!.side, size: liq!.size.toString(), price: liq!.price.toString(), mark: liq!.mark.toString() }).toEqual({
      side: 'long',
      size: '1',
      price: '2976.21',
      mark: '2976',
    });
    const fee = expected.mul(TAKER);
    expect([liq!.pnl.toString(), liq!.fee.toString()]).toEqual([expected.sub(d('3000')).toString(), fee.toString()]);
    expect(liquidatingDuringFill).toBe(true);
    expect(v.engine.accountView().liquidating).toBe(false);
    expect(v.engine.positionViews()).toEqual([]);
    expect(v.engine.futuresCollateral().toString()).toBe(
      collateral
        .add(expected.sub(d('3000')))
        .sub(fee)
        .toString(),
    );
    // Every order canceled.
    for (const id of [resting, trigger, stop].map((r) => (r.ok ? r.orderId : ''))) expect(v.engine.rawOrder(id)!.status).toBe('canceled');
    expect(v.engine.openOrders('futures')).toEqual([]);
    // The close is a liquidation order, a taker fill with its detail.
    const order = v.engine.rawOrder(liq!.orderId)!;
    expect([order.liquidation, order.side, order.positionSide, order.reduceOnly, order.status]).toEqual([true, 'sell', 'long', true, 'filled']);
    const [fill] = v.engine.fills(ETH, liq!.orderId);
    const detail = v.engine.fillDetail(ETH, fill!.fillId)!;
    expect([detail.liquidation, detail.taker, detail.liquidateFee!.toString(), detail.realizedPnl!.toString()]).toEqual([true, true, fee.toString(), '-23.79']);
    expect(ledgerOf(v)).toEqual([
      ['open', 'position_open_long', '-1.8', '98.2'],
      ['liquidation-start', 'start_liquidate', '0', '98.2'],
      ['close', 'position_close_long', '-23.79', '74.41'],
      ['fee', 'order_liquidate_fee_income', '-1.785726', '72.624274'],
      ['liquidation-finish', 'finish_liquidate', '0', '72.624274'],
    ]);
    v.to(4000);
    expect(v.engine.liquidations()).toHaveLength(1);
  });

  it('a short: closes at (collateral + open value) / (size × (1 + rate)), rounded down to the tick', () => {
    const v = futuresVenue([tick(1000, ETH, '3000'), tick(2000, ETH, '3022.6'), tick(3000, ETH, '3023')], { collateral: '100', leverage: 50 });
    v.to(1000);
    v.market(ETH, 'short', '1');
    const collateral = v.engine.futuresCollateral();
    const expected = collateral.add(d('3000')).div(one.add(RATE), 12).roundToStep(TICK, 'down');
    expect(expected.toString()).toBe('3022.63');
    expect(v.engine.positionViews(ETH)[0]!.liquidationPrice!.toString()).toBe('3022.63');
    v.to(2000);
    expect(v.engine.liquidations()).toEqual([]);
    v.to(3000);
    const [liq] = v.engine.liquidations();
    const fee = expected.mul(TAKER);
    expect({ side: liq!.side, price: liq!.price.toString(), pnl: liq!.pnl.toString(), fee: liq!.fee.toString() }).toEqual({
      side: 'short',
      price: '3022.63',
      pnl: d('3000').sub(expected).toString(),
      fee: fee.toString(),
    });
    expect(v.engine.rawOrder(liq!.orderId)!.side).toBe('buy');
    expect(v.engine.futuresCollateral().toString()).toBe(collateral.add(d('3000').sub(expected)).sub(fee).toString());
    expect(ledgerOf(v).map((e) => e[1])).toEqual([
      'position_open_short',
      'start_liquidate',
      'position_close_short',
      'order_liquidate_fee_income',
      'finish_liquidate',
    ]);
  });

  it('maintenance plus the closing fee: the fee rate joins the tier rate', () => {
    const v = futuresVenue([tick(1000, ETH, '3000')], { collateral: '100', leverage: 50, futures: { liquidationTrigger: 'maintenance-plus-fee' } });
    v.to(1000);
    v.market(ETH, 'long', '1');
    const expected = d('3000')
      .sub(v.engine.futuresCollateral())
      .div(one.sub(RATE.add(TAKER)), 12)
      .roundToStep(TICK, 'up');
    expect(v.engine.positionViews(ETH)[0]!.liquidationPrice!.toString()).toBe(expected.toString());
  });

  it('still liquidating after the contract closes: the others close at their mark; a loss beyond the collateral is compensated', () => {
    const v = futuresVenue([tick(1000, ETH, '3000'), tick(1000, BTC, '90000'), tick(2000, BTC, '89000', { mark: '89500' }), tick(3000, ETH, '2900')], {
      collateral: '200',
      leverage: 50,
      futures: { liquidationFeeRate: d('0.05') },
    });
    v.to(1000);
    v.market(ETH, 'long', '1');
    v.market(BTC, 'long', '0.01');
    v.to(2000);
    expect(v.engine.liquidations()).toEqual([]);
    const ethLiq = v.engine.positionViews(ETH)[0]!.liquidationPrice!;
    v.to(3000);
    const liqs = v.engine.liquidations();
    expect(liqs.map((l) => [l.symbol, l.price.toString(), l.mark.toString()])).toEqual([
      [ETH, ethLiq.toString(), '2900'],
      [BTC, '89500', '89500'],
    ]);
    expect(liqs.map((l) => l.fee.toString())).toEqual([ethLiq.mul(d('0.05')).toString(), d('89500').mul(d('0.01')).mul(d('0.05')).toString()]);
    expect(v.engine.futuresCollateral().toString()).toBe('0');
    const entries = v.engine.ledgerEntries();
    const last = entries[entries.length - 1]!;
    expect([last.kind, last.rawKind, last.balance!.toString()]).toEqual(['liquidation-compensation', 'order_fix_margin_amount', '0']);
    expect(last.amount.gt(Decimal.ZERO)).toBe(true);
    const sum = entries.reduce((s, e) => s.add(e.amount), Decimal.ZERO);
    expect(sum.toString()).toBe(v.engine.futuresCollateral().sub(d('200')).toString());
  });
});

// Account records -> domain values: positions, spot balances, futures collateral.
import { describe, expect, it } from '@jest/globals';
import { futuresBalance, position, spotBalance } from '../../../../src/exchange/live/parse-account.js';
import { ParseContext } from '../../../../src/exchange/live/parse-context.js';
import type { WireCollateral, WirePosition, WireSpotAsset } from '../../../../src/exchange/wire/responses.js';
import { shown } from '../../../../src/util/shown.js';

const str = (v: unknown) => (v === null ? null : shown(v));

describe('positions', () => {
  it("maps a side with its entry price from open value / size; the record's symbol wins", () => {
    const p = position(
      new ParseContext('F4'),
      {
        symbol: 'cmt_ethusdt',
        side: 'long',
        size: '2',
        open_value: '6000.5',
        leverage: '20',
        margin_mode: 'SHARED',
        updated_time: 1764482511864,
      } as WirePosition,
      0,
      'asked',
    );
    expect(p).toMatchObject({ symbol: 'cmt_ethusdt', side: 'long', marginMode: 'SHARED', updatedAtMs: 1764482511864, openFee: null });
    expect([p!.size, p!.entryPrice, p!.leverage].map(str)).toEqual(['2', '3000.25', '20']);
  });

  it('drops an empty side; reports an unknown side', () => {
    const ctx = new ParseContext('F4');
    expect(position(ctx, { side: 'SHORT', size: '0', open_value: '0' } as WirePosition, 0, 'cmt_btcusdt')).toBeNull();
    expect(position(ctx, { side: 'BOTH', size: '1', open_value: '1' } as WirePosition, 1, 'cmt_btcusdt')).toBeNull();
    expect(ctx.anomalies).toEqual([{ endpoint: 'F4', field: '[1].side', value: 'BOTH', note: 'unknown position side' }]);
  });
});

describe('positions with the F29 fields and funding signs', () => {
  const f29 = {
    id: '690800371848708186',
    symbol: 'cmt_btcusdt',
    side: 'SHORT',
    size: '0.5',
    open_value: '45000',
    funding_fee: '1.25',
    cum_funding_fee: '3.5',
    marginSize: '2250',
    contractVal: '0.0001',
    unrealizePnl: '-12.5',
    liquidatePrice: '93500.5',
  } as WirePosition;

  it('fills the position id, margin, unrealised PnL, lifetime funding and the liquidation price', () => {
    const p = position(new ParseContext('F29'), f29, 0, undefined)!;
    expect(p.positionId).toBe('690800371848708186');
    expect([p.margin, p.unrealizedPnl, p.fundingFee, p.cumFundingFee, p.liquidationPrice].map(str)).toEqual(['2250', '-12.5', '1.25', '3.5', '93500.5']);
    // The venue gives no mark price in F29: not guessed.
    expect(p.markPrice).toBeUndefined();
  });

  it('paid-positive: funding amounts are negated into changes of collateral; collateral-change keeps them', () => {
    const paid = position(new ParseContext('F29'), f29, 0, undefined, 'paid-positive')!;
    expect([paid.fundingFee, paid.cumFundingFee].map(str)).toEqual(['-1.25', '-3.5']);
    const kept = position(new ParseContext('F29'), { ...f29, funding_fee: '-2', cum_funding_fee: '0' }, 0, undefined, 'collateral-change')!;
    expect([kept.fundingFee, kept.cumFundingFee].map(str)).toEqual(['-2', '0']);
  });

  it('liquidatePrice "0" is no liquidation price; a negative one is reported and none', () => {
    const ctx = new ParseContext('F29');
    expect(position(ctx, { ...f29, liquidatePrice: '0' }, 0, undefined)!.liquidationPrice).toBeNull();
    expect(position(ctx, { ...f29, liquidatePrice: '0.000' }, 1, undefined)!.liquidationPrice).toBeNull();
    expect(position(ctx, { ...f29, liquidatePrice: '-5' }, 2, undefined)!.liquidationPrice).toBeNull();
    expect(ctx.anomalies.map((a) => a.field)).toEqual(['[2].liquidatePrice']);
  });

  it('F4 without the F29 fields leaves them absent; F29 without a symbol fails naming the field, unless empty', () => {
    const p = position(new ParseContext('F4'), { side: 'LONG', size: '1', open_value: '10' } as WirePosition, 0, 'cmt_ethusdt')!;
    expect(['positionId', 'margin', 'unrealizedPnl', 'cumFundingFee', 'liquidationPrice'].filter((k) => k in p)).toEqual([]);
    expect(() => position(new ParseContext('F29'), { side: 'LONG', size: '1', open_value: '10' } as WirePosition, 3, undefined)).toThrow(
      '[3].symbol: a position without its contract cannot be attributed',
    );
    expect(position(new ParseContext('F29'), { side: 'LONG', size: '0', open_value: '0' } as WirePosition, 4, undefined)).toBeNull();
  });
});

describe('balances', () => {
  it('spot: available, frozen and equity as total', () => {
    const b = spotBalance(new ParseContext('S8'), { coinName: 'USDT', available: '10.5', frozen: '', equity: '12' } as WireSpotAsset, 0);
    expect([b.asset, b.available, b.frozen, b.total].map(str)).toEqual(['USDT', '10.5', null, '12']);
  });

  it('futures: the amount as total; coin id 2 is USDT, another id is reported', () => {
    const ctx = new ParseContext('F3');
    expect(futuresBalance(ctx, { coin_id: 2, amount: '500' } as WireCollateral, 0)).toMatchObject({
      surface: 'futures',
      asset: 'USDT',
      available: null,
      frozen: null,
    });
    expect(futuresBalance(ctx, { coin_id: 7, amount: '1' } as WireCollateral, 1).asset).toBe('coin_7');
    expect(ctx.anomalies.map((a) => a.field)).toEqual(['collateral[1].coin_id']);
    expect(() => futuresBalance(ctx, { coin: 'USDT', amount: '' } as WireCollateral, 2)).toThrow('collateral[2].amount: a value is required');
  });

  it('futures: lifetime funding by the sign convention, and whether a liquidation runs', () => {
    const record = { coin_id: 2, amount: '4663.20125463', is_liquidating: false, cum_position_funding_amount: '9859.37164167' } as WireCollateral;
    const asIs = futuresBalance(new ParseContext('F3'), record, 0);
    expect([str(asIs.cumFunding), asIs.liquidating]).toEqual(['9859.37164167', false]);
    const paid = futuresBalance(new ParseContext('F3'), { ...record, is_liquidating: true }, 0, 'paid-positive');
    expect([str(paid.cumFunding), paid.liquidating]).toEqual(['-9859.37164167', true]);
    const bare = futuresBalance(new ParseContext('F3'), { coin_id: 2, amount: '1' } as WireCollateral, 0);
    expect('cumFunding' in bare || 'liquidating' in bare).toBe(false);
  });
});

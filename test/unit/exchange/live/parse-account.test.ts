// Account records -> domain values: positions, spot balances, futures collateral.
import { describe, expect, it } from '@jest/globals';
import { futuresBalance, position, spotBalance } from '../../../../src/exchange/live/parse-account.js';
import { ParseContext } from '../../../../src/exchange/live/parse-context.js';
import type { WireCollateral, WirePosition, WireSpotAsset } from '../../../../src/exchange/wire/responses.js';

const str = (v: unknown) => (v === null ? null : String(v));

describe('positions', () => {
  it('maps a side with its entry price from open value / size; the record\'s symbol wins', () => {
    const p = position(new ParseContext('F4'), { symbol: 'cmt_ethusdt', side: 'long', size: '2', open_value: '6000.5', leverage: '20', margin_mode: 'SHARED', updated_time: 1764482511864 } as WirePosition, 0, 'asked');
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

describe('balances', () => {
  it('spot: available, frozen and equity as total', () => {
    const b = spotBalance(new ParseContext('S8'), { coinName: 'USDT', available: '10.5', frozen: '', equity: '12' } as WireSpotAsset, 0);
    expect([b.asset, b.available, b.frozen, b.total].map(str)).toEqual(['USDT', '10.5', null, '12']);
  });

  it('futures: the amount as total; coin id 2 is USDT, another id is reported', () => {
    const ctx = new ParseContext('F3');
    expect(futuresBalance(ctx, { coin_id: 2, amount: '500' } as WireCollateral, 0)).toMatchObject({ surface: 'futures', asset: 'USDT', available: null, frozen: null });
    expect(futuresBalance(ctx, { coin_id: 7, amount: '1' } as WireCollateral, 1).asset).toBe('coin_7');
    expect(ctx.anomalies.map((a) => a.field)).toEqual(['collateral[1].coin_id']);
    expect(() => futuresBalance(ctx, { coin: 'USDT', amount: '' } as WireCollateral, 2)).toThrow('collateral[2].amount: a value is required');
  });
});

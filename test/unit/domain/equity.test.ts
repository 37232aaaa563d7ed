import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { equity } from '../../../src/domain/equity.js';
import type { Balance, Position } from '../../../src/domain/market.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';

const d = (s: string) => Decimal.from(s);
const instruments = new Map(DEFAULT_INSTRUMENTS.map((s) => [s.symbol, toInstrument(s)]));
const t = (symbol: string, last: string): [string, Decimal] => [symbol, d(last)];
const bal = (surface: 'spot' | 'futures', asset: string, total: string): Balance => ({ surface, asset, available: null, frozen: null, total: d(total) });

describe('equity', () => {
  it('values balances at the last prices and adds unrealised PnL of positions, exactly', () => {
    const positions: Position[] = [
      {
        symbol: 'cmt_ethusdt',
        side: 'long',
        size: d('2'),
        openValue: d('6000'),
        entryPrice: d('3000'),
        leverage: null,
        marginMode: 'SHARED',
        isolatedMargin: null,
        openFee: null,
        fundingFee: null,
        updatedAtMs: null,
      },
      {
        symbol: 'cmt_btcusdt',
        side: 'short',
        size: d('0.1'),
        openValue: d('9100'),
        entryPrice: d('91000'),
        leverage: null,
        marginMode: 'SHARED',
        isolatedMargin: null,
        openFee: null,
        fundingFee: null,
        updatedAtMs: null,
      },
    ];
    const prices = new Map([t('BTCUSDT_SPBL', '90000.1'), t('cmt_ethusdt', '3100.5'), t('cmt_btcusdt', '90000')]);
    const e = equity(
      [bal('spot', 'USDT', '1000'), bal('spot', 'BTC', '0.5'), bal('spot', 'DOGE', '99'), bal('futures', 'USDT', '5000')],
      positions,
      (s) => prices.get(s),
      instruments,
    )!;
    expect(e.bySurface.spot!.toString()).toBe('46000.05');
    expect(e.bySurface.futures!.toString()).toBe('5301'); // 5000 + 2 × 100.5 + 0.1 × 1000
    expect(e.total.toString()).toBe('51301.05');
  });
  it('is unknown without prices or while a position has none', () => {
    expect(equity([], [], undefined, instruments)).toBeUndefined();
    const p: Position = {
      symbol: 'cmt_ethusdt',
      side: 'long',
      size: d('1'),
      openValue: d('3000'),
      entryPrice: d('3000'),
      leverage: null,
      marginMode: 'SHARED',
      isolatedMargin: null,
      openFee: null,
      fundingFee: null,
      updatedAtMs: null,
    };
    expect(equity([], [p], () => undefined, instruments)).toBeUndefined();
  });
});

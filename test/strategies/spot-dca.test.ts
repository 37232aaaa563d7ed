import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../src/exchange/sim/instruments.js';
import type { StrategyContext } from '../../src/strategy/api.js';
import dca from '../../examples/strategies/spot-dca/index.js';

const inst = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'BTCUSDT_SPBL')!);

function ctx(params: Record<string, unknown> = {}): StrategyContext<ReturnType<typeof dca.params.parse>> {
  return {
    id: 'dca',
    params: dca.params.parse(params),
    symbols: [inst.symbol],
    instruments: new Map([[inst.symbol, inst]]),
    log: { info: () => {}, warn: () => {} },
    state: {},
    bars: () => {
      throw new Error('no bars in this test');
    },
    inventory: () => {
      throw new Error('no inventory in this test');
    },
  };
}

describe('spot-dca', () => {
  it('buys the quote amount at market, size rounded down to the step', () => {
    const c = ctx({ quoteAmount: '100' });
    c.state.last = '90000';
    expect(dca.onSchedule!.buy!(c, 0)).toEqual([
      { kind: 'place', surface: 'spot', symbol: inst.symbol, orders: [{ side: 'buy', kind: 'market', timeInForce: 'ioc', size: Decimal.from('0.001111') }] },
    ]);
  });
  it('waits for a price, and skips above the ceiling or below the minimum size', () => {
    expect(dca.onSchedule!.buy!(ctx(), 0)).toBeUndefined();
    const c = ctx({ maxPrice: '80000' });
    c.state.last = '90000';
    expect(dca.onSchedule!.buy!(c, 0)).toBeUndefined();
    const tiny = ctx({ quoteAmount: '0.5' });
    tiny.state.last = '90000';
    expect(dca.onSchedule!.buy!(tiny, 0)).toBeUndefined();
  });
});

// Monthly returns: equity change per UTC month, each month from the last sample before it.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { monthlyReturns } from '../../../src/report/monthly.js';

const at = (iso: string, equity: string) => ({ ts: Date.parse(iso), equity: Decimal.from(equity), hold: Decimal.from('0') });

describe('monthly returns', () => {
  it("splits at UTC month boundaries; each month starts from the previous month's last sample", () => {
    const rows = monthlyReturns([
      at('2026-01-30T12:00:00Z', '1000'),
      at('2026-01-31T23:59:59Z', '1100'),
      at('2026-02-01T00:00:00Z', '1050'),
      at('2026-02-28T23:00:00Z', '990'),
      at('2026-04-02T00:00:00Z', '1089'),
    ]);
    expect(rows).toEqual([
      { month: '2026-01', startEquity: '1000.00000000', endEquity: '1100.00000000', pnl: '100.00000000', returnPct: '10' },
      { month: '2026-02', startEquity: '1100.00000000', endEquity: '990.00000000', pnl: '-110.00000000', returnPct: '-10' },
      // No sample in March: April is measured from February's last.
      { month: '2026-04', startEquity: '990.00000000', endEquity: '1089.00000000', pnl: '99.00000000', returnPct: '10' },
    ]);
  });

  it('none without samples; a run within one month is one row', () => {
    expect(monthlyReturns([])).toEqual([]);
    expect(monthlyReturns([at('2026-01-05T00:00:00Z', '3'), at('2026-01-05T00:30:00Z', '4')])).toEqual([
      { month: '2026-01', startEquity: '3.00000000', endEquity: '4.00000000', pnl: '1.00000000', returnPct: '33.3333' },
    ]);
  });
});

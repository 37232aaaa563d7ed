// Refusals named by reason, counted, and written as the summary line shows them.
import { describe, expect, it } from '@jest/globals';
import { countByReason, describeCounts, rejectionReason } from '../../../src/report/rejections.js';

describe('rejection reasons', () => {
  it("names the simulator's refusals as a trader would", () => {
    expect(rejectionReason('43002', 'Failed to place order: post only order would take liquidity')).toBe('post-only');
    expect(rejectionReason('40017', 'Parameter validation failed: post only order would take liquidity')).toBe('post-only');
    expect(rejectionReason('43002', 'Failed to place order: insufficient balance: USDT available 1, needs 2')).toBe('insufficient');
    expect(rejectionReason('40017', 'Parameter validation failed: close size exceeds the position')).toBe('close-exceeds-position');
    expect(rejectionReason('429', 'Too many requests')).toBe('rate-limited');
    expect(rejectionReason('43009', 'The current order price exceeds the limit')).toBe('price-limit');
    expect(rejectionReason('43006', 'Amount is less than the minimum order amount')).toBe('size-limit');
    expect(rejectionReason('40777', 'Something new')).toBe('code 40777');
    expect(rejectionReason(undefined, 'Something new')).toBe('other');
  });

  it('counts most frequent first and writes them for the summary line', () => {
    const counts = countByReason(['insufficient', 'post-only', 'post-only', 'duplicate']);
    expect(Object.entries(counts)).toEqual([
      ['post-only', 2],
      ['duplicate', 1],
      ['insufficient', 1],
    ]);
    expect(describeCounts(counts)).toBe('4 (post-only 2, duplicate 1, insufficient 1)');
    expect(describeCounts({})).toBe('0');
  });
});

// Successive halving's rungs: prefix lengths growing by eta up to the whole window; the best 1/eta go on.
import { describe, expect, it } from '@jest/globals';
import { promote, rungBudgets, survivors } from '../../../src/research/halving.js';

describe('rungs', () => {
  it('from a share or a length of the window, eta times longer each, the whole window last', () => {
    expect(rungBudgets({ enabled: true, eta: 3, minBudget: { share: 0.25 } }, 1000)).toEqual([250, 750, 1000]);
    expect(rungBudgets({ enabled: true, eta: 2, minBudget: { share: 0.125 } }, 1000)).toEqual([125, 250, 500, 1000]);
    expect(rungBudgets({ enabled: true, eta: 3, minBudget: { ms: 100 } }, 1000)).toEqual([100, 300, 900, 1000]);
    expect(rungBudgets({ enabled: true, eta: 3, minBudget: { share: 1 } }, 1000)).toEqual([1000]);
    expect(rungBudgets({ enabled: false, eta: 3, minBudget: { share: 0.25 } }, 1000)).toEqual([1000]);
  });

  it('keeps the best 1/eta, rounded up, at least one', () => {
    expect([survivors(9, 3), survivors(10, 3), survivors(2, 3), survivors(1, 2)]).toEqual([3, 4, 1, 1]);
    expect(promote(['a', 'b', 'c', 'd', 'e'], 2)).toEqual(['a', 'b', 'c']);
  });
});

// The polls table: what one cycle of each poll reads, by surface, in its reading order, with pages for listings.
import { describe, expect, it } from '@jest/globals';
import { POLLS, activeReads, pollCycle, pollNamed } from '../../../src/data/polls.js';

const both = { spot: ['BTCUSDT_SPBL', 'ETHUSDT_SPBL'], futures: ['cmt_btcusdt'] };

describe('the polls table', () => {
  it('names each poll once, with its period key', () => {
    expect(POLLS.map((p) => [p.name, p.periodKey])).toEqual([['tickers', 'tickersMs'], ['orders', 'ordersMs'], ['balances', 'balancesMs'], ['positions', 'positionsMs']]);
  });

  it('reads once per surface or once per symbol, in the table\'s order', () => {
    expect(pollCycle(pollNamed('tickers'), both, 'S15')).toEqual([{ endpoint: 'F2', times: 1 }, { endpoint: 'S9', times: 2 }]);
    expect(pollCycle(pollNamed('orders'), both, 'S15')).toEqual([{ endpoint: 'F5', times: 1 }, { endpoint: 'S15', times: 2 }]);
    expect(pollCycle(pollNamed('balances'), both, 'S15')).toEqual([{ endpoint: 'S8', times: 1 }, { endpoint: 'F3', times: 1 }]);
    expect(pollCycle(pollNamed('positions'), both, 'S15')).toEqual([{ endpoint: 'F4', times: 1 }]);
  });

  it('a surface without symbols reads nothing; the spot listing is the configured source, paged as told', () => {
    const spotOnly = { spot: ['BTCUSDT_SPBL'], futures: [] };
    expect(activeReads(pollNamed('positions'), spotOnly)).toEqual([]);
    expect(pollCycle(pollNamed('tickers'), spotOnly, 'S15')).toEqual([{ endpoint: 'S9', times: 1 }]);
    expect(pollCycle(pollNamed('orders'), spotOnly, 'S1', (e) => (e === 'S1' ? 7 : 1))).toEqual([{ endpoint: 'S1', times: 7 }]);
    // Pages count only for listings: the tickers read is not paged.
    expect(pollCycle(pollNamed('tickers'), both, 'S15', () => 9)).toEqual([{ endpoint: 'F2', times: 1 }, { endpoint: 'S9', times: 2 }]);
  });
});

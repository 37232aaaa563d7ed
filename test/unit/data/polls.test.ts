// The polls table: what one cycle of each poll reads, by surface, in its reading order, with pages for listings,
// the configured choices of endpoints, and the trades read only for the spot pairs whose bars are built.
import { describe, expect, it } from '@jest/globals';
import { POLLS, activeReads, chooseFuturesTickers, pollCycle, pollNamed, type PollChoices } from '../../../src/data/polls.js';

const both = { spot: ['BTCUSDT_SPBL', 'ETHUSDT_SPBL'], futures: ['cmt_btcusdt'] };
const LEGACY: PollChoices = { spotOpenOrders: 'S15', futuresTickers: 'F2', spotTickers: 'trade' };
const DEPTH: PollChoices = { spotOpenOrders: 'S15', futuresTickers: 'F12', spotTickers: 'depth' };

describe('the polls table', () => {
  it('names each poll once, with its period key', () => {
    expect(POLLS.map((p) => [p.name, p.periodKey])).toEqual([['tickers', 'tickersMs'], ['orders', 'ordersMs'], ['balances', 'balancesMs'], ['positions', 'positionsMs'], ['trades', 'tradesMs']]);
  });

  it('reads once per surface or once per symbol, in the table\'s order', () => {
    expect(pollCycle(pollNamed('tickers'), both, LEGACY)).toEqual([{ endpoint: 'F2', times: 1 }, { endpoint: 'S9', times: 2 }]);
    expect(pollCycle(pollNamed('orders'), both, LEGACY)).toEqual([{ endpoint: 'F5', times: 1 }, { endpoint: 'S15', times: 2 }]);
    expect(pollCycle(pollNamed('balances'), both, LEGACY)).toEqual([{ endpoint: 'S8', times: 1 }, { endpoint: 'F3', times: 1 }]);
    expect(pollCycle(pollNamed('positions'), both, LEGACY)).toEqual([{ endpoint: 'F4', times: 1 }]);
  });

  it('per-contract futures tickers and the spot ticker with its book: one request each per symbol', () => {
    expect(pollCycle(pollNamed('tickers'), both, DEPTH)).toEqual([{ endpoint: 'F12', times: 1 }, { endpoint: 'S11', times: 2 }, { endpoint: 'S13', times: 2 }]);
  });

  it('chooses F12 while the contracts weigh less than one F2, unless configured', () => {
    const w = { F2: 40, F12: 1 };
    expect(chooseFuturesTickers('auto', 3, w)).toBe('F12');
    expect(chooseFuturesTickers('auto', 39, w)).toBe('F12');
    expect(chooseFuturesTickers('auto', 40, w)).toBe('F2');
    expect(chooseFuturesTickers('F2', 1, w)).toBe('F2');
    expect(chooseFuturesTickers('F12', 100, w)).toBe('F12');
  });

  it('trades are read only for the spot pairs with bars', () => {
    expect(pollCycle(pollNamed('trades'), both, DEPTH)).toEqual([]);
    expect(pollCycle(pollNamed('trades'), { ...both, barSpot: ['ETHUSDT_SPBL'] }, DEPTH)).toEqual([{ endpoint: 'S9', times: 1 }]);
  });

  it('a surface without symbols reads nothing; the spot listing is the configured source, paged as told', () => {
    const spotOnly = { spot: ['BTCUSDT_SPBL'], futures: [] };
    expect(activeReads(pollNamed('positions'), spotOnly, LEGACY)).toEqual([]);
    expect(pollCycle(pollNamed('tickers'), spotOnly, LEGACY)).toEqual([{ endpoint: 'S9', times: 1 }]);
    expect(pollCycle(pollNamed('orders'), spotOnly, { ...LEGACY, spotOpenOrders: 'S1' }, (e) => (e === 'S1' ? 7 : 1))).toEqual([{ endpoint: 'S1', times: 7 }]);
    // Pages count only for listings: the tickers read is not paged.
    expect(pollCycle(pollNamed('tickers'), both, LEGACY, () => 9)).toEqual([{ endpoint: 'F2', times: 1 }, { endpoint: 'S9', times: 2 }]);
  });
});

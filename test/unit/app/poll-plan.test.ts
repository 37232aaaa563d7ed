// The polling-plan check counts the real cost of each poll: the open-orders poll is pages × weight per page of the
// configured spot source (S15 weight 3 per page of 100 open orders; S1 weight 10 per page of the whole history).
import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '../../../src/config/load.js';
import { checkPollingPlan, openOrderPages, pollRequests } from '../../../src/app/poll-plan.js';

function config(extra: string, symbols = '[BTCUSDT_SPBL]') {
  return parseConfig(
    `${extra}
strategies:
  - id: mm
    name: spot-market-maker
    symbols: ${symbols}
    params: {}
`,
    'plan.yaml',
    {},
  );
}

describe('open-orders pages', () => {
  it('S15 and F5 list open orders: pages of 100 until a short one, at most maxPages; S1 walks the whole history', () => {
    expect([50, 99, 100, 250, 5000].map((n) => openOrderPages('S15', n, 20))).toEqual([1, 1, 2, 3, 20]);
    expect(openOrderPages('F5', 100, 20)).toBe(2);
    expect(openOrderPages('S1', 50, 20)).toBe(20);
  });

  it('the orders poll of each spot pair is its source × its pages', () => {
    const orders = (cfg: ReturnType<typeof config>) => pollRequests(cfg).filter((u) => u.poll === 'ordersMs');
    expect(orders(config('', '[BTCUSDT_SPBL, ETHUSDT_SPBL]'))).toEqual([{ poll: 'ordersMs', endpoint: 'S15', times: 2 }]);
    expect(orders(config('risk: { maxOpenOrdersPerSymbol: 250 }', '[BTCUSDT_SPBL, ETHUSDT_SPBL]'))).toEqual([{ poll: 'ordersMs', endpoint: 'S15', times: 6 }]);
    expect(orders(config('exchange: { spotOpenOrders: S1, maxPages: 7 }'))).toEqual([{ poll: 'ordersMs', endpoint: 'S1', times: 7 }]);
    expect(orders(config('', '[BTCUSDT_SPBL, cmt_btcusdt]'))).toEqual([
      { poll: 'ordersMs', endpoint: 'F5', times: 1 },
      { poll: 'ordersMs', endpoint: 'S15', times: 1 },
    ]);
  });
});

describe('the plan check', () => {
  it('S15 at the defaults fits the spot share', () => {
    expect(checkPollingPlan(config(''))).toEqual([]);
  });

  it('S1 pays 10 per page for every page of the history: refused, naming the orders poll and its cost', () => {
    const issues = checkPollingPlan(config('exchange: { spotOpenOrders: S1 }'));
    expect(issues.map((i) => i.path)).toEqual(['daemon.polls.ordersMs', 'daemon.polls.ordersMs']);
    expect(issues[0]!.message).toBe(
      'polling uses 1030 IP weight per 10000 ms on spot, more than its share 225 (pollShare 0.5 of 0.9 × 500); slow down ordersMs (1000 per window: S1 20×10 per cycle)',
    );
    expect(issues[1]!.message).toMatch(/^polling uses 1010 UID weight per 10000 ms on spot/);
  });

  it('S15 with many open orders per pair: more pages, until the orders poll is the one to slow', () => {
    // 13 pages of 3 every 2 s: 195, with tickers (S11 + S13 each second: 20) and balances (10) exactly the share of 225.
    expect(checkPollingPlan(config('risk: { maxOpenOrdersPerSymbol: 1200 }'))).toEqual([]);
    const issues = checkPollingPlan(config('risk: { maxOpenOrdersPerSymbol: 1300 }'));
    expect(issues.map((i) => i.path)).toEqual(['daemon.polls.ordersMs']);
    expect(issues[0]!.message).toMatch(/^polling uses 240 IP weight .* slow down ordersMs \(210 per window: S15 14×3 per cycle\)$/);
  });

  it('a plan made for several processes gives each its part of the share', () => {
    // The 1200-order plan takes exactly the share of one process (225); two processes have 112 each.
    expect(checkPollingPlan(config('risk: { maxOpenOrdersPerSymbol: 1200 }\nexchange: { rateLimit: { processes: 1 } }'))).toEqual([]);
    const issues = checkPollingPlan(config('risk: { maxOpenOrdersPerSymbol: 1200 }\nexchange: { rateLimit: { processes: 2 } }'));
    expect(issues[0]!.message).toMatch(
      /^polling uses 225 IP weight per 10000 ms on spot, more than its share 112 \(pollShare 0.5 ÷ 2 processes of 0.9 × 500\)/,
    );
  });

  it('spot pairs with bars add their trades poll (S9 per pair); the last-trade ticker is dearer than S11 + S13', () => {
    const uses = (extra: string, timeframes = '') =>
      pollRequests(
        parseConfig(`${extra}\nstrategies:\n  - { id: b, name: spot-market-maker, symbols: [BTCUSDT_SPBL, cmt_btcusdt]${timeframes} }\n`, 'plan.yaml', {}),
      );
    expect(uses('').filter((u) => u.poll === 'tickersMs' || u.poll === 'tradesMs')).toEqual([
      { poll: 'tickersMs', endpoint: 'F12', times: 1 },
      { poll: 'tickersMs', endpoint: 'S11', times: 1 },
      { poll: 'tickersMs', endpoint: 'S13', times: 1 },
    ]);
    expect(
      uses('exchange: { futuresTickers: F2, spotTickers: trade }', ', timeframes: [1m, 1h]').filter((u) => u.poll === 'tickersMs' || u.poll === 'tradesMs'),
    ).toEqual([
      { poll: 'tickersMs', endpoint: 'F2', times: 1 },
      { poll: 'tickersMs', endpoint: 'S9', times: 1 },
      { poll: 'tradesMs', endpoint: 'S9', times: 1 },
    ]);
  });
});

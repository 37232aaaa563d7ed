// The divergence report: live orders paired with their simulated twins by strategy, symbol, side, kind, price and size
// within the window, nearest in time; each pair's difference given one cause; lone orders counted as decisions; the
// PnL of both sides over time exact; the page escapes what it shows.
import { describe, expect, it } from '@jest/globals';
import { divergence, divergenceSummary, type DivergenceOptions, type DivergenceOrder } from '../../../src/report/divergence.js';
import { renderDivergence } from '../../../src/report/divergence-page.js';

const T0 = Date.parse('2026-01-05T00:00:00Z');

function order(clientOid: string, atMs: number, fills: DivergenceOrder['fills'] = [], over: Partial<DivergenceOrder> = {}): DivergenceOrder {
  return {
    clientOid,
    strategyId: 'mm',
    symbol: 'BTCUSDT_SPBL',
    side: 'buy',
    kind: 'limit',
    timeInForce: 'post_only',
    price: '100.0',
    size: '1',
    isTrigger: false,
    triggerPrice: null,
    createdAtMs: T0 + atMs,
    state: fills.length ? 'filled' : 'canceled',
    error: null,
    fills,
    ...over,
  };
}
const fill = (atMs: number, size = '1', price = '100', fee = '0.1') => ({ price, size, fee, atMs: T0 + atMs });

const W = { fromMs: T0, toMs: T0 + 86_400_000 * 30 };
const OPTS: DivergenceOptions = {
  pairWindowMs: 5000,
  timeToleranceMs: 1000,
  simArrivalMs: 0,
  arrivalToleranceMs: 1000,
  gapMs: 5000,
  gaps: new Map(),
  sampleMs: 60_000,
};

describe('divergence', () => {
  it('pairs twins and names one cause for each difference', () => {
    const live = [
      order('L-same', 0, [fill(3000)]),
      order('L-late', 10_000, [fill(11_000)], { price: '101' }),
      order('L-queue', 20_000, [fill(21_000)], { price: '102' }),
      order('L-part', 30_000, [fill(31_000, '1')], { price: '103', size: '2' }),
      order('L-gap', 40_000, [fill(41_000)], { price: '104' }),
      order('L-alone', 50_000, [], { side: 'sell' }),
      // Filled here, its cancel's outcome still unknown there when the span ended.
      order('L-open', 70_000, [fill(71_000)], { price: '105' }),
    ];
    const sim = [
      // The same fill, 200 ms apart: within the time tolerance.
      order('S-same', 10, [fill(3200)]),
      // Written 3 s after its twin: the market moved before it arrived.
      order('S-late', 13_000, [], { price: '101' }),
      order('S-queue', 20_000, [], { price: '102' }),
      order('S-part', 30_000, [fill(31_000, '0.5')], { price: '103', size: '2' }),
      order('S-gap', 40_000, [], { price: '104' }),
      // Nobody's twin: another price.
      order('S-alone', 60_000, [], { price: '99' }),
      order('S-open', 70_000, [], { price: '105', state: 'canceling' }),
    ];
    const r = divergence(
      W,
      { source: 'live.sqlite', orders: live },
      { source: 'replay', orders: sim, fillModel: 'touch', latencyMs: 0 },
      { ...OPTS, gaps: new Map([['BTCUSDT_SPBL', [[T0 + 39_000, T0 + 44_500] as const]]]) },
    );
    expect(Object.fromEntries(r.pairs.map((p) => [p.live.clientOid, [p.sim.clientOid, p.cause]]))).toEqual({
      'L-open': ['S-open', 'unsettled'],
      'L-same': ['S-same', 'none'],
      'L-late': ['S-late', 'latency'],
      'L-queue': ['S-queue', 'queue'],
      'L-part': ['S-part', 'partial-fills'],
      'L-gap': ['S-gap', 'data-gaps'],
    });
    expect(r.liveOnly.map((o) => o.clientOid)).toEqual(['L-alone']);
    expect(r.simOnly.map((o) => o.clientOid)).toEqual(['S-alone']);
    expect(r.summary).toMatchObject({ paired: 6, matched: 1, liveOnly: 1, simOnly: 1 });
    expect(Object.fromEntries(r.summary.causes.map((c) => [c.cause, c.orders]))).toEqual({
      unsettled: 1,
      latency: 1,
      queue: 1,
      'partial-fills': 1,
      'data-gaps': 1,
      decision: 2,
    });
    // Most orders first.
    expect(r.summary.causes[0]!.cause).toBe('decision');
    const part = r.pairs.find((p) => p.live.clientOid === 'L-part')!;
    expect(part).toMatchObject({ priceDiff: '0', fillTimeDiffMs: 0 });
    expect(part.live.filledSize).toBe('1');
    expect(part.sim.filledSize).toBe('0.5');
    expect(part.feeDiff).toBe('0');
  });

  it('counts the configured latency of the simulated side: twins written together arrive apart', () => {
    const live = [order('L', 0, [fill(500)])];
    const sim = [order('S', 0, [fill(2600)])];
    const zero = divergence(W, { source: 'l', orders: live }, { source: 's', orders: sim, fillModel: 'queue', latencyMs: 0 }, OPTS);
    expect(zero.pairs[0]!.cause).toBe('queue');
    const late = divergence(W, { source: 'l', orders: live }, { source: 's', orders: sim, fillModel: 'queue', latencyMs: 0 }, { ...OPTS, simArrivalMs: 2000 });
    expect(late.pairs[0]!.cause).toBe('latency');
    expect(late.summary.causes).toEqual([expect.objectContaining({ cause: 'latency', orders: 1, money: '0' })]);
    // An order on one side only: with the same latency a decision, with another the latency's doing.
    const lone = [...live, order('L-lone', 30_000, [], { price: '90' })];
    const same = divergence(W, { source: 'l', orders: lone }, { source: 's', orders: sim, fillModel: 'queue', latencyMs: 0 }, OPTS);
    expect(same.summary.causes.find((c) => c.cause === 'decision')?.orders).toBe(1);
    const apart = divergence(W, { source: 'l', orders: lone }, { source: 's', orders: sim, fillModel: 'queue', latencyMs: 0 }, { ...OPTS, simArrivalMs: 2000 });
    expect(apart.summary.causes).toEqual([expect.objectContaining({ cause: 'latency', orders: 2 })]);
    // Written together and cancelled at one moment, but the live cancel was 300 ms on its way, the simulated one 2 ms:
    // they reached their venues 149 ms apart (a trade came meanwhile): latency, the live side's. Alike flights: queue.
    const quick = [
      order('S', 0, [fill(2600)], {
        flights: [
          [T0, T0 + 2],
          [T0 + 400, T0 + 402],
        ],
      }),
    ];
    const slow = [
      order('L', 0, [fill(500)], {
        flights: [
          [T0, T0 + 3],
          [T0 + 400, T0 + 700],
        ],
      }),
    ];
    expect(
      divergence(W, { source: 'l', orders: slow }, { source: 's', orders: quick, fillModel: 'queue', latencyMs: 0 }, { ...OPTS, arrivalToleranceMs: 50 })
        .pairs[0]!.cause,
    ).toBe('latency');
    expect(
      divergence(W, { source: 'l', orders: slow }, { source: 's', orders: quick, fillModel: 'queue', latencyMs: 0 }, { ...OPTS, arrivalToleranceMs: 200 })
        .pairs[0]!.cause,
    ).toBe('queue');
  });

  it('pairs with the nearest twin in time, and none beyond the window', () => {
    const live = [order('L1', 0), order('L2', 20_000)];
    const sim = [order('S-far', 8000), order('S-near', 19_500)];
    const r = divergence(W, { source: 'l', orders: live }, { source: 's', orders: sim, fillModel: 'queue', latencyMs: 0 }, OPTS);
    expect(r.pairs.map((p) => [p.live.clientOid, p.sim.clientOid])).toEqual([['L2', 'S-near']]);
    expect(r.liveOnly.map((o) => o.clientOid)).toEqual(['L1']);
    expect(r.simOnly.map((o) => o.clientOid)).toEqual(['S-far']);
  });

  it('gives the PnL of each side over time, exact, and the gap', () => {
    const live = [
      order('L-buy', 0, [fill(1000, '1', '100', '0.1')]),
      order('L-sell', 61_000, [fill(62_000, '1', '100.3', '0.1')], { side: 'sell', price: '100.3' }),
    ];
    const sim = [
      order('S-buy', 0, [fill(1000, '1', '100', '0.1')]),
      order('S-sell', 61_000, [fill(63_500, '1', '100.3', '0.1')], { side: 'sell', price: '100.3' }),
    ];
    const r = divergence(W, { source: 'l', orders: live }, { source: 's', orders: sim, fillModel: 'queue', latencyMs: 0 }, OPTS);
    expect(r.pnl.map((p) => [p.atMs - T0, p.live, p.sim, p.gap])).toEqual([
      [0, '0', '0', '0'],
      [60_000, '-0.1', '-0.1', '0'],
      // At 63.5 s both sold: 0.3 earned less 0.2 of fees.
      [63_500, '0.1', '0.1', '0'],
    ]);
    expect(r.summary.livePnl).toBe('0.1');
    expect(r.summary.simPnl).toBe('0.1');
    expect(r.summary.matched).toBe(1);
    expect(r.pairs.find((p) => p.live.clientOid === 'L-sell')!.cause).toBe('queue');
  });

  it('spaces the PnL samples of a long session so there are at most a thousand and one, the last at the last event', () => {
    const tenDays = 10 * 86_400_000;
    const live = [order('L-buy', 0, [fill(1000)]), order('L-sell', tenDays, [fill(tenDays + 5000, '1', '101')], { side: 'sell', price: '101' })];
    const r = divergence(W, { source: 'l', orders: live }, { source: 's', orders: [], fillModel: 'queue', latencyMs: 0 }, OPTS);
    expect(r.pnl.length).toBeLessThanOrEqual(1001);
    expect(r.pnl.length).toBeGreaterThan(900);
    expect(r.pnl.at(-1)).toEqual({ atMs: T0 + tenDays + 5000, live: '0.8', sim: '0', gap: '-0.8' });
  });

  it('says it in lines and in a page that escapes what it shows', () => {
    const r = divergence(
      W,
      { source: 'l', orders: [order('L', 0, [], { strategyId: '<b>x</b>' })] },
      { source: 's', orders: [order('S', 0, [], { strategyId: '<b>x</b>' })], fillModel: 'touch', latencyMs: 0 },
      OPTS,
    );
    expect(divergenceSummary(r)).toEqual([
      'live 1 orders (0 fills), simulated 1 orders (0 fills; fills touch, latency 0 ms)',
      'paired 1 (matched 1), live only 0, simulated only 0; causes: none',
      'PnL live 0.00, simulated 0.00, gap 0.00',
    ]);
    const page = renderDivergence(r);
    expect(page).toContain('&#60;b&#62;x&#60;/b&#62;');
    expect(page).not.toContain('<b>x</b>');
    expect(page).toContain('None: every pair agrees.');
  });
});

// The risk rules one by one: each passes an order that meets it and denies one that does not, with its reason
// and detail; the list applies them in the gate's order, the first problem wins.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { OrderSpec } from '../../../src/domain/intent.js';
import type { Instrument } from '../../../src/domain/market.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';
import { LATCH_ORDER_RATE } from '../../../src/execution/latches.js';
import {
  firstProblem,
  haltedRule,
  INTENT_RULES,
  liquidationDistanceRule,
  malformedIntentRule,
  malformedOrderRule,
  maxNotionalOrderRule,
  maxNotionalSymbolRule,
  maxOpenStrategyRule,
  maxOpenSymbolRule,
  maxSizeRule,
  minSizeRule,
  missingPriceRule,
  ORDER_RULES,
  orderRateRule,
  positivePriceRule,
  positiveSizeRule,
  priceBandRule,
  reducingRule,
  referenceProblem,
  referenceRule,
  sideRule,
  stepRule,
  surfaceRule,
  tickRule,
  tooManyOrdersRule,
  unknownSymbolRule,
  type OrderCheck,
  type OrderRule,
  type PlaceIntent,
  type RiskLimits,
} from '../../../src/execution/risk-rules.js';

const d = (s: string) => Decimal.from(s);
const BTC: Instrument = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'BTCUSDT_SPBL')!);
const ETH: Instrument = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'cmt_ethusdt')!);
const LIMITS: RiskLimits = {
  maxNotionalPerOrder: d('10000'),
  maxNotionalPerSymbol: d('25000'),
  maxOpenOrdersPerSymbol: 3,
  maxOpenOrdersPerStrategy: 4,
  priceBandPct: d('2'),
  staleAfterMs: 5000,
  maxOrdersPerMinute: 6,
  maxDrawdownPct: d('10'),
  maxOrdersPerIntent: 10,
  outlierPct: d('20'),
};
const buy = (price: string, size = '0.01'): OrderSpec => ({ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d(price), size: d(size) });
const sell = (price: string, size = '0.01'): OrderSpec => ({ side: 'sell', kind: 'limit', timeInForce: 'gtc', price: d(price), size: d(size) });
const spot = (...orders: OrderSpec[]): PlaceIntent => ({ kind: 'place', strategyId: 's1', surface: 'spot', symbol: BTC.symbol, orders });

/** A check every rule passes: a fine spot buy near the reference, nothing open, nothing sent. */
function check(over: Partial<OrderCheck> = {}): OrderCheck {
  const order = over.order ?? buy('89900');
  return {
    order,
    intent: spot(order),
    limits: LIMITS,
    state: 'active',
    haltReason: () => undefined,
    instrument: BTC,
    reference: { price: d('90000'), atMs: 99_000 },
    referenceProblem: undefined,
    openCount: 0,
    openCountByStrategy: 0,
    openNotional: Decimal.ZERO,
    sentCount: 0,
    account: { positions: [], balances: [], positionsAtMs: null, balancesAtMs: null, liquidation: null },
    ...over,
  };
}

const cases: Array<{ name: string; rule: OrderRule; denied: Partial<OrderCheck>; reason: string; detail: string | RegExp }> = [
  {
    name: 'malformed order',
    rule: malformedOrderRule,
    denied: { order: { ...buy('89900'), kind: 'stop' } as unknown as OrderSpec },
    reason: 'malformed-order',
    detail: /kind "stop"/,
  },
  {
    name: 'halted',
    rule: haltedRule,
    denied: { state: 'halted', haltReason: () => 'kill-switch:drawdown: drawdown 12 % from peak 100' },
    reason: 'halted',
    detail: 'kill-switch:drawdown: drawdown 12 % from peak 100',
  },
  { name: 'halted by the operator (no latch)', rule: haltedRule, denied: { state: 'halted' }, reason: 'halted', detail: 'trading halted' },
  { name: 'reducing', rule: reducingRule, denied: { state: 'reducing' }, reason: 'reducing', detail: 'only orders that reduce exposure are allowed' },
  { name: 'unknown symbol', rule: unknownSymbolRule, denied: { instrument: undefined }, reason: 'unknown-symbol', detail: BTC.symbol },
  { name: 'surface', rule: surfaceRule, denied: { instrument: ETH }, reason: 'malformed-order', detail: `${BTC.symbol} is a futures symbol, not spot` },
  {
    name: 'reference problem',
    rule: referenceRule,
    denied: { referenceProblem: { reason: 'stale-price', detail: 'old' } },
    reason: 'stale-price',
    detail: 'old',
  },
  { name: 'no reference', rule: referenceRule, denied: { reference: undefined }, reason: 'no-reference-price', detail: BTC.symbol },
  {
    name: 'futures side',
    rule: sideRule,
    denied: { order: { ...buy('3000'), positionSide: 'short' }, intent: { ...spot(), surface: 'futures', symbol: ETH.symbol }, instrument: ETH },
    reason: 'side-mismatch',
    detail: 'buy cannot open a short position',
  },
  {
    name: 'liquidation distance',
    rule: liquidationDistanceRule,
    denied: {
      order: { ...buy('3000'), positionSide: 'long' },
      intent: { ...spot(), surface: 'futures', symbol: ETH.symbol },
      instrument: ETH,
      limits: { ...LIMITS, minLiquidationDistancePct: d('5') },
      account: {
        positions: [],
        balances: [],
        positionsAtMs: null,
        balancesAtMs: null,
        liquidation: {
          distances: [{ symbol: ETH.symbol, side: 'long', mark: d('3000'), liquidationPrice: d('2900'), distancePct: d('3.333333'), source: 'venue' }],
          marginRate: null,
          maintenanceRate: null,
          atMs: 1,
        },
      },
    },
    reason: 'liquidation-distance',
    detail: `${ETH.symbol} long: mark 3000 is 3.333333 % from liquidation at 2900 (minimum 5 %): only reduce-only orders`,
  },
  { name: 'non-positive size', rule: positiveSizeRule, denied: { order: buy('89900', '0') }, reason: 'non-positive-size', detail: 'size 0' },
  { name: 'non-positive price', rule: positivePriceRule, denied: { order: buy('-1') }, reason: 'non-positive-price', detail: 'price -1' },
  { name: 'step', rule: stepRule, denied: { order: buy('89900', '0.0000015') }, reason: 'off-step', detail: /^size 0.0000015 is not a multiple of / },
  { name: 'min size', rule: minSizeRule, denied: { order: buy('89900', '0.000001') }, reason: 'below-min-size', detail: /^0.000001 < / },
  { name: 'max size', rule: maxSizeRule, denied: { instrument: { ...BTC, maxSize: d('0.001') } }, reason: 'above-max-size', detail: '0.01 > 0.001' },
  {
    name: 'missing price',
    rule: missingPriceRule,
    denied: { order: { side: 'buy', kind: 'limit', timeInForce: 'gtc', size: d('0.01') } },
    reason: 'missing-price',
    detail: 'a limit order needs a price',
  },
  { name: 'tick', rule: tickRule, denied: { order: buy('89900.05') }, reason: 'off-tick', detail: /^price 89900.05 is not a multiple of / },
  {
    name: 'price band',
    rule: priceBandRule,
    denied: { order: buy('80000') },
    reason: 'price-band',
    detail: /^price 80000 is 11.11111111 % from 90000 \(band 2 %\)$/,
  },
  { name: 'notional per order', rule: maxNotionalOrderRule, denied: { order: buy('89000', '0.2') }, reason: 'max-notional-order', detail: '17800 > 10000' },
  { name: 'notional per symbol', rule: maxNotionalSymbolRule, denied: { openNotional: d('24500') }, reason: 'max-notional-symbol', detail: '25399 > 25000' },
  { name: 'open orders per symbol', rule: maxOpenSymbolRule, denied: { openCount: 3 }, reason: 'max-open-orders-symbol', detail: '4 > 3' },
  { name: 'open orders per strategy', rule: maxOpenStrategyRule, denied: { openCountByStrategy: 4 }, reason: 'max-open-orders-strategy', detail: '5 > 4' },
  { name: 'order rate', rule: orderRateRule, denied: { sentCount: 6 }, reason: 'order-rate', detail: 'more than 6 orders in a minute: halted' },
];

describe('risk rules, one by one', () => {
  it('every order rule is in the list, once', () => {
    const tested = new Set(cases.map((c) => c.rule));
    expect(ORDER_RULES).toHaveLength(tested.size);
    for (const rule of ORDER_RULES) expect(tested.has(rule)).toBe(true);
  });

  for (const c of cases) {
    it(`${c.name}: passes a good order, denies a bad one`, () => {
      expect(c.rule(check())).toBeUndefined();
      const problem = c.rule(check(c.denied));
      expect(problem?.reason).toBe(c.reason);
      if (typeof c.detail === 'string') expect(problem?.detail).toBe(c.detail);
      else expect(problem?.detail).toMatch(c.detail);
    });
  }

  it('the order-rate rule names the latch it trips; no other rule latches', () => {
    expect(orderRateRule(check({ sentCount: 6 }))?.latch).toEqual({ name: LATCH_ORDER_RATE, reason: 'more than 6 orders in a minute' });
    expect(orderRateRule(check({ sentCount: 5 }))).toBeUndefined();
    for (const c of cases.filter((x) => x.rule !== orderRateRule)) expect(c.rule(check(c.denied))?.latch).toBeUndefined();
  });

  it('reducing passes an order that shrinks exposure (a spot sell; a futures close)', () => {
    expect(reducingRule(check({ state: 'reducing', order: sell('90100') }))).toBeUndefined();
    const close: OrderSpec = { ...sell('3000'), positionSide: 'long', reduceOnly: true };
    expect(reducingRule(check({ state: 'reducing', order: close, intent: { ...spot(), surface: 'futures', symbol: ETH.symbol } }))).toBeUndefined();
  });

  it('market orders skip the price rules and are valued at the reference', () => {
    const market: OrderSpec = { side: 'buy', kind: 'market', timeInForce: 'ioc', price: d('1'), size: d('0.5') };
    expect(missingPriceRule(check({ order: { ...market, price: undefined } as OrderSpec }))).toBeUndefined();
    expect(tickRule(check({ order: { ...market, price: d('1.005') } }))).toBeUndefined();
    expect(priceBandRule(check({ order: market }))).toBeUndefined();
    expect(maxNotionalOrderRule(check({ order: market }))?.detail).toBe('45000 > 10000');
  });

  it('orders that reduce exposure do not count towards the symbol notional; open-order caps count limit orders only', () => {
    expect(maxNotionalSymbolRule(check({ order: sell('89900', '0.1'), openNotional: d('25000') }))).toBeUndefined();
    const market: OrderSpec = { side: 'buy', kind: 'market', timeInForce: 'ioc', size: d('0.01') };
    expect(maxOpenSymbolRule(check({ order: market, openCount: 3 }))).toBeUndefined();
    expect(maxOpenStrategyRule(check({ order: market, openCountByStrategy: 4 }))).toBeUndefined();
  });

  it('the list applies the rules in order: the first problem is the denial', () => {
    // Off the tick and outside the band, while halted: halted is checked first.
    expect(firstProblem(ORDER_RULES, check({ order: buy('80000.05'), state: 'halted' }))?.reason).toBe('halted');
    expect(firstProblem(ORDER_RULES, check({ order: buy('80000.05') }))?.reason).toBe('off-tick');
    expect(firstProblem(ORDER_RULES, check())).toBeUndefined();
  });
});

describe('risk rules of a whole intent, and the reference price', () => {
  it('a malformed intent and one with too many orders are refused whole', () => {
    expect(malformedIntentRule(spot(buy('1')), LIMITS)).toBeUndefined();
    expect(malformedIntentRule({ ...spot(), orders: 'all' as unknown as OrderSpec[] }, LIMITS)?.reason).toBe('malformed-order');
    expect(tooManyOrdersRule(spot(...Array.from({ length: 10 }, () => buy('1'))), LIMITS)).toBeUndefined();
    expect(tooManyOrdersRule(spot(...Array.from({ length: 11 }, () => buy('1'))), LIMITS)).toEqual({
      reason: 'too-many-orders',
      detail: '11 orders in one intent (limit 10)',
    });
    expect(INTENT_RULES).toEqual([malformedIntentRule, tooManyOrdersRule]);
  });

  it("a reference is a problem when missing, not positive, stale by its poll or by the venue's own timestamp", () => {
    expect(referenceProblem('X', { price: d('1'), atMs: 99_000 }, 100_000, 5000)).toBeUndefined();
    expect(referenceProblem('X', undefined, 100_000, 5000)).toEqual({ reason: 'no-reference-price', detail: 'X: no trusted price' });
    expect(referenceProblem('X', { price: d('0'), atMs: 99_000 }, 100_000, 5000)).toEqual({
      reason: 'no-reference-price',
      detail: 'X: reference price 0 is not positive',
    });
    expect(referenceProblem('X', { price: d('1'), atMs: 90_000 }, 100_000, 5000)).toEqual({
      reason: 'stale-price',
      detail: 'reference price is 10000 ms old (limit 5000 ms)',
    });
    expect(referenceProblem('X', { price: d('1'), atMs: 99_000, sourceAdvancedAtMs: 60_000 }, 100_000, 5000)?.detail).toBe(
      "the venue's own timestamp has not advanced for 40000 ms (limit 5000 ms)",
    );
  });
});

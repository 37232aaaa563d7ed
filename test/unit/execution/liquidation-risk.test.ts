// The risk gate near liquidation: orders that add to a futures position are denied while a position of the
// contract is closer than risk.minLiquidationDistancePct to its liquidation price (denials journaled as any other
// by the executor), and a distance below risk.reduceLiquidationDistancePct latches reducing until a reset; both
// absent by default. The operator's kill order latches halted the same way.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Intent, OrderSpec } from '../../../src/domain/intent.js';
import type { Instrument } from '../../../src/domain/market.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';
import { Executor } from '../../../src/execution/executor.js';
import { liquidationDistanceRule, type OrderCheck } from '../../../src/execution/risk-rules.js';
import type { LiquidationDistance, LiquidationView } from '../../../src/execution/liquidation-watch.js';
import { LATCH_KILL_OPERATOR, LATCH_REDUCE_LIQUIDATION, RiskGate, type RiskContext, type RiskLimits } from '../../../src/execution/risk.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import type { ExchangeClient } from '../../../src/exchange/client.js';
import { ManualClock } from '../../../src/util/clock.js';
import { createLogger } from '../../../src/util/logger.js';

const d = (s: string) => Decimal.from(s);
const dir = mkdtempSync(join(tmpdir(), 'sextant-liquidation-risk-'));
const BTC: Instrument = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'cmt_btcusdt')!);
const ETH: Instrument = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'cmt_ethusdt')!);
const LIMITS: RiskLimits = {
  maxNotionalPerOrder: d('100000'),
  maxNotionalPerSymbol: d('250000'),
  maxOpenOrdersPerSymbol: 30,
  maxOpenOrdersPerStrategy: 40,
  priceBandPct: d('2'),
  staleAfterMs: 5000,
  maxOrdersPerMinute: 60,
  maxDrawdownPct: d('10'),
  maxOrdersPerIntent: 10,
  outlierPct: d('20'),
};
const GUARDED: RiskLimits = { ...LIMITS, minLiquidationDistancePct: d('5'), reduceLiquidationDistancePct: d('2') };

const ctx: RiskContext = {
  now: 100_000,
  instrument: (s) => [BTC, ETH].find((i) => i.symbol === s),
  reference: (s) => ({ price: s === BTC.symbol ? d('50000') : d('3000'), atMs: 99_000 }),
  openCount: () => 0,
  openCountByStrategy: () => 0,
  openNotional: () => Decimal.ZERO,
};
const open = (side: 'buy' | 'sell', price: string): OrderSpec => ({
  side,
  kind: 'limit',
  timeInForce: 'gtc',
  price: d(price),
  size: d('0.01'),
  positionSide: side === 'buy' ? 'long' : 'short',
  reduceOnly: false,
});
const close = (side: 'buy' | 'sell', price: string): OrderSpec => ({
  side,
  kind: 'limit',
  timeInForce: 'gtc',
  price: d(price),
  size: d('0.01'),
  positionSide: side === 'sell' ? 'long' : 'short',
  reduceOnly: true,
});
const place = (symbol: string, ...orders: OrderSpec[]): Extract<Intent, { kind: 'place' }> => ({
  kind: 'place',
  strategyId: 's1',
  surface: 'futures',
  symbol,
  orders,
});

const distance = (symbol: string, pct: string, over: Partial<LiquidationDistance> = {}): LiquidationDistance => ({
  symbol,
  side: 'long',
  mark: d('50000'),
  liquidationPrice: d('48000'),
  distancePct: d(pct),
  source: 'estimate',
  ...over,
});
const view = (atMs: number, ...distances: LiquidationDistance[]): LiquidationView => ({ distances, marginRate: null, maintenanceRate: null, atMs });

let files = 0;
function gate(limits: RiskLimits, clock = new ManualClock(100_000)) {
  const file = join(dir, `gate-${files++}.sqlite`);
  const journal = new SqliteJournal(file, { clientOidPrefix: 'sx' });
  const risk = new RiskGate(limits, journal, clock);
  const told: Array<{ state: string; reason: string }> = [];
  risk.tradingStates$.subscribe((e) => told.push({ state: e.state, reason: e.reason }));
  return { file, journal, risk, told, clock };
}

describe('the liquidation-distance rule', () => {
  const check = (over: Partial<OrderCheck>): OrderCheck => ({
    order: open('buy', '50000'),
    intent: place(BTC.symbol),
    limits: GUARDED,
    state: 'active',
    haltReason: () => undefined,
    instrument: BTC,
    reference: { price: d('50000'), atMs: 99_000 },
    referenceProblem: undefined,
    openCount: 0,
    openCountByStrategy: 0,
    openNotional: Decimal.ZERO,
    sentCount: 0,
    account: { positions: [], balances: [], positionsAtMs: null, balancesAtMs: null, liquidation: view(1, distance(BTC.symbol, '4')) },
    ...over,
  });

  it('denies an opening order on the contract of a position closer than the minimum, naming both', () => {
    expect(liquidationDistanceRule(check({}))).toEqual({
      reason: 'liquidation-distance',
      detail: 'cmt_btcusdt long: mark 50000 is 4 % from liquidation at 48000 (minimum 5 %): only reduce-only orders',
    });
    // An opening sell (a short) adds exposure just as well.
    expect(liquidationDistanceRule(check({ order: open('sell', '50000') }))?.reason).toBe('liquidation-distance');
  });

  it('passes a reduce-only order, another contract, a position at the minimum or further, a spot order, and any order without the limit', () => {
    expect(liquidationDistanceRule(check({ order: close('sell', '50000') }))).toBeUndefined();
    expect(liquidationDistanceRule(check({ intent: place(ETH.symbol), instrument: ETH }))).toBeUndefined();
    expect(
      liquidationDistanceRule(
        check({ account: { positions: [], balances: [], positionsAtMs: null, balancesAtMs: null, liquidation: view(1, distance(BTC.symbol, '5')) } }),
      ),
    ).toBeUndefined();
    expect(liquidationDistanceRule(check({ intent: { ...place('BTCUSDT_SPBL'), surface: 'spot' } }))).toBeUndefined();
    expect(liquidationDistanceRule(check({ limits: LIMITS }))).toBeUndefined();
    // Nothing worked out yet, or no liquidation price: nothing to deny on.
    expect(
      liquidationDistanceRule(check({ account: { positions: [], balances: [], positionsAtMs: null, balancesAtMs: null, liquidation: null } })),
    ).toBeUndefined();
    expect(
      liquidationDistanceRule(
        check({
          account: {
            positions: [],
            balances: [],
            positionsAtMs: null,
            balancesAtMs: null,
            liquidation: view(1, distance(BTC.symbol, '0', { liquidationPrice: null, distancePct: null })),
          },
        }),
      ),
    ).toBeUndefined();
  });

  it('the closest position of the contract decides (hedged: long and short)', () => {
    const both = view(1, distance(BTC.symbol, '9'), distance(BTC.symbol, '3', { side: 'short', liquidationPrice: d('51500') }));
    expect(
      liquidationDistanceRule(check({ account: { positions: [], balances: [], positionsAtMs: null, balancesAtMs: null, liquidation: both } }))?.detail,
    ).toMatch(/^cmt_btcusdt short: mark 50000 is 3 % from liquidation at 51500/);
  });
});

describe('the gate near liquidation', () => {
  it('denies opening orders on that contract while the distance is short, passes closes and other contracts, and follows the distance back', () => {
    const g = gate({ ...LIMITS, minLiquidationDistancePct: d('5') });
    g.risk.observeLiquidation(view(100_000, distance(BTC.symbol, '4.5')));
    const r = g.risk.checkPlace(place(BTC.symbol, open('buy', '50000'), close('sell', '50000')), ctx);
    expect(r.denials.map((x) => x.reason)).toEqual(['liquidation-distance']);
    expect(r.allowed).toEqual([close('sell', '50000')]);
    expect(g.risk.checkPlace(place(ETH.symbol, open('buy', '3000')), ctx).denials).toEqual([]);
    // No reducing latch without its threshold.
    expect(g.risk.state()).toBe('active');
    g.risk.observeLiquidation(view(100_001, distance(BTC.symbol, '6')));
    expect(g.risk.checkPlace(place(BTC.symbol, open('buy', '50000')), ctx).denials).toEqual([]);
    g.journal.close();
  });

  it('the executor journals the denial as any other risk decision, and sends nothing', async () => {
    const g = gate({ ...LIMITS, minLiquidationDistancePct: d('5') });
    g.risk.observeLiquidation(view(100_000, distance(BTC.symbol, '1')));
    const sent: string[] = [];
    const client = new Proxy({}, { get: (_, name) => async () => void sent.push(String(name)) }) as unknown as ExchangeClient;
    const executor = new Executor({
      client,
      journal: g.journal,
      risk: g.risk,
      clock: g.clock,
      logger: createLogger({ level: 'silent' }),
      instruments: new Map([[BTC.symbol, BTC]]),
      reference: ctx.reference,
    });
    executor.unfence();
    const events = await executor.submit(place(BTC.symbol, open('buy', '50000')));
    expect(events.map((e) => (e.type === 'denied' ? [e.type, e.reason] : [e.type]))).toEqual([['denied', 'liquidation-distance']]);
    expect(g.journal.riskDecisions()).toEqual([
      {
        strategyId: 's1',
        reason: 'liquidation-distance',
        detail: expect.stringMatching(/^cmt_btcusdt long: mark 50000 is 1 % from liquidation at 48000/),
        atMs: 100_000,
      },
    ]);
    expect(sent).toEqual([]);
    g.journal.close();
  });

  it('a distance below reduceLiquidationDistancePct latches reducing, once; it holds across a restart until a reset', () => {
    const g = gate(GUARDED);
    g.risk.observeLiquidation(view(100_000, distance(BTC.symbol, '2')));
    expect(g.risk.state()).toBe('active'); // at the threshold: not below it
    g.clock.set(100_500);
    g.risk.observeLiquidation(view(100_500, distance(ETH.symbol, '1.5', { mark: d('3000'), liquidationPrice: d('2955') })));
    expect(g.risk.state()).toBe('reducing');
    const reason = 'cmt_ethusdt long: mark 3000 is 1.5 % from liquidation at 2955 (below 2 %)';
    expect(g.risk.reduceReason()).toBe(`${LATCH_REDUCE_LIQUIDATION}: ${reason}`);
    expect(g.journal.latch(LATCH_REDUCE_LIQUIDATION)).toEqual({ name: LATCH_REDUCE_LIQUIDATION, reason, atMs: 100_500 });
    g.risk.observeLiquidation(view(100_600, distance(ETH.symbol, '0.5')));
    g.risk.observeLiquidation(view(100_700, distance(ETH.symbol, '9')));
    expect(g.told).toEqual([{ state: 'reducing', reason: `${LATCH_REDUCE_LIQUIDATION}: ${reason}` }]);
    // Reducing: a close passes, an open is denied (as reducing: that rule comes first), on every contract.
    expect(g.risk.checkPlace(place(BTC.symbol, open('buy', '50000'), close('sell', '50000')), ctx).denials.map((x) => x.reason)).toEqual(['reducing']);
    g.journal.close();

    // A restart: the latch is found in the journal, with its reason, whatever the distance now.
    const again = new RiskGate(GUARDED, new SqliteJournal(g.file, { clientOidPrefix: 'sx' }), new ManualClock(200_000));
    expect(again.state()).toBe('reducing');
    again.reset();
    expect(again.state()).toBe('active');
    // Still too close: it latches again at the next reading.
    again.observeLiquidation(view(200_001, distance(ETH.symbol, '1')));
    expect(again.state()).toBe('reducing');
  });

  it('without the thresholds nothing latches and nothing is denied, however close', () => {
    const g = gate(LIMITS);
    g.risk.observeLiquidation(view(100_000, distance(BTC.symbol, '0')));
    expect(g.risk.state()).toBe('active');
    expect(g.risk.checkPlace(place(BTC.symbol, open('buy', '50000')), ctx).denials).toEqual([]);
    expect(g.risk.account().liquidation?.distances).toHaveLength(1);
    g.journal.close();
  });

  it('the account snapshot keeps the distances as positions and balances come in', () => {
    const g = gate(GUARDED);
    g.risk.observeLiquidation(view(100_000, distance(BTC.symbol, '7')));
    g.risk.observeAccount({ positions: [], atMs: 100_001 });
    expect(g.risk.account().liquidation?.atMs).toBe(100_000);
    expect(g.risk.account().positionsAtMs).toBe(100_001);
    g.journal.close();
  });
});

describe("the operator's kill order", () => {
  it('latches halted with its reason (kept in the journal, told once); a blank reason is refused; a reset clears it', () => {
    const g = gate(LIMITS);
    expect(() => g.risk.kill('  ')).toThrow(RangeError);
    expect(g.risk.state()).toBe('active');
    g.risk.kill('  venue incident  ');
    g.risk.kill('again');
    expect(g.risk.state()).toBe('halted');
    expect(g.risk.latchReason()).toBe(`${LATCH_KILL_OPERATOR}: venue incident`);
    expect(g.journal.latch(LATCH_KILL_OPERATOR)).toEqual({ name: LATCH_KILL_OPERATOR, reason: 'venue incident', atMs: 100_000 });
    expect(g.told).toEqual([{ state: 'halted', reason: `${LATCH_KILL_OPERATOR}: venue incident` }]);
    expect(g.risk.checkPlace(place(BTC.symbol, close('sell', '50000')), ctx).denials.map((x) => x.reason)).toEqual(['halted']);
    g.risk.reset();
    expect(g.risk.state()).toBe('active');
    expect(g.journal.latch(LATCH_KILL_OPERATOR)).toBeUndefined();
    g.journal.close();
  });
});

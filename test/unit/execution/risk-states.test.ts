// Trading states of the risk gate: reducing by a drawdown threshold and by an operator's reduce order, both kept
// in the journal until a reset (across a restart, and from another process); what is told on tradingStates$;
// the account the rules see; the configuration of the reducing threshold.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseConfig } from '../../../src/config/load.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Intent, OrderSpec } from '../../../src/domain/intent.js';
import type { Balance, Instrument, Position } from '../../../src/domain/market.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';
import { LATCH_REDUCE_OPERATOR, RiskGate, type RiskContext, type RiskLimits } from '../../../src/execution/risk.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';

const d = (s: string) => Decimal.from(s);
const dir = mkdtempSync(join(tmpdir(), 'sextant-risk-states-'));
const BTC: Instrument = toInstrument(DEFAULT_INSTRUMENTS.find((s) => s.symbol === 'BTCUSDT_SPBL')!);
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
const REDUCING_AT_5: RiskLimits = { ...LIMITS, reduceDrawdownPct: d('5') };

const ctx: RiskContext = {
  now: 100_000,
  instrument: (s) => (s === BTC.symbol ? BTC : undefined),
  reference: () => ({ price: d('90000'), atMs: 99_000 }),
  openCount: () => 0,
  openCountByStrategy: () => 0,
  openNotional: () => Decimal.ZERO,
};
const buy: OrderSpec = { side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d('89900'), size: d('0.01') };
const sell: OrderSpec = { side: 'sell', kind: 'limit', timeInForce: 'gtc', price: d('90100'), size: d('0.01') };
const place = (...orders: OrderSpec[]): Extract<Intent, { kind: 'place' }> => ({
  kind: 'place',
  strategyId: 's1',
  surface: 'spot',
  symbol: BTC.symbol,
  orders,
});
const reasons = (gate: RiskGate, ...orders: OrderSpec[]) => gate.checkPlace(place(...orders), ctx).denials.map((x) => x.reason);

let files = 0;
function gate(limits: RiskLimits = LIMITS, file = join(dir, `gate-${files++}.sqlite`), clockMs?: number) {
  const journal = new SqliteJournal(file, { clientOidPrefix: 'sx' });
  const risk = new RiskGate(limits, journal, clockMs === undefined ? undefined : { now: () => clockMs });
  const told: Array<{ atMs: number; state: string; reason: string }> = [];
  risk.tradingStates$.subscribe((e) => told.push({ atMs: e.atMs, state: e.state, reason: e.reason }));
  return { file, journal, risk, told };
}

describe('reducing by a drawdown threshold (risk.reduceDrawdownPct)', () => {
  it('at the threshold the gate reduces; at maxDrawdownPct it halts; each is told once; a reset clears both', () => {
    const g = gate(REDUCING_AT_5);
    expect(g.risk.onEquity(d('1000'), 1)).toBe(false);
    expect(g.risk.onEquity(d('950.01'), 2)).toBe(false);
    expect(g.risk.state()).toBe('active');
    expect(g.risk.onEquity(d('950'), 3)).toBe(false); // 5 %: reducing, not a kill switch
    expect(g.risk.state()).toBe('reducing');
    expect(g.risk.reduceReason()).toBe('reduce:drawdown: drawdown 5 % from peak 1000');
    expect(g.risk.latchReason()).toBeUndefined();
    expect(reasons(g.risk, buy, sell)).toEqual(['reducing']);
    expect(g.risk.onEquity(d('940'), 4)).toBe(false);
    expect(g.told).toEqual([{ atMs: 3, state: 'reducing', reason: 'reduce:drawdown: drawdown 5 % from peak 1000' }]);
    expect(g.risk.onEquity(d('900'), 5)).toBe(true);
    expect(g.risk.state()).toBe('halted');
    expect(reasons(g.risk, sell)).toEqual(['halted']);
    expect(g.told.slice(1)).toEqual([{ atMs: 5, state: 'halted', reason: 'kill-switch:drawdown: drawdown 10 % from peak 1000' }]);
    g.risk.reset();
    expect(g.risk.state()).toBe('active');
    expect(g.told.slice(2)).toEqual([
      // No clock: the latest time the gate was given (the check of the orders above).
      { atMs: 100_000, state: 'active', reason: 'kill-switch:drawdown reset' },
      { atMs: 100_000, state: 'active', reason: 'reduce:drawdown reset' },
    ]);
    // The peak starts afresh: the next reading is the peak, nothing latches again at once.
    expect(g.risk.onEquity(d('900'), 6)).toBe(false);
    expect(g.risk.state()).toBe('active');
    g.journal.close();
  });

  it('without the threshold there is no reducing stage (the drawdown only halts)', () => {
    const g = gate(LIMITS);
    g.risk.onEquity(d('1000'), 1);
    expect(g.risk.onEquity(d('901'), 2)).toBe(false);
    expect(g.risk.state()).toBe('active');
    expect(g.told).toEqual([]);
    expect(g.risk.onEquity(d('900'), 3)).toBe(true);
    expect(g.told).toEqual([{ atMs: 3, state: 'halted', reason: 'kill-switch:drawdown: drawdown 10 % from peak 1000' }]);
    g.journal.close();
  });

  it('the reducing latch survives a restart until reset', () => {
    const a = gate(REDUCING_AT_5);
    a.risk.onEquity(d('1000'), 1);
    a.risk.onEquity(d('940'), 2);
    a.journal.close();
    const b = gate(REDUCING_AT_5, a.file, 7000);
    expect(b.risk.state()).toBe('reducing');
    expect(b.told).toEqual([{ atMs: 7000, state: 'reducing', reason: 'reduce:drawdown: drawdown 6 % from peak 1000' }]);
    b.risk.reset();
    expect(b.risk.state()).toBe('active');
    b.journal.close();
  });
});

describe('reducing by an operator (reduce)', () => {
  it('reduces until reset, is told, and is kept in the journal with its reason', () => {
    const g = gate(LIMITS, undefined, 42);
    g.risk.reduce('  venue maintenance at 18:00 ');
    expect(g.risk.state()).toBe('reducing');
    expect(g.journal.latch(LATCH_REDUCE_OPERATOR)).toMatchObject({ reason: 'venue maintenance at 18:00', atMs: 42 });
    expect(reasons(g.risk, buy, sell)).toEqual(['reducing']);
    g.risk.reduce('again');
    expect(g.told).toEqual([{ atMs: 42, state: 'reducing', reason: 'reduce:operator: venue maintenance at 18:00' }]);
    g.risk.reset();
    expect(g.risk.state()).toBe('active');
    expect(g.journal.latch(LATCH_REDUCE_OPERATOR)).toBeUndefined();
    expect(g.told.slice(1)).toEqual([{ atMs: 42, state: 'active', reason: 'reduce:operator reset' }]);
    expect(reasons(g.risk, buy)).toEqual([]);
    g.journal.close();
  });

  it('refuses a reduce order without a reason', () => {
    const g = gate();
    expect(() => g.risk.reduce('  ')).toThrow(/needs a reason/);
    expect(g.risk.state()).toBe('active');
    g.journal.close();
  });

  it('a reduce order survives a restart: the new gate finds it, tells it, and keeps reducing until reset', () => {
    const a = gate();
    a.risk.reduce('manual');
    a.journal.close();
    const b = gate(LIMITS, a.file, 9000);
    expect(b.risk.state()).toBe('reducing');
    expect(b.risk.reduceReason()).toBe('reduce:operator: manual');
    expect(b.told).toEqual([{ atMs: 9000, state: 'reducing', reason: 'reduce:operator: manual' }]);
    b.risk.reset();
    b.journal.close();
    const c = gate(LIMITS, a.file);
    expect(c.risk.state()).toBe('active');
    c.journal.close();
  });

  it('a reduce order and its reset from another process (the CLI) reach a running gate', () => {
    const daemon = gate();
    daemon.risk.recordSent(0, 50_000);
    const cli = gate(LIMITS, daemon.file);
    cli.risk.reduce('from the command line');
    expect(reasons(daemon.risk, buy, sell)).toEqual(['reducing']);
    expect(daemon.told).toEqual([{ atMs: 100_000, state: 'reducing', reason: 'reduce:operator: from the command line' }]);
    cli.risk.reset();
    cli.journal.close();
    expect(daemon.risk.state()).toBe('active');
    expect(daemon.told.slice(1)).toEqual([{ atMs: 100_000, state: 'active', reason: 'reduce:operator reset' }]);
    daemon.journal.close();
  });

  it("halted wins over reducing: a kill switch, or the operator's halted setting", () => {
    const g = gate(LIMITS, undefined, 5);
    g.risk.reduce('wind down');
    g.risk.onEquity(d('1000'), 1);
    expect(g.risk.onEquity(d('850'), 2)).toBe(true);
    expect(g.risk.state()).toBe('halted');
    expect(g.told.map((e) => `${e.state} ${e.reason}`)).toEqual([
      'reducing reduce:operator: wind down',
      'halted kill-switch:drawdown: drawdown 15 % from peak 1000',
    ]);
    g.risk.reset();
    g.risk.setState('halted');
    g.risk.reduce('wind down');
    expect(g.risk.state()).toBe('halted');
    expect(g.told.at(-1)).toEqual({ atMs: 5, state: 'halted', reason: 'reduce:operator: wind down' });
    g.risk.setState('active');
    expect(g.risk.state()).toBe('reducing');
    expect(g.told.at(-1)).toEqual({ atMs: 5, state: 'reducing', reason: 'operator set active' });
    g.journal.close();
  });
});

describe('the account the rules see', () => {
  it('keeps the latest positions and balances, each with its time; a part left out is kept', () => {
    const g = gate();
    expect(g.risk.account()).toEqual({ positions: [], balances: [], positionsAtMs: null, balancesAtMs: null, liquidation: null });
    const position = { symbol: 'cmt_btcusdt', side: 'long', size: d('0.01') } as Position;
    const balance = { surface: 'spot', asset: 'USDT', available: d('10'), frozen: d('0'), total: d('10') } as Balance;
    g.risk.observeAccount({ positions: [position], atMs: 10 });
    g.risk.observeAccount({ balances: [balance], atMs: 20 });
    expect(g.risk.account()).toEqual({ positions: [position], balances: [balance], positionsAtMs: 10, balancesAtMs: 20, liquidation: null });
    g.risk.observeAccount({ positions: [], atMs: 30 });
    expect(g.risk.account()).toEqual({ positions: [], balances: [balance], positionsAtMs: 30, balancesAtMs: 20, liquidation: null });
    g.journal.close();
  });
});

describe('configuration: risk.reduceDrawdownPct', () => {
  const load = (risk: string) => parseConfig(`risk: { ${risk} }\n`, 'risk.yaml', {});
  it('is optional; when set it must be below maxDrawdownPct', () => {
    expect(load('maxDrawdownPct: "10"').config.risk.reduceDrawdownPct).toBeUndefined();
    expect(load('maxDrawdownPct: "10", reduceDrawdownPct: "7.5"').config.risk.reduceDrawdownPct).toBe('7.5');
    for (const bad of ['reduceDrawdownPct: "10"', 'reduceDrawdownPct: "12", maxDrawdownPct: "10"']) {
      let error: unknown;
      try {
        load(bad);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues).toEqual([
        expect.objectContaining({ path: 'risk.reduceDrawdownPct', message: expect.stringMatching(/must be below maxDrawdownPct \(10\)/) }),
      ]);
    }
  });
});

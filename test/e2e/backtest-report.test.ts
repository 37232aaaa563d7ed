// Backtests in this process (strategies loaded through Jest): the shipped sample behaves (no post-only storm, no
// close above the position, trading from the first update), the strategy's PnL stands apart from buy-and-hold, a
// strategy fault fails the run and shows in its report, and strategy logs carry the virtual time.
import '../fixtures/backtest-in-jest.js';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import Database from '../../src/journal/sqlite-driver.js';
import { parseDocument } from 'yaml';
import { Decimal } from '../../src/domain/decimal.js';

const { loadConfig } = await import('../../src/config/load.js');
const backtest = await import('../../src/app/backtest.js');
const { createLogger, silentLogger } = await import('../../src/util/logger.js');

const dir = mkdtempSync(join(tmpdir(), 'sextant-btr-'));
const SAMPLE = 'data/sample/ticks.jsonl';
const START = Date.parse('2026-01-05T00:00:01Z');

/** config/backtest.yaml with changes; returns its file. */
function config(name: string, change: (doc: ReturnType<typeof parseDocument>) => void): string {
  const doc = parseDocument(readFileSync('config/backtest.yaml', 'utf8'));
  doc.setIn(['backtest', 'data'], resolve(SAMPLE));
  change(doc);
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, doc.toString());
  return file;
}

function csv(file: string): string[][] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));
}

interface Report {
  metrics: Record<string, string | number>;
  strategies: Array<{ id: string; pnl: { pnl: string; fills: number }; trades: { trades: number; open: number }; rejected: Record<string, number> }>;
  rejected: Record<string, number>;
  denied: Record<string, number>;
  faults: Array<{ strategy: string; atMs: number; at: string; hook: string; error: string; reason: string }>;
}
const report = (out: string) => JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;

describe('the shipped sample (config/backtest.yaml)', () => {
  const out = join(dir, 'sample');
  let journal: Database.Database;
  // What the output folder and its parent hold as the run ends (before the spilled lists are merged).
  let during: { parent: string[]; out: string[] } | undefined;
  beforeAll(async () => {
    const onProgress = (done: number, total: number) => {
      if (done === total && total > 0)
        during = {
          parent: readdirSync(dir).filter((f) => f.endsWith('.part')),
          out: readdirSync(out)
            .filter((f) => f.endsWith('.part'))
            .sort(),
        };
    };
    await backtest.runBacktest(loadConfig('config/backtest.yaml', {}), silentLogger, { outDir: out, onProgress });
    journal = new Database(join(out, 'journal.sqlite'), { readonly: true });
  });

  it('spills its long lists to hidden files inside the output folder, never beside it, and leaves none behind', () => {
    expect(during).toEqual({ parent: [], out: ['.equity.csv.part', '.round-trips.csv.part', '.trades.csv.part'] });
    expect(readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  const count = (where: string) => (journal.prepare(`SELECT COUNT(*) AS n FROM orders WHERE ${where}`).get() as { n: number }).n;

  it('the market maker is not stuck on post-only refusals', () => {
    const mmOrders = count("strategy_id = 'mm-btc'");
    // Quotes 25 bps out and left in place until 40 bps off: about 70 orders in the half hour.
    expect(mmOrders).toBeGreaterThan(50);
    expect(count("strategy_id = 'mm-btc' AND state = 'rejected' AND last_error LIKE '%post only%'")).toBeLessThanOrEqual(mmOrders / 100);
  });

  it('the grid never sends a close larger than what it holds', () => {
    expect(count("strategy_id = 'grid-eth' AND state = 'rejected' AND last_error LIKE '%close size exceeds%'")).toBe(0);
    expect(count("strategy_id = 'grid-eth' AND state = 'filled' AND reduce_only = 1")).toBeGreaterThan(0);
  });

  it('report.json counts the refusals by reason, as the journal holds them', () => {
    const rows = journal.prepare("SELECT strategy_id AS id, last_error AS e FROM orders WHERE state = 'rejected'").all() as Array<{ id: string; e: string }>;
    const r = report(out);
    expect(Object.values(r.rejected).reduce((a, n) => a + n, 0)).toBe(rows.length);
    // The version that ran it is the package's.
    expect((r as Report & { version: string }).version).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
    for (const s of r.strategies) expect(Object.values(s.rejected).reduce((a, n) => a + n, 0)).toBe(rows.filter((x) => x.id === s.id).length);
  });

  it('starts reconciled: no order is held back as "not reconciled yet"', () => {
    expect(journal.prepare("SELECT COUNT(*) AS n FROM risk_decisions WHERE reason = 'fenced'").get()).toEqual({ n: 0 });
    expect(report(out).denied).toEqual({});
    // The grid's bids go out on the first tickers update: one poll (25 ms each way) after the first tick.
    const first = journal.prepare("SELECT MIN(created_at) AS t FROM orders WHERE strategy_id = 'grid-eth'").get() as { t: number };
    expect(first.t).toBe(START + 50);
  });

  it('strategy PnL (what was traded, at the last prices, fees paid) beside buy-and-hold of the starting account', () => {
    const m = report(out).metrics;
    const d = (k: string) => Decimal.from(String(m[k]));
    // Buy-and-hold, recomputed from the data: the account starts with 1 BTC (and USDT, spot and futures).
    const btc = readFileSync(SAMPLE, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { symbol: string; price: string })
      .filter((r) => r.symbol === 'BTCUSDT_SPBL');
    const lastOf = new Map<string, Decimal>();
    for (const l of readFileSync(SAMPLE, 'utf8').trim().split('\n')) {
      const r = JSON.parse(l) as { symbol: string; price: string };
      lastOf.set(r.symbol, Decimal.from(r.price));
    }
    expect(d('buyAndHoldPnl').eq(Decimal.from(btc[btc.length - 1]!.price).sub(Decimal.from(btc[0]!.price)))).toBe(true);
    expect(d('strategyPnl').add(d('buyAndHoldPnl')).eq(d('accountPnl'))).toBe(true);
    expect(d('accountPnl').eq(d('endEquity').sub(d('startEquity')))).toBe(true);
    // The strategy's PnL from trades.csv alone: what each execution earned against the last price, less its fee,
    // and the funding settled (kind, column 10).
    const fromFills = csv(join(out, 'trades.csv')).reduce((a, t) => {
      if (t[10] === 'funding') return a.add(Decimal.from(t[7]!));
      const size = Decimal.from(t[6]!);
      return a.add((t[4] === 'buy' ? size : size.neg()).mul(lastOf.get(t[1]!)!.sub(Decimal.from(t[5]!)))).sub(Decimal.from(t[8]!));
    }, Decimal.ZERO);
    expect(Math.abs(fromFills.sub(d('strategyPnl')).toNumber())).toBeLessThan(1e-6);
    // Split by strategy, it adds up.
    const split = report(out).strategies.reduce((a, s) => a.add(Decimal.from(s.pnl.pnl)), Decimal.ZERO);
    expect(Math.abs(split.sub(d('strategyPnl')).toNumber())).toBeLessThan(1e-6);
    // equity.csv carries buy-and-hold beside the account.
    const eq = csv(join(out, 'equity.csv'));
    expect(eq[0]![2]).toBe(m.startEquity);
    expect(
      Decimal.from(eq[eq.length - 1]![2]!)
        .sub(Decimal.from(eq[0]![2]!))
        .eq(d('buyAndHoldPnl')),
    ).toBe(true);
  });

  it("round-trips.csv lists report.json's trades; every fill is in one (two when it flips the holding)", () => {
    const r = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report & {
      trades: Array<{ strategy: string; symbol: string; exitMs: number | null; pnl: string; fills: number }>;
    };
    const lines = csv(join(out, 'round-trips.csv'));
    expect(lines).toHaveLength(r.trades.length);
    expect(lines.map((l) => [l[0], l[1], l[9]])).toEqual(r.trades.map((t) => [t.strategy, t.symbol, t.pnl]));
    const executions = csv(join(out, 'trades.csv')).filter((t) => t[10] !== 'funding').length;
    const inTrips = r.trades.reduce((a, t) => a + t.fills, 0);
    expect(inTrips).toBeGreaterThanOrEqual(executions);
    for (const s of r.strategies) {
      const mine = r.trades.filter((t) => t.strategy === s.id);
      expect([s.trades.trades, s.trades.open]).toEqual([mine.filter((t) => t.exitMs !== null).length, mine.filter((t) => t.exitMs === null).length]);
    }
    expect(r.strategies.find((s) => s.id === 'grid-eth')!.trades.trades).toBeGreaterThan(0);
  });

  it('the summary names the strategy PnL, buy-and-hold and the refusals', () => {
    const r = {
      outDir: 'x',
      events: 3600,
      requests: 10,
      rateLimited: 0,
      metrics: report(out).metrics,
      rejected: { 'post-only': 2, insufficient: 1 },
      denied: {},
      staleness: { rule: 'data-cadence', staleAfterMs: 10_000, bySymbol: {} },
    } as unknown as Parameters<typeof backtest.backtestSummary>[0];
    const [, line, stale] = backtest.backtestSummary(r);
    expect(stale).toBe('stale prices: risk.staleAfterMs 10000 ms (no candle data: judged as live)');
    expect(line).toMatch(/^strategy PnL -?\d+\.\d{2} \(-?[\d.]+ %\) vs buy-and-hold -?\d+\.\d{2} \(-?[\d.]+ %\), max drawdown /);
    expect(line).toMatch(/, rejected: 3 \(post-only 2, insufficient 1\), denied: 0$/);
  });
});

describe('a strategy fault', () => {
  it('fails the run; report.json and report.html name the strategy, the virtual time and the error', async () => {
    const failFromMs = START + 60_000;
    const cfg = config('faulty', (doc) => {
      doc.set('strategyDirs', [resolve('test/fixtures/strategies')]);
      doc.set('strategies', [
        { id: 'mm-btc', name: 'spot-market-maker', symbols: ['BTCUSDT_SPBL'] },
        { id: 'broken', name: 'faulty', symbols: ['cmt_ethusdt'], params: { failFromMs } },
      ]);
    });
    const out = join(dir, 'faulty');
    const err = await backtest.runBacktest(loadConfig(cfg, {}), silentLogger, { outDir: out, toMs: START + 180_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(backtest.BacktestFaultError);
    const faults = (err as InstanceType<typeof backtest.BacktestFaultError>).result.faults;
    expect(faults).toHaveLength(1);
    const f = faults[0]!;
    // Five errors (daemon.maxStrategyErrors), one a tickers update (each second) from failFromMs on.
    expect(f).toEqual({
      strategy: 'broken',
      atMs: failFromMs + 4050,
      at: new Date(failFromMs + 4050).toISOString(),
      hook: 'onMarket',
      error: `no price for cmt_ethusdt at ${failFromMs + 4050}`,
      reason: `5 errors, the last in onMarket: no price for cmt_ethusdt at ${failFromMs + 4050}`,
    });
    expect((err as Error).message).toBe(`strategy broken faulted at ${f.at}: ${f.reason} (report in ${out})`);
    expect(report(out).faults).toEqual([f]);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain(`<b>Strategy broken faulted</b> at ${f.at} in onMarket: ${f.error}`);
  });

  it('a run without one has none', async () => {
    const cfg = config('fine', (doc) => doc.set('strategies', [{ id: 'mm-btc', name: 'spot-market-maker', symbols: ['BTCUSDT_SPBL'] }]));
    const r = await backtest.runBacktest(loadConfig(cfg, {}), silentLogger, { outDir: join(dir, 'fine'), toMs: START + 60_000 });
    expect(r.faults).toEqual([]);
    expect(readFileSync(join(dir, 'fine', 'report.html'), 'utf8')).not.toContain('id="faults"');
  });
});

describe('strategy logs', () => {
  const run = async (level: string, loggerLevel: 'warn' | 'silent' = 'warn') => {
    const cfg = config(`chatty-${level}-${loggerLevel}`, (doc) => {
      doc.set('strategyDirs', [resolve('test/fixtures/strategies')]);
      doc.set('strategies', [{ id: 'talk', name: 'chatty', symbols: ['BTCUSDT_SPBL'] }]);
      doc.setIn(['log', 'level'], level);
    });
    const lines: string[] = [];
    const logger = createLogger({ level: loggerLevel, destination: { write: (s: string) => void lines.push(s) } });
    await backtest.runBacktest(loadConfig(cfg, {}), logger, { outDir: join(dir, `chatty-${level}-${loggerLevel}`), toMs: START + 10_000 });
    return lines
      .map((l) => JSON.parse(l) as { time: string; level: string; strategy?: string; msg: string; nowMs?: number })
      .filter((l) => l.strategy === 'talk');
  };

  it('show at the configured log.level, timed in virtual time', async () => {
    const info = await run('info');
    expect(info.map((l) => [l.level, l.msg])).toEqual([
      ['info', 'first look'],
      ['warn', 'nothing to do'],
    ]);
    // The first tickers update: read 25 ms after the first tick, delivered 25 ms later.
    for (const l of info) expect(l.time).toBe(new Date(START + 50).toISOString());
    expect(info[0]!.nowMs).toBe(START + 50);
    const warn = await run('warn');
    expect(warn.map((l) => [l.level, l.msg])).toEqual([['warn', 'nothing to do']]);
    // A silent logger (library use, sweeps) stays silent whatever the config says.
    expect(await run('info', 'silent')).toEqual([]);
  });
});

// The default backtest: runs from the shipped sample, writes its files, is byte-identical run to run, and its
// report agrees with an independent recomputation from trades.csv and equity.csv.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import Database from '../../src/journal/sqlite-driver.js';
import { Decimal } from '../../src/domain/decimal.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-bt-'));
const FILES = ['report.json', 'trades.csv', 'equity.csv', 'report.html'];

function csv(file: string): string[][] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));
}

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['bin/sextant.js', ...args], { env: { PATH: process.env.PATH } });
    let out = '';
    p.stdout.on('data', (x) => (out += String(x)));
    p.stderr.on('data', (x) => (out += String(x)));
    p.on('close', (code) => resolve({ code, out }));
  });
}

// Strategies are .ts files the loader compiles and imports outside Jest's module loader: the backtest runs as
// the command a user types, in its own process.
describe('backtest', () => {
  it('two runs of the default backtest are byte-identical', async () => {
    const [a, b] = await Promise.all([run(['backtest', '--out', join(dir, 'a')]), run(['backtest', '--out', join(dir, 'b')])]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.out).toMatch(/^3600 market events, \d+ requests \(0 answered 429\)/);
    // The strategy's PnL beside buy-and-hold of the starting account, and the refusals by reason.
    expect(a.out).toMatch(
      /\nstrategy PnL -?\d+\.\d{2} \(-?[\d.]+ %\) vs buy-and-hold -1508\.10 \(-?[\d.]+ %\), max drawdown [\d.]+ %, .*, rejected: \d+( \([a-z -]+\d+(, [a-z -]+\d+)*\))?, denied: \d+/,
    );
    expect((JSON.parse(readFileSync(join(dir, 'a', 'report.json'), 'utf8')) as { metrics: { fills: number } }).metrics.fills).toBeGreaterThan(20);
    for (const f of FILES) expect({ f, same: readFileSync(join(dir, 'a', f), 'utf8') === readFileSync(join(dir, 'b', f), 'utf8') }).toEqual({ f, same: true });
  });

  it('report.json agrees with trades.csv and equity.csv recomputed independently', async () => {
    const out = join(dir, 'a');
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { metrics: Record<string, string | number> };
    const m = report.metrics;
    const rows = csv(join(out, 'equity.csv'));
    const equity = rows.map(([, e]) => Decimal.from(e!));
    // The strategy's equity: the account less what its starting holdings did on their own (buy_and_hold, column 3).
    const holdFirst = Decimal.from(rows[0]![2]!);
    const own = rows.map(([, e, h]) => Decimal.from(e!).sub(Decimal.from(h!)).add(holdFirst));
    // The executions (fills and liquidations; kind, column 10): funding rows are not trades.
    const trades = csv(join(out, 'trades.csv')).filter((t) => t[10] !== 'funding');
    const first = equity[0]!;
    const last = equity[equity.length - 1]!;
    expect(Decimal.from(String(m.accountPnl)).eq(last.sub(first))).toBe(true);
    let peak = own[0]!;
    let maxDd = 0;
    for (const e of own) {
      if (e.gt(peak)) peak = e;
      maxDd = Math.max(maxDd, (peak.toNumber() - e.toNumber()) / peak.toNumber());
    }
    expect(Math.abs(Number(m.maxDrawdownPct) - maxDd * 100)).toBeLessThan(1e-5);
    expect(m.fills).toBe(trades.length);
    // Trades: the closed round trips of round-trips.csv (exit_ts, column 6, given); wins: PnL (column 10) above 0.
    const closes = csv(join(out, 'round-trips.csv')).filter((t) => t[5] !== '');
    const wins = closes.filter((t) => Decimal.from(t[9]!).gt(Decimal.ZERO));
    expect(m.trades).toBe(closes.length);
    expect(closes.length).toBeGreaterThan(0);
    expect(Number(m.winRatePct)).toBeCloseTo((wins.length * 100) / closes.length, 3);
    const fees = trades.reduce((a, t) => a.add(Decimal.from(t[8]!)), Decimal.ZERO);
    expect(Decimal.from(String(m.feesPaid)).eq(fees)).toBe(true);
    for (const t of trades) expect(Decimal.from(t[5]!).mul(Decimal.from(t[6]!)).eq(Decimal.from(t[7]!))).toBe(true);
    // The strategy equity's returns per sample -> Sharpe, recomputed with floats: half an hour of data, not annualised.
    const r = own.slice(1).map((e, i) => e.toNumber() / own[i]!.toNumber() - 1);
    const mean = r.reduce((a, x) => a + x, 0) / r.length;
    const sd = Math.sqrt(r.reduce((a, x) => a + (x - mean) ** 2, 0) / (r.length - 1));
    expect(m.ratioBasis).toBe('per 1 s sample, not annualised: under a day of data');
    expect(Math.abs(Number(m.sharpe) - mean / sd)).toBeLessThan(1e-5);
  });

  it('a strategy sending orders faster than the venue allows gets 429s in the backtest too', async () => {
    const { parseDocument } = await import('yaml');
    const doc = parseDocument(readFileSync('config/backtest.yaml', 'utf8'));
    doc.setIn(['backtest', 'data'], resolvePath('data/sample/ticks.jsonl'));
    doc.set('strategyDirs', [resolvePath('test/fixtures/strategies')]);
    doc.set('strategies', [{ id: 'burst', name: 'order-burst', symbols: ['BTCUSDT_SPBL'] }]);
    doc.setIn(['risk', 'maxNotionalPerSymbol'], '1000000');
    const cfg = join(dir, 'tight.yaml');
    writeFileSync(cfg, doc.toString());
    const r = await run(['backtest', '--config', cfg, '--out', join(dir, 'tight'), '--to', '2026-01-05T00:03:00Z']);
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'tight', 'report.json'), 'utf8')) as {
      simulated: { rateLimited429: number; weight: Record<string, number> };
    };
    // 13 order requests a second against a cap of 10: refused until the risk gate's own order-rate guard stops it.
    expect(report.simulated.rateLimited429).toBeGreaterThan(20);
    const journal = new Database(join(dir, 'tight', 'journal.sqlite'), { readonly: true });
    const refused = journal.prepare("SELECT COUNT(*) AS n FROM orders WHERE state = 'rejected' AND last_error LIKE '%429%'").get() as { n: number };
    journal.close();
    expect(refused.n).toBeGreaterThan(20);
    const normal = (JSON.parse(readFileSync(join(dir, 'a', 'report.json'), 'utf8')) as { simulated: { rateLimited429: number } }).simulated;
    expect(normal.rateLimited429).toBe(0);
  });

  it('strategy schedules fire in virtual time, as cron would live', async () => {
    const { parseDocument } = await import('yaml');
    const doc = parseDocument(readFileSync('config/backtest.yaml', 'utf8'));
    doc.setIn(['backtest', 'data'], resolvePath('data/sample/ticks.jsonl'));
    doc.set('strategies', [{ id: 'dca', name: 'spot-dca', symbols: ['BTCUSDT_SPBL'], params: { quoteAmount: '100' }, schedule: { buy: '0 */2 * * * *' } }]);
    const cfg = join(dir, 'dca.yaml');
    writeFileSync(cfg, doc.toString());
    const r = await run(['backtest', '--config', cfg, '--out', join(dir, 'dca'), '--to', '2026-01-05T00:20:00Z']);
    expect(r.code).toBe(0);
    // Data from 00:00:01 to 00:20:00: a purchase every two minutes, 00:02 to 00:20, each filled (a market order
    // may take several levels) one way of the 50 ms round trip after its instant.
    const fills = csv(join(dir, 'dca', 'trades.csv')).filter((t) => t[10] === 'fill');
    expect(fills.every((t) => t[4] === 'buy')).toBe(true);
    const orders = [...new Map(fills.map((t) => [t[2], Number(t[0])])).values()];
    expect(orders.length).toBe(10);
    orders.forEach((ts, i) => expect(ts).toBe(Date.parse('2026-01-05T00:02:00Z') + i * 120_000 + 25));
  });

  it('orders meet the market when they arrive: a slower round trip changes the fills', async () => {
    const { parseDocument } = await import('yaml');
    const runWith = async (latencyMs: number) => {
      const doc = parseDocument(readFileSync('config/backtest.yaml', 'utf8'));
      doc.setIn(['backtest', 'data'], resolvePath('data/sample/ticks.jsonl'));
      doc.setIn(['backtest', 'latencyMs'], latencyMs);
      const cfg = join(dir, `latency-${latencyMs}.yaml`);
      writeFileSync(cfg, doc.toString());
      const r = await run(['backtest', '--config', cfg, '--out', join(dir, `latency-${latencyMs}`), '--to', '2026-01-05T00:10:00Z']);
      expect(r.code).toBe(0);
      return JSON.parse(readFileSync(join(dir, `latency-${latencyMs}`, 'report.json'), 'utf8')) as {
        latencyMs: number;
        metrics: { strategyPnl: string };
        orders: Record<string, number>;
      };
    };
    const [fast, slow] = await Promise.all([runWith(0), runWith(2400)]);
    expect([fast.latencyMs, slow.latencyMs]).toEqual([0, 2400]);
    // 1.2 s each way: a quote placed on one tick reaches the simulator after the next one.
    expect(slow.metrics.strategyPnl).not.toBe(fast.metrics.strategyPnl);
    expect(slow.orders).not.toEqual(fast.orders);
  });

  it('a sweep runs every combination in worker threads and ranks them by strategy PnL; a run matches the same single backtest', async () => {
    const spec = join(dir, 'sweep.yaml');
    writeFileSync(spec, 'strategy: mm-btc\nparams:\n  halfSpreadBps: [25, 5]\n');
    const r = await run(['backtest', '--sweep', spec, '--out', join(dir, 'sweep'), '--to', '2026-01-05T00:05:00Z']);
    expect(r.code).toBe(0);
    const [header, ...lines] = readFileSync(join(dir, 'sweep', 'sweep.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(header!.split(',').slice(0, 4)).toEqual(['rank', 'halfSpreadBps', 'strategy_pnl', 'strategy_return_pct']);
    const rows = lines.map((l) => l.split(','));
    expect(rows.map((x) => x[0])).toEqual(['1', '2']);
    expect(new Set(rows.map((x) => x[1]))).toEqual(new Set(['25', '5']));
    expect(Decimal.from(rows[0]![2]!).gte(Decimal.from(rows[1]![2]!))).toBe(true);
    // halfSpreadBps 25 is the config's own value: that run is the plain backtest of the same range.
    const single = await run(['backtest', '--out', join(dir, 'single'), '--to', '2026-01-05T00:05:00Z']);
    expect(single.code).toBe(0);
    const plain = JSON.parse(readFileSync(join(dir, 'single', 'report.json'), 'utf8')) as { metrics: { strategyPnl: string } };
    expect(rows.find((x) => x[1] === '25')![2]).toBe(plain.metrics.strategyPnl);
  });

  it('the command writes the files for a time range and names a bad data line', async () => {
    const ok = await run(['backtest', '--config', 'config/backtest.yaml', '--out', join(dir, 'cli'), '--to', '2026-01-05T00:05:00Z']);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^600 market events/);
    for (const f of FILES) expect(readFileSync(join(dir, 'cli', f), 'utf8').length).toBeGreaterThan(10);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"ts":1,"symbol":"BTCUSDT_SPBL","price":"1","size":"1"}\n{"ts":2,"symbol":"BTCUSDT_SPBL","price":1,"size":"1"}\n');
    const failed = await run(['backtest', '--config', 'config/backtest.yaml', '--data', bad, '--out', join(dir, 'bad')]);
    expect(failed.code).toBe(1);
    expect(failed.out).toMatch(/bad\.jsonl:2: expected/);
  });

  it('a strategy that faults fails the command (exit 1), naming it, the virtual time and the error; the report is written', async () => {
    const { parseDocument } = await import('yaml');
    const doc = parseDocument(readFileSync('config/backtest.yaml', 'utf8'));
    doc.setIn(['backtest', 'data'], resolvePath('data/sample/ticks.jsonl'));
    doc.set('strategyDirs', [resolvePath('test/fixtures/strategies')]);
    doc.set('strategies', [{ id: 'broken', name: 'faulty', symbols: ['cmt_ethusdt'], params: { failFromMs: Date.parse('2026-01-05T00:01:00Z') } }]);
    const cfg = join(dir, 'faulty.yaml');
    writeFileSync(cfg, doc.toString());
    const r = await run(['backtest', '--config', cfg, '--out', join(dir, 'faulty'), '--to', '2026-01-05T00:03:00Z']);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      'backtest failed: strategy broken faulted at 2026-01-05T00:01:04.050Z: 5 errors, the last in onMarket: no price for cmt_ethusdt at 1767571264050',
    );
    const report = JSON.parse(readFileSync(join(dir, 'faulty', 'report.json'), 'utf8')) as { faults: Array<{ strategy: string; at: string }> };
    expect(report.faults.map((f) => [f.strategy, f.at])).toEqual([['broken', '2026-01-05T00:01:04.050Z']]);
  });

  it('a sweep in which one combination faults still ranks every run: the faulted one last, its fault named', async () => {
    const { parseDocument } = await import('yaml');
    const doc = parseDocument(readFileSync('config/backtest.yaml', 'utf8'));
    doc.setIn(['backtest', 'data'], resolvePath('data/sample/ticks.jsonl'));
    doc.set('strategyDirs', [resolvePath('test/fixtures/strategies')]);
    doc.set('strategies', [{ id: 'broken', name: 'faulty', symbols: ['cmt_ethusdt'], params: { failFromMs: 0 } }]);
    const cfg = join(dir, 'faulty-sweep.yaml');
    writeFileSync(cfg, doc.toString());
    const spec = join(dir, 'faulty-sweep-spec.yaml');
    // Never fails within the range, or fails at once.
    writeFileSync(spec, `strategy: broken\nparams:\n  failFromMs: [${Date.parse('2026-01-06T00:00:00Z')}, 0]\n`);
    const r = await run(['backtest', '--config', cfg, '--sweep', spec, '--out', join(dir, 'faulty-sweep'), '--to', '2026-01-05T00:02:00Z']);
    expect(r.code).toBe(0);
    const [header, ...lines] = readFileSync(join(dir, 'faulty-sweep', 'sweep.csv'), 'utf8')
      .trim()
      .split('\n');
    expect(header!.split(',').at(-1)).toBe('fault');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.endsWith(',')).toBe(true);
    expect(lines[1]).toMatch(/^2,0,.*,"strategy broken faulted at /);
  });

  it('strategy logs show on stderr at the configured log.level, timed in virtual time', async () => {
    const { parseDocument } = await import('yaml');
    const doc = parseDocument(readFileSync('config/backtest.yaml', 'utf8'));
    doc.setIn(['backtest', 'data'], resolvePath('data/sample/ticks.jsonl'));
    doc.set('strategyDirs', [resolvePath('test/fixtures/strategies')]);
    doc.set('strategies', [{ id: 'talk', name: 'chatty', symbols: ['BTCUSDT_SPBL'] }]);
    doc.setIn(['log', 'level'], 'info');
    const cfg = join(dir, 'chatty.yaml');
    writeFileSync(cfg, doc.toString());
    const r = await run(['backtest', '--config', cfg, '--out', join(dir, 'chatty'), '--to', '2026-01-05T00:01:00Z']);
    expect(r.code).toBe(0);
    const lines = r.out
      .split('\n')
      .filter((l) => l.includes('"strategy":"talk"'))
      .map((l) => JSON.parse(l) as { time: string; level: string; msg: string });
    expect(lines.map((l) => [l.time, l.level, l.msg])).toEqual([
      ['2026-01-05T00:00:01.050Z', 'info', 'first look'],
      ['2026-01-05T00:00:01.050Z', 'warn', 'nothing to do'],
    ]);
  });
});

// A TypeScript strategy whose hook throws (in a file its index imports) is reported at that file's line and column,
// as a user sees it: a backtest's faults (its output and report.json) and log, and a daemon's /health.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parseDocument } from 'yaml';
import { OPS_AUTH, OPS_TOKEN, waitFor } from '../fixtures/e2e.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sextant-throw-site-')));
const strategies = join(dir, 'strategies');
const [index, prices] = [join(strategies, 'thrower', 'index.ts'), join(strategies, 'thrower', 'prices.ts')];
mkdirSync(join(strategies, 'thrower'), { recursive: true });
writeFileSync(
  index,
  [
    "import { priceOf } from './prices.js';",
    '',
    'interface Params { note?: string }',
    'const parse = (raw: unknown): Params => (raw ?? {}) as Params;',
    'const params = { safeParse: (raw: unknown) => ({ success: true as const, data: parse(raw) }), parse };',
    '',
    "export default { name: 'thrower', params, onMarket: (ctx: { symbols: string[] }): void => void priceOf(ctx.symbols[0]!) };",
    '',
  ].join('\n'),
);
writeFileSync(
  prices,
  [
    'const table: Record<string, number> = {};',
    'export function priceOf(symbol: string): number {',
    '  const p = table[symbol];',
    '  if (p === undefined) throw new Error(`no price for ${symbol}`);',
    '  return p;',
    '}',
    '',
  ].join('\n'),
);
/** Where priceOf throws: line 4, `new` at column 30. */
const AT = `${prices}:4:30`;
const ERROR = `no price for BTCUSDT_SPBL (at ${AT})`;

/** The strategy's "strategy hook failed" log lines in `out` (JSON lines among others). */
const hookFailures = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.includes('"msg":"strategy hook failed"'))
    .map((l) => JSON.parse(l) as { strategy: string; hook: string; err: string; at: string });

describe('a strategy hook that throws is reported at its own file, line and column', () => {
  it('in a backtest: the faults it prints and report.json, and its log', async () => {
    const doc = parseDocument(readFileSync('config/backtest.yaml', 'utf8'));
    doc.set('mode', 'backtest');
    doc.setIn(['backtest', 'data'], resolve('data/sample/ticks.jsonl'));
    doc.set('strategyDirs', [strategies]);
    doc.set('strategies', [{ id: 'broken', name: 'thrower', symbols: ['BTCUSDT_SPBL'] }]);
    const cfg = join(dir, 'backtest.yaml');
    writeFileSync(cfg, doc.toString());
    const out = join(dir, 'report');
    const p = spawn(process.execPath, ['bin/sextant.js', 'backtest', '--config', cfg, '--out', out, '--to', '2026-01-05T00:01:00Z'], {
      env: { PATH: process.env.PATH },
    });
    let text = '';
    p.stdout.on('data', (x) => (text += String(x)));
    p.stderr.on('data', (x) => (text += String(x)));
    const code = await new Promise<number | null>((done) => p.on('close', done));
    expect(code).toBe(1);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as {
      faults: Array<{ strategy: string; hook: string; error: string; reason: string; at: string }>;
    };
    expect(report.faults.map(({ strategy, hook, error, reason }) => ({ strategy, hook, error, reason }))).toEqual([
      { strategy: 'broken', hook: 'onMarket', error: ERROR, reason: `5 errors, the last in onMarket: ${ERROR}` },
    ]);
    expect(text).toContain(`backtest failed: strategy broken faulted at ${report.faults[0]!.at}: 5 errors, the last in onMarket: ${ERROR}`);
    const failures = hookFailures(text);
    expect(failures).toHaveLength(5);
    for (const f of failures) expect(f).toMatchObject({ strategy: 'broken', hook: 'onMarket', err: ERROR, at: AT });
  });

  it("in a daemon: /health's strategies", async () => {
    const doc = parseDocument(readFileSync('config/default.yaml', 'utf8'));
    doc.setIn(['journal', 'path'], join(dir, 'journal.sqlite'));
    doc.setIn(['daemon', 'http', 'port'], 0);
    doc.setIn(['daemon', 'polls', 'tickersMs'], 300);
    doc.setIn(['sim', 'tickIntervalMs'], 50);
    doc.set('strategyDirs', [strategies]);
    doc.set('strategies', [{ id: 'broken', name: 'thrower', symbols: ['BTCUSDT_SPBL'] }]);
    const cfg = join(dir, 'daemon.yaml');
    writeFileSync(cfg, doc.toString());
    const p = spawn(process.execPath, ['bin/sextant.js', 'run', '--config', cfg], { env: { PATH: process.env.PATH, SEXTANT_HTTP_TOKEN: OPS_TOKEN } });
    let text = '';
    p.stdout.on('data', (x) => (text += String(x)));
    p.stderr.on('data', (x) => (text += String(x)));
    const closed = new Promise<number | null>((done) => p.on('close', done));
    try {
      const opsUrl = await waitFor(
        'the daemon',
        () => {
          const line = text.split('\n').find((l) => l.includes('daemon running'));
          return line ? (JSON.parse(line) as { opsUrl: string }).opsUrl : undefined;
        },
        20_000,
        200,
      );
      const broken = await waitFor(
        'the fault',
        async () => {
          const h = (await (await fetch(`${opsUrl}/health`, { headers: OPS_AUTH, signal: AbortSignal.timeout(3000) })).json()) as {
            strategies: Array<{ id: string; faulted: boolean }>;
          };
          return h.strategies.find((s) => s.id === 'broken' && s.faulted);
        },
        30_000,
        200,
      );
      expect(broken).toEqual({
        id: 'broken',
        errors: 5,
        faulted: true,
        hook: 'onMarket',
        error: ERROR,
        reason: `5 errors, the last in onMarket: ${ERROR}`,
        atMs: expect.any(Number),
      });
    } finally {
      p.kill('SIGTERM');
    }
    expect(await closed).toBe(0);
    expect(hookFailures(text).map((f) => [f.err, f.at])).toEqual(Array.from({ length: 5 }, () => [ERROR, AT]));
  }, 90_000);
});

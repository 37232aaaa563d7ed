// `sextant run` on the default config, as a user starts it: orders placed and filled on the embedded simulator,
// /health, /ready and /metrics answering, SIGTERM -> clean exit within 8 s, the journal consistent afterwards.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import Database from '../../src/journal/sqlite-driver.js';
import { parseDocument } from 'yaml';
import { OPS_AUTH, OPS_TOKEN, waitFor as waitUntil } from '../fixtures/e2e.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-daemon-'));

function configFrom(defaultYaml: string, journalPath: string): string {
  const doc = parseDocument(defaultYaml);
  doc.setIn(['journal', 'path'], journalPath);
  doc.setIn(['daemon', 'http', 'port'], 0);
  // Faster polls and a livelier market, so the test sees fills soon.
  doc.setIn(['daemon', 'polls', 'tickersMs'], 300);
  doc.setIn(['daemon', 'polls', 'ordersMs'], 600);
  doc.setIn(['sim', 'tickIntervalMs'], 50);
  // Polling this fast needs a larger budget than the venue's (the simulator is ours to configure).
  for (const surface of ['spot', 'futures']) {
    for (const pool of ['ip', 'uid']) doc.setIn(['exchange', 'rateLimit', surface, pool, 'budget'], 20_000);
    doc.setIn(['sim', 'budget', surface], { ip: 20_000, uid: 20_000 });
  }
  // Unknown outcomes (a spot batch item the venue leaves out of its answer) settle within seconds.
  doc.setIn(['execution', 'graceMs'], 500);
  doc.setIn(['execution', 'lostAfterChecks'], 2);
  doc.setIn(['daemon', 'reconcileCron'], '* * * * * *');
  return doc.toString();
}

/** Every 200 ms: the daemon runs in a child process. */
const waitFor = <T>(what: string, f: () => Promise<T | undefined>, ms: number): Promise<T> => waitUntil(what, f, ms, 200);

describe('sextant run (default config)', () => {
  it('trades against the embedded simulator, serves health and metrics, and stops cleanly on SIGTERM', async () => {
    const journalPath = join(dir, 'journal.sqlite');
    const cfg = join(dir, 'default.yaml');
    writeFileSync(cfg, configFrom(readFileSync('config/default.yaml', 'utf8'), journalPath));
    const p = spawn(process.execPath, ['bin/sextant.js', 'run', '--config', cfg], { env: { PATH: process.env.PATH, SEXTANT_HTTP_TOKEN: OPS_TOKEN } });
    let out = '';
    p.stdout.on('data', (d) => (out += String(d)));
    p.stderr.on('data', (d) => (out += String(d)));
    let stopAt = 0;
    const exited = new Promise<{ code: number | null; at: number }>((resolve) => p.on('close', (code) => resolve({ code, at: Date.now() })));
    try {
      const opsUrl = await waitFor(
        'the daemon',
        async () => {
          const line = out.split('\n').find((l) => l.includes('daemon running'));
          return line ? (JSON.parse(line) as { opsUrl: string }).opsUrl : undefined;
        },
        20_000,
      );
      const health = (await (await fetch(`${opsUrl}/health`)).json()) as { status: string; eventLoopP99Ms: number };
      expect(health.status).toBe('ok');
      expect(health.eventLoopP99Ms).toBeLessThan(2000);
      await waitFor('ready', async () => ((await fetch(`${opsUrl}/ready`)).status === 200 ? true : undefined), 10_000);
      // Orders placed and filled through the full live path.
      const metrics = await waitFor(
        'a fill',
        async () => {
          const m = await (await fetch(`${opsUrl}/metrics`, { headers: OPS_AUTH })).text();
          return /sextant_execution_events_total\{type="filled"\} [1-9]/.test(m) || /sextant_execution_events_total\{type="partially-filled"\} [1-9]/.test(m)
            ? m
            : undefined;
        },
        40_000,
      );
      expect(metrics).toMatch(/sextant_exchange_requests_total\{endpoint="S6",outcome="ok"\} [1-9]/);
      expect(metrics).toMatch(/sextant_execution_events_total\{type="accepted"\} [1-9]/);
      expect(metrics).toMatch(/sextant_poll_age_seconds\{poll="tickers"\}/);
      expect(metrics).toMatch(/sextant_nodejs_eventloop_lag_seconds/);
      expect(metrics).not.toMatch(/sextant_exchange_429_total [1-9]/);
      expect(metrics).toMatch(/sextant_exchange_weight_total\{endpoint="S6",pool="spot:uid"\} [1-9]/);
      // Equity (feeding the drawdown kill switch) once balances and prices are both in.
      await waitFor(
        'equity',
        async () => (/sextant_equity\{surface="spot"\} [1-9]/.test(await (await fetch(`${opsUrl}/metrics`, { headers: OPS_AUTH })).text()) ? true : undefined),
        15_000,
      );
      // SIGHUP: new params for a strategy are applied; invalid ones are refused and the old config stays.
      const base = readFileSync(cfg, 'utf8');
      writeFileSync(cfg, base.replace('halfSpreadBps: 6', 'halfSpreadBps: 9'));
      p.kill('SIGHUP');
      await waitFor('the reload', async () => (out.includes('strategy params reloaded') ? true : undefined), 5000);
      writeFileSync(cfg, base.replace('halfSpreadBps: 6', 'halfSpreadBps: -1'));
      p.kill('SIGHUP');
      await waitFor('the refusal', async () => (out.includes('config reload refused') ? true : undefined), 5000);
      expect(out).toMatch(/:\d+:\d+: strategies\[0\]\.params\.halfSpreadBps: Too small/);
    } finally {
      stopAt = Date.now();
      const t0 = stopAt;
      p.kill('SIGTERM');
      const { code, at } = await exited;
      expect({ code, withinMs: at - t0 < 8000 }).toEqual({ code: 0, withinMs: true });
    }
    expect(out).toMatch(/"msg":"stopped"/);
    expect(out).not.toMatch(/"level":"(error|fatal)"/);
    // The journal: intact, nothing left in flight, nothing left open (the config cancels on shutdown).
    const db = new Database(journalPath, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const states = db.prepare('SELECT state, COUNT(*) AS n FROM orders GROUP BY state').all() as Array<{ state: string; n: number }>;
    // An unknown outcome is only acceptable if it arose too recently to be settled (grace 0.5 s + 2 checks).
    const oldUnknown = db.prepare("SELECT client_oid FROM orders WHERE state = 'unknown' AND created_at < ?").all(stopAt - 3000);
    db.close();
    const by = Object.fromEntries(states.map((s) => [s.state, s.n]));
    expect(by.sending ?? 0).toBe(0);
    expect(oldUnknown).toEqual([]);
    expect(by.open ?? 0).toBe(0);
    expect((by.filled ?? 0) + (by.canceled ?? 0)).toBeGreaterThan(0);
  }, 90_000);
});

/** `sextant run` on `config`; `exited` resolves with the exit code, or 'running' if it has not ended `boundMs` after `stop()` (then it is killed). */
function runDaemon(config: string) {
  const p = spawn(process.execPath, ['bin/sextant.js', 'run', '--config', config], { env: { PATH: process.env.PATH, SEXTANT_HTTP_TOKEN: OPS_TOKEN } });
  const output = { text: '' };
  p.stdout.on('data', (d) => (output.text += String(d)));
  p.stderr.on('data', (d) => (output.text += String(d)));
  const closed = new Promise<number | null>((resolve) => p.on('close', (code) => resolve(code)));
  const exited = async (boundMs: number): Promise<number | null | 'running'> => {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'running'>((resolve) => (timer = setTimeout(() => resolve('running'), boundMs)));
    const r = await Promise.race([closed, bound]);
    clearTimeout(timer);
    if (r === 'running') {
      p.kill('SIGKILL');
      await closed;
    }
    return r;
  };
  return { p, output, exited };
}

describe('sextant run: a start that fails', () => {
  it('a busy ops port: "cannot start" and the process exits non-zero (it does not keep polling)', async () => {
    const busy = http.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const dir2 = mkdtempSync(join(tmpdir(), 'sextant-busy-'));
    const cfg = join(dir2, 'busy.yaml');
    const doc = parseDocument(configFrom(readFileSync('config/default.yaml', 'utf8'), join(dir2, 'journal.sqlite')));
    doc.setIn(['daemon', 'http', 'port'], (busy.address() as AddressInfo).port);
    writeFileSync(cfg, doc.toString());
    try {
      const d = runDaemon(cfg);
      const code = await d.exited(15_000);
      expect(d.output.text).toMatch(/cannot start: .*EADDRINUSE/);
      expect({ code, running: code === 'running' }).toEqual({ code: 1, running: false });
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  }, 30_000);

  it('a bad cron expression: the same', async () => {
    const dir2 = mkdtempSync(join(tmpdir(), 'sextant-cron-'));
    const cfg = join(dir2, 'cron.yaml');
    const doc = parseDocument(configFrom(readFileSync('config/default.yaml', 'utf8'), join(dir2, 'journal.sqlite')));
    doc.setIn(['daemon', 'reconcileCron'], 'every now and then');
    writeFileSync(cfg, doc.toString());
    const d = runDaemon(cfg);
    const code = await d.exited(15_000);
    expect(d.output.text).toMatch(/cron\.yaml:\d+:\d+: daemon\.reconcileCron: invalid cron expression/);
    expect(code).toBe(1);
  }, 30_000);
});

describe('sextant run with a strategy that never returns', () => {
  it('the hook is stopped after daemon.hookTimeoutMs and the strategy faulted; /health answers, the other strategy trades, Ctrl+C (SIGINT) stops it', async () => {
    const dir2 = mkdtempSync(join(tmpdir(), 'sextant-loop-'));
    writeFileSync(
      join(dir2, 'looping.mjs'),
      [
        '// A strategy whose market hook never returns.',
        "export default { name: 'looping', params: { safeParse: (raw) => ({ success: true, data: raw }), parse: (raw) => raw }, onMarket() { for (;;) {} } };",
        '',
      ].join('\n'),
    );
    const cfg = join(dir2, 'loop.yaml');
    const doc = parseDocument(configFrom(readFileSync('config/default.yaml', 'utf8'), join(dir2, 'journal.sqlite')));
    doc.setIn(['strategyDirs'], [dir2]);
    doc.setIn(['daemon', 'hookTimeoutMs'], 300);
    doc.setIn(
      ['strategies'],
      [
        {
          id: 'mm-btc',
          name: 'spot-market-maker',
          symbols: ['BTCUSDT_SPBL'],
          params: { halfSpreadBps: 6, size: '0.002', maxInventory: '0.02', skewBps: 5, toleranceBps: 2 },
        },
        { id: 'loop', name: 'looping', symbols: ['ETHUSDT_SPBL'] },
      ],
    );
    writeFileSync(cfg, doc.toString());
    const d = runDaemon(cfg);
    // A frozen daemon accepts connections and never answers: every request has its own deadline.
    const get = async (url: string) => fetch(url, { signal: AbortSignal.timeout(3000), headers: OPS_AUTH });
    let code: number | null | 'running';
    try {
      const opsUrl = await waitFor(
        'the daemon',
        async () => {
          const line = d.output.text.split('\n').find((l) => l.includes('daemon running'));
          return line ? (JSON.parse(line) as { opsUrl: string }).opsUrl : undefined;
        },
        20_000,
      );
      const strategies = await waitFor(
        'the fault',
        async () => {
          const h = (await (await get(`${opsUrl}/health`)).json()) as { strategies: Array<{ id: string; faulted: boolean; reason?: string }> };
          return h.strategies.find((s) => s.id === 'loop')?.faulted ? h.strategies : undefined;
        },
        20_000,
      );
      expect(strategies).toEqual([
        { id: 'mm-btc', errors: 0, faulted: false },
        {
          id: 'loop',
          errors: 1,
          faulted: true,
          hook: 'onMarket',
          error: 'ran over its 300 ms budget and was stopped',
          reason: 'onMarket ran over its 300 ms budget and was stopped',
          atMs: expect.any(Number),
        },
      ]);
      // The other strategy goes on: its orders reach the venue.
      await waitFor(
        'an order',
        async () => (/sextant_intents_total\{strategy="mm-btc",kind="place"\} [1-9]/.test(await (await get(`${opsUrl}/metrics`)).text()) ? true : undefined),
        20_000,
      );
      expect((await get(`${opsUrl}/health`)).status).toBeLessThan(600);
    } finally {
      // SIGINT: the hook watchdog holds it (it stopped the loop through it) and hands it on; the daemon stops cleanly.
      d.p.kill('SIGINT');
      // A frozen daemon ignores it: it is killed after the bound, and the test fails.
      code = await d.exited(15_000);
    }
    expect(code).toBe(0);
    expect(d.output.text).toMatch(/"msg":"stopped"/);
    expect(d.output.text).toMatch(/"strategy":"loop".*"msg":"strategy faulted: no more hooks are called"/);
  }, 90_000);
});

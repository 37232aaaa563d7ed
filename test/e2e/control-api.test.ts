// The control API of a daemon running in process against its embedded simulator over HTTP, with the default
// config's strategies and a small taker: the event stream carries the fill of an order the simulator filled; a
// reload through the API applies new params; a paused strategy makes no new orders (the journal shows none) and
// trades again once resumed; halt, reset and flatten act, through the API and the command line; every command is
// journaled with who gave it, why and how it ended; a command without the token is refused; no secret shows in
// any answer or in the command line's output.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Database from '../../src/journal/sqlite-driver.js';
import { parseDocument } from 'yaml';
import { main } from '../../src/app/cli.js';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import { parseConfig } from '../../src/config/load.js';
import type { ControlEvent, ControlStatus, OrderView, StrategyView } from '../../src/ops/control.js';
import type { StrategyDefinition } from '../../src/strategy/api.js';
import { systemClock } from '../../src/util/clock.js';
import futuresGrid from '../../examples/strategies/futures-grid/index.js';
import spotMarketMaker from '../../examples/strategies/spot-market-maker/index.js';
import { createLogger } from '../../src/util/logger.js';
import { waitFor } from '../fixtures/e2e.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-control-api-'));
const KEYS = { SEXTANT_API_KEY: 'CANARYKEYc0ntr01', SEXTANT_API_SECRET: 'CANARYSECRETc0ntr01', SEXTANT_API_PASSPHRASE: 'CANARYPASSc0ntr01' };
const TOKEN_ENV = 'SEXTANT_CONTROL_API_TEST_TOKEN';
const TOKEN = 'CANARYTOKENc0ntr01x';
const FUTURES = 'cmt_btcusdt';

// Buys at market once per step of its `orders` param: the reload that raises it makes one order, which fills.
writeFileSync(
  join(dir, 'taker.mjs'),
  [
    '// Opens a futures long at market, once for each step its `orders` param is raised.',
    'export default {',
    "  name: 'taker',",
    '  params: { safeParse: (raw) => ({ success: true, data: raw }), parse: (raw) => raw },',
    '  onMarket(ctx, update) {',
    '    const symbol = ctx.symbols[0];',
    '    const t = update.tickers.get(symbol);',
    '    const placed = ctx.state.placed ?? 0;',
    '    if (!t || !t.last || placed >= (ctx.params.orders ?? 0)) return;',
    '    ctx.state.placed = placed + 1;',
    "    return [{ kind: 'place', surface: 'futures', symbol, orders: [{ side: 'buy', kind: 'market', timeInForce: 'ioc', size: t.last.constructor.from('0.01'), positionSide: 'long' }] }];",
    '  },',
    '};',
    '',
  ].join('\n'),
);

const cfgFile = join(dir, 'control.yaml');
const journalPath = join(dir, 'journal.sqlite');
const doc = parseDocument(readFileSync('config/default.yaml', 'utf8'));
doc.setIn(['journal', 'path'], journalPath);
doc.setIn(['daemon', 'http', 'port'], 0);
doc.setIn(['daemon', 'http', 'tokenEnv'], TOKEN_ENV);
doc.setIn(['daemon', 'polls'], { tickersMs: 200, ordersMs: 300, balancesMs: 300, positionsMs: 300, ledgerMs: 60_000 });
doc.setIn(['daemon', 'reconcileCron'], '* * * * * *');
for (const surface of ['spot', 'futures']) {
  for (const pool of ['ip', 'uid']) doc.setIn(['exchange', 'rateLimit', surface, pool, 'budget'], 20_000);
  doc.setIn(['sim', 'budget', surface], { ip: 20_000, uid: 20_000 });
}
doc.setIn(['sim', 'tickIntervalMs'], 50);
doc.setIn(['execution', 'graceMs'], 500);
doc.setIn(['execution', 'lostAfterChecks'], 2);
doc.setIn(['strategyDirs'], [dir]);
const strategies = doc.getIn(['strategies']) as { add(x: unknown): void };
strategies.add(doc.createNode({ id: 'taker', name: 'taker', symbols: [FUTURES], params: { orders: 0 } }));
writeFileSync(cfgFile, doc.toString());

let daemon: Daemon;
let base: string;
let logText = '';
const cliOut: string[] = [];
const answers: string[] = [];

beforeAll(async () => {
  process.env[TOKEN_ENV] = TOKEN;
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void (logText += s) } });
  // The default config's strategies as loaded modules (the taker is loaded from its file, as the daemon does).
  const definitions = new Map([
    ['spot-market-maker', spotMarketMaker],
    ['futures-grid', futuresGrid],
  ] as Array<[string, StrategyDefinition<unknown>]>);
  daemon = await startDaemon(parseConfig(doc.toString(), cfgFile, KEYS), logger, systemClock, { definitions });
  base = daemon.opsUrl;
}, 30_000);

afterAll(async () => {
  await daemon?.stop('test over');
  delete process.env[TOKEN_ENV];
});

/** One API call with the token; every answer is kept for the canary check. */
async function api<T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown, token: string | null = TOKEN): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  answers.push(text, JSON.stringify([...res.headers]));
  return { status: res.status, body: JSON.parse(text) as T };
}

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['node', 'sextant', ...args], { out: (s) => void out.push(s), err: (s) => void err.push(s) });
  cliOut.push(...out, ...err);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The journal file as another process reads it. */
function journal<T>(sql: string, ...args: unknown[]): T[] {
  const db = new Database(journalPath, { readonly: true });
  try {
    return db.prepare(sql).all(...args) as T[];
  } finally {
    db.close();
  }
}

/** Resolves once the tickers poll has succeeded `n` more times (the strategies had `n` more updates). */
async function tickerPolls(n: number): Promise<void> {
  const at = async () => {
    const s = (await api<ControlStatus>('GET', '/status')).body;
    const age = s.polls.find((p) => p.poll === 'tickers')!.ageMs!;
    return s.nowMs - age;
  };
  const seen = new Set([await at()]);
  await waitFor(`${n} tickers polls`, async () => (seen.add(await at()), seen.size > n ? true : undefined), 15_000);
}

describe('the control API of a running daemon', () => {
  it('streams the fill of an order the simulator filled; a reload through the API made the order', async () => {
    await waitFor('ready', async () => ((await fetch(`${base}/ready`)).status === 200 ? true : undefined), 20_000);
    // Ready comes after the startup reconciliation: status says when it completed.
    const { reconciliation, nowMs } = (await api<ControlStatus>('GET', '/status')).body;
    expect(reconciliation.lastAtMs).not.toBeNull();
    expect(reconciliation.lastAtMs!).toBeLessThanOrEqual(nowMs);
    const controller = new AbortController();
    const res = await fetch(`${base}/api/v1/stream`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const frames = () => [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((m) => ({ kind: m[1], event: JSON.parse(m[2]!) as ControlEvent }));
    const takerFill = () => frames().find((f) => f.kind === 'fill' && f.event.data.strategyId === 'taker');
    // The taker's param raised in the file, applied through the API.
    writeFileSync(cfgFile, doc.toString().replace('orders: 0', 'orders: 1'));
    const reloaded = await api<{ ok: boolean; detail: string }>('POST', '/reload', { reason: 'one taker order' });
    expect(reloaded).toEqual({ status: 200, body: { ok: true, detail: 'strategy params reloaded' } });
    try {
      while (!takerFill()) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    } finally {
      controller.abort();
    }
    const fill = takerFill()!.event;
    expect(fill).toMatchObject({
      kind: 'fill',
      text: expect.stringMatching(/^taker cmt_btcusdt: \S+ buy (partially-)?filled 0\.01/),
      data: { symbol: FUTURES, side: 'buy', filledSize: '0.01' },
    });
    expect(frames().some((f) => f.kind === 'command' && f.event.data.command === 'reload')).toBe(true);
    // The same events are in the ring, and the order and its history through the API.
    const events = (await api<ControlEvent[]>('GET', '/events?limit=500')).body;
    expect(events.some((e) => e.kind === 'fill' && e.data.clientOid === fill.data.clientOid)).toBe(true);
    const order = await api<{ order: OrderView; history: Array<{ event: string }> }>('GET', `/orders/${String(fill.data.clientOid)}`);
    expect(order.body.order).toMatchObject({ strategyId: 'taker', symbol: FUTURES, side: 'buy', kind: 'market', size: '0.01' });
    expect(order.body.history[0]!.event).toBe('written');
    const positions = await waitFor(
      'the long',
      async () => {
        const p = (await api<Array<{ symbol: string; side: string; size: string }>>('GET', '/positions')).body;
        return p.some((x) => x.symbol === FUTURES) ? p : undefined;
      },
      10_000,
    );
    expect(positions).toContainEqual(expect.objectContaining({ symbol: FUTURES, side: 'long', size: '0.01' }));
  }, 40_000);

  it('a paused strategy makes no new orders; resumed, it trades again', async () => {
    const mine = () => journal<{ n: number }>("SELECT COUNT(*) AS n FROM orders WHERE strategy_id = 'mm-btc'")[0]!.n;
    await waitFor(
      "the market maker's quotes",
      async () => ((await api<OrderView[]>('GET', '/orders?strategy=mm-btc&scope=open')).body.some((o) => o.state === 'open') ? true : undefined),
      15_000,
    );
    const paused = await api<{ ok: boolean; detail: string }>('POST', '/strategies/mm-btc/pause', { cancelOrders: true, reason: 'inventory check' });
    // The market maker replaces its quotes all the time: how many were resting at the pause varies; none rests after it.
    expect(paused).toMatchObject({ status: 200, body: { ok: true, detail: expect.stringMatching(/^mm-btc paused: no new intents; \d+ order\(s\) canceled/) } });
    const strategies = (await api<StrategyView[]>('GET', '/strategies')).body;
    expect(strategies.find((s) => s.id === 'mm-btc')).toMatchObject({ state: 'paused', name: 'spot-market-maker', symbols: ['BTCUSDT_SPBL'] });
    expect(strategies.find((s) => s.id === 'taker')).toMatchObject({ state: 'running', pnl: { fills: expect.any(Number) } });
    const before = mine();
    // Several market updates later: still no new order of it (the others trade on).
    await tickerPolls(4);
    expect(mine()).toBe(before);
    expect((await api<OrderView[]>('GET', '/orders?strategy=mm-btc&scope=open')).body.filter((o) => o.state === 'open')).toEqual([]);
    const resumed = await cli('resume', 'mm-btc', '--url', base, '--config', cfgFile, '--reason', 'checked');
    expect(resumed).toEqual({ code: 0, out: 'mm-btc resumed', err: '' });
    await waitFor('a new quote', () => (mine() > before ? true : undefined), 15_000);
  }, 60_000);

  it('halt, reset and flatten act, from the command line and the API; each command is journaled', async () => {
    // No token: refused, and nothing journaled.
    expect(await api('POST', '/trading/halt', { reason: 'no token' }, null)).toEqual({ status: 401, body: { error: expect.stringMatching(/^unauthorized/) } });
    const halted = await cli('halt', '--reason', 'venue incident', '--url', base, '--config', cfgFile);
    expect(halted).toEqual({ code: 0, out: expect.stringMatching(/^halted: kill-switch:operator: venue incident/), err: '' });
    const status = (await api<ControlStatus>('GET', '/status')).body;
    expect(status).toMatchObject({ mode: 'live', tradingState: 'halted', latches: [{ name: 'kill-switch:operator', reason: 'venue incident' }] });
    expect(status.venue).toMatch(/^embedded simulator /);
    // The version running is the package's.
    expect(status.version).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
    expect(status.budget.length).toBeGreaterThan(0);
    const shown = await cli('status', '--url', base, '--config', cfgFile);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^trading +halted: kill-switch:operator: venue incident$/m);
    const json = await cli('strategies', '--json', '--url', base, '--config', cfgFile);
    expect((JSON.parse(json.out) as StrategyView[]).map((s) => s.id)).toEqual(['mm-btc', 'grid-eth', 'taker']);
    expect(await cli('reset', '--reason', 'incident over', '--url', base, '--config', cfgFile)).toEqual({
      code: 0,
      out: 'cleared: kill-switch:operator: venue incident',
      err: '',
    });
    expect((await api<ControlStatus>('GET', '/status')).body).toMatchObject({ tradingState: 'active', latches: [] });

    const flat = await api<{ ok: boolean; detail: string }>('POST', '/trading/flatten', { reason: 'end of test' });
    expect(flat).toMatchObject({ status: 200, body: { ok: true, detail: expect.stringMatching(/^halted and flattening: flatten pass done/) } });
    await waitFor('no position left', async () => ((await api<unknown[]>('GET', '/positions')).body.length === 0 ? true : undefined), 15_000);
    expect((await api('POST', '/trading/reset', { reason: 'flat' })).status).toBe(200);
    expect(await api('POST', '/strategies/nope/pause', {})).toEqual({ status: 404, body: { error: 'no strategy nope' } });

    const commands = journal<{ via: string; who: string; command: string; args: string; reason: string | null; ok: number; detail: string }>(
      'SELECT via, who, command, args, reason, ok, detail FROM commands ORDER BY id',
    );
    expect(commands.map((c) => [c.command, c.via, c.who, c.reason, c.ok])).toEqual([
      ['reload', 'api', 'token', 'one taker order', 1],
      ['pause', 'api', 'token', 'inventory check', 1],
      ['resume', 'cli', 'token', 'checked', 1],
      ['halt', 'cli', 'token', 'venue incident', 1],
      ['reset', 'cli', 'token', 'incident over', 1],
      ['flatten', 'api', 'token', 'end of test', 1],
      ['reset', 'api', 'token', 'flat', 1],
      ['pause', 'api', 'token', null, 0],
    ]);
    expect(JSON.parse(commands[1]!.args)).toEqual({ id: 'mm-btc', cancelOrders: true });
    expect(commands.at(-1)!.detail).toBe('no strategy nope');
    // The flatten's steps, journaled by the kill action.
    expect(journal<{ reason: string }>("SELECT reason FROM risk_decisions WHERE intent_kind = 'flatten'").map((r) => r.reason)).toContain(
      'flatten:close-positions',
    );
  }, 60_000);

  it('serves the dashboard page beside the API (daemon.http.dashboard, on by default)', async () => {
    const page = await fetch(`${base}/`);
    expect({ status: page.status, type: page.headers.get('content-type') }).toEqual({ status: 200, type: expect.stringMatching(/^text\/html/) });
    answers.push(await page.text());
  });

  it('the command line says so when no daemon answers', async () => {
    // A port nobody listens on: taken, then freed.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const r = await cli('status', '--url', `http://127.0.0.1:${port}`, '--config', cfgFile);
    expect(r).toEqual({
      code: 1,
      out: '',
      err: `no daemon answers at http://127.0.0.1:${port} (ECONNREFUSED): is \`sextant run\` running with this config? (--url to name another)`,
    });
  });

  it('shows no secret: not the API keys, not the token, in any answer or command output', async () => {
    for (const path of [
      '/status',
      '/strategies',
      '/orders?scope=recent&limit=1000',
      '/fills?limit=1000',
      '/balances',
      '/positions',
      '/equity',
      '/events?limit=500',
      '/openapi.json',
    ]) {
      expect({ path, status: (await api('GET', path)).status }).toEqual({ path, status: 200 });
    }
    const text = [...answers, ...cliOut].join('\n');
    expect(answers.length).toBeGreaterThan(40);
    const forms = (s: string) => [s, Buffer.from(s).toString('base64').replace(/=+$/, ''), Buffer.from(s).toString('hex')];
    for (const secret of [...Object.values(KEYS), TOKEN])
      for (const form of forms(secret)) expect({ form, found: text.includes(form) }).toEqual({ form, found: false });
    for (const secret of [...Object.values(KEYS), TOKEN]) expect(logText).not.toContain(secret);
  });
});

// The daemon in process against its embedded simulator: order activity as info log lines (intents, an accepted
// order, a denial, a cancel, kill-switch trips and resets), never a secret; faulted strategies in /health, and
// /ready not ready once every strategy is faulted.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { parseDocument } from 'yaml';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import { parseConfig } from '../../src/config/load.js';
import { LATCH_DRAWDOWN } from '../../src/execution/risk.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { systemClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { waitFor } from '../fixtures/e2e.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-activity-'));
const KEYS = { apiKey: 'activity-key-6f1c', apiSecret: 'activity-secret-9d2e', passphrase: 'activity-pass-3a7b' };
const ENV = { SEXTANT_API_KEY: KEYS.apiKey, SEXTANT_API_SECRET: KEYS.apiSecret, SEXTANT_API_PASSPHRASE: KEYS.passphrase };

// Strategies without imports (their values come from tickers and instruments): one scripted, one that throws.
writeFileSync(
  join(dir, 'scripted.mjs'),
  [
    '// Places one resting bid and cancels it once accepted; asks once for a bid at twice the price (outside the band).',
    'export default {',
    "  name: 'scripted',",
    '  params: { safeParse: (raw) => ({ success: true, data: raw }), parse: (raw) => raw },',
    '  onMarket(ctx, update) {',
    '    const symbol = ctx.symbols[0];',
    '    const t = update.tickers.get(symbol);',
    '    const inst = ctx.instruments.get(symbol);',
    '    if (ctx.state.placed || !t || !t.last || !inst) return;',
    '    ctx.state.placed = true;',
    '    let below = inst.tickSize;',
    '    for (let i = 0; i < 12; i++) below = below.add(below);',
    "    const order = (price) => ({ side: 'buy', kind: 'limit', timeInForce: 'post_only', price, size: inst.minSize });",
    "    return [{ kind: 'place', surface: 'spot', symbol, orders: [order(t.last.sub(below))] }, { kind: 'place', surface: 'spot', symbol, orders: [order(t.last.add(t.last))] }];",
    '  },',
    '  onEvent(ctx, e) {',
    "    if (e.type === 'accepted') return [{ kind: 'cancel', surface: 'spot', symbol: e.symbol, orderIds: [e.orderId] }];",
    '  },',
    '};',
    '',
  ].join('\n'),
);
const throwerLine =
  "export default { name: 'thrower', params: { safeParse: (raw) => ({ success: true, data: raw }), parse: (raw) => raw }, onMarket() { throw new Error('boom'); } };";
writeFileSync(join(dir, 'thrower.mjs'), ['// Throws on every market update.', throwerLine, ''].join('\n'));
/** Where the strategy throws, as its faults name it: its file, line and column (of the error made). */
const throwSite = `${join(dir, 'thrower.mjs')}:2:${throwerLine.indexOf("new Error('boom')") + 1}`;

interface Line {
  level: string;
  component?: string;
  msg: string;
  [k: string]: unknown;
}

let daemons: Daemon[] = [];
afterEach(async () => {
  for (const d of daemons) await d.stop('test over');
  daemons = [];
});

async function start(name: string, strategies: unknown[]): Promise<{ daemon: Daemon; lines: () => Line[]; text: () => string; journalPath: string }> {
  const doc = parseDocument(readFileSync('config/default.yaml', 'utf8'));
  const journalPath = join(dir, `${name}.sqlite`);
  doc.setIn(['journal', 'path'], journalPath);
  doc.setIn(['daemon', 'http', 'port'], 0);
  doc.setIn(['daemon', 'polls'], { tickersMs: 300, ordersMs: 600, balancesMs: 300, positionsMs: 1000 });
  // Reconciliation only at start: no pass of the tracker races the executor's cancel.
  doc.setIn(['daemon', 'reconcileCron'], '0 0 0 * * *');
  doc.setIn(['daemon', 'maxStrategyErrors'], 1);
  for (const surface of ['spot', 'futures']) {
    for (const pool of ['ip', 'uid']) doc.setIn(['exchange', 'rateLimit', surface, pool, 'budget'], 20_000);
    doc.setIn(['sim', 'budget', surface], { ip: 20_000, uid: 20_000 });
  }
  doc.setIn(['strategyDirs'], [dir]);
  doc.setIn(['strategies'], strategies);
  const loaded = parseConfig(doc.toString(), join(dir, `${name}.yaml`), ENV);
  let text = '';
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void (text += s) } });
  const daemon = await startDaemon(loaded, logger, systemClock);
  daemons.push(daemon);
  const lines = () =>
    text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Line);
  return { daemon, lines, text: () => text, journalPath };
}

const activity = (lines: Line[], event: string, strategy?: string) =>
  lines.filter((l) => l.component === 'activity' && l.event === event && (!strategy || l.strategy === strategy));

describe('the daemon tells its order activity', () => {
  it('an accepted order, a denial and a cancel: one info line each with its fields; kill-switch trips and resets; no secret', async () => {
    const run = await start('activity', [{ id: 'scripted', name: 'scripted', symbols: ['BTCUSDT_SPBL'] }]);
    const canceled = await waitFor('the cancel', () => activity(run.lines(), 'canceled', 'scripted')[0], 20_000);
    const lines = run.lines();
    const [accepted, ...moreAccepted] = activity(lines, 'accepted', 'scripted');
    expect(moreAccepted).toEqual([]);
    expect(accepted).toMatchObject({
      level: 'info',
      msg: 'order accepted',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      trigger: false,
      orderId: expect.stringMatching(/^\d+$/),
      clientOid: expect.stringMatching(/_scripted_/),
    });
    expect(activity(lines, 'canceled')).toHaveLength(1);
    expect(canceled).toMatchObject({
      level: 'info',
      msg: 'order canceled',
      symbol: 'BTCUSDT_SPBL',
      orderId: accepted!.orderId,
      clientOid: accepted!.clientOid,
    });
    const denied = activity(lines, 'denied', 'scripted');
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({
      level: 'info',
      msg: 'order denied',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      reason: 'price-band',
      detail: expect.stringMatching(/% from .*band 2 %/),
    });
    const intents = activity(lines, 'intent', 'scripted').map((l) => ({ level: l.level, kind: l.kind, symbol: l.symbol, orders: l.orders }));
    expect(intents).toEqual([
      { level: 'info', kind: 'place', symbol: 'BTCUSDT_SPBL', orders: 1 },
      { level: 'info', kind: 'place', symbol: 'BTCUSDT_SPBL', orders: 1 },
      { level: 'info', kind: 'cancel', symbol: 'BTCUSDT_SPBL', orders: 1 },
    ]);

    // A kill switch latched by another process (as a drawdown trip would), then reset (`sextant risk reset`).
    const other = new SqliteJournal(run.journalPath, { clientOidPrefix: 'sx' });
    try {
      other.setLatch(LATCH_DRAWDOWN, 'drawdown 12 % from peak 100000', systemClock.now());
      const tripped = await waitFor('the trip', () => activity(run.lines(), 'trading-state')[0], 10_000);
      expect(tripped).toMatchObject({
        level: 'warn',
        msg: 'trading state changed',
        state: 'halted',
        reason: 'kill-switch:drawdown: drawdown 12 % from peak 100000',
      });
      other.clearLatch(LATCH_DRAWDOWN);
      const reset = await waitFor('the reset', () => activity(run.lines(), 'trading-state')[1], 10_000);
      expect(reset).toMatchObject({ level: 'info', msg: 'trading state changed', state: 'active', reason: 'kill-switch:drawdown reset' });
    } finally {
      other.close();
    }
    expect(activity(run.lines(), 'trading-state')).toHaveLength(2);
    for (const secret of Object.values(KEYS)) expect(run.text()).not.toContain(secret);
  }, 60_000);
});

describe('/health and /ready with faulted strategies', () => {
  it('/health names the faulted strategy with its reason; /ready stays ready while another strategy runs', async () => {
    const run = await start('one-faulted', [
      { id: 'scripted', name: 'scripted', symbols: ['BTCUSDT_SPBL'] },
      { id: 'thrower', name: 'thrower', symbols: ['ETHUSDT_SPBL'] },
    ]);
    const health = await waitFor(
      'the fault',
      async () => {
        const h = (await (await fetch(`${run.daemon.opsUrl}/health`)).json()) as { faulted?: unknown };
        return h.faulted ? h : undefined;
      },
      20_000,
    );
    expect(health).toMatchObject({ status: 'ok', faulted: [{ id: 'thrower', reason: `1 errors, the last in onMarket: boom (at ${throwSite})` }] });
    const ready = await waitFor(
      'ready',
      async () => {
        const r = await fetch(`${run.daemon.opsUrl}/ready`);
        return r.status === 200 ? ((await r.json()) as Record<string, unknown>) : undefined;
      },
      10_000,
    );
    expect(ready.strategiesFaulted).toBeUndefined();
  }, 60_000);

  it('/ready is not ready once every strategy is faulted, and names them', async () => {
    const run = await start('all-faulted', [{ id: 'thrower', name: 'thrower', symbols: ['ETHUSDT_SPBL'] }]);
    const ready = await waitFor(
      'not ready for the fault',
      async () => {
        const r = await fetch(`${run.daemon.opsUrl}/ready`);
        const body = (await r.json()) as Record<string, unknown>;
        return r.status === 503 && body.strategiesFaulted ? body : undefined;
      },
      20_000,
    );
    expect(ready).toMatchObject({
      status: 'not ready',
      fenced: null,
      tradingState: 'active',
      strategiesFaulted: `every strategy is faulted: thrower (1 errors, the last in onMarket: boom (at ${throwSite}))`,
    });
  }, 60_000);
});

// The daemon in process against its embedded simulator over HTTP, with risk.onKill: flatten. A strategy opens a
// futures position, rests a reduce-only order and a stop (trigger) order, and is denied an opening order near
// liquidation (risk.minLiquidationDistancePct); the distance shows in /metrics. `sextant risk kill` (another
// process, through the journal) latches the kill switch: the daemon cancels the orders (F28 normal), the trigger
// orders (F28 plan) and closes the position (F27), once, journaling each step. Read back at the simulator through
// F3, F4, F5 and F21.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import Database from '../../src/journal/sqlite-driver.js';
import { parseDocument } from 'yaml';
import { main } from '../../src/app/cli.js';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import { createLiveClient } from '../../src/app/kernel.js';
import { parseConfig } from '../../src/config/load.js';
import { Decimal } from '../../src/domain/decimal.js';
import { systemClock } from '../../src/util/clock.js';
import { createLogger, silentLogger } from '../../src/util/logger.js';
import { opsAuthOf, waitFor } from '../fixtures/e2e.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-flatten-'));
const KEYS = { SEXTANT_API_KEY: 'flatten-key-41c7', SEXTANT_API_SECRET: 'flatten-secret-8e0a', SEXTANT_API_PASSPHRASE: 'flatten-pass-2d95' };
const SYMBOL = 'cmt_btcusdt';

// Opens a long at market; once the position shows, rests a reduce-only sell above the market and a stop below it,
// and asks for one more opening buy (near liquidation: denied). No imports: a Decimal's own class makes the numbers.
writeFileSync(
  join(dir, 'opener.mjs'),
  [
    '// Opens a futures long, then rests a reduce-only sell and a stop, and asks for one more opening buy.',
    'export default {',
    "  name: 'opener',",
    '  params: { safeParse: (raw) => ({ success: true, data: raw }), parse: (raw) => raw },',
    '  onMarket(ctx, update) {',
    '    const symbol = ctx.symbols[0];',
    '    const t = update.tickers.get(symbol);',
    '    const inst = ctx.instruments.get(symbol);',
    '    if (!t || !t.last || !inst) return;',
    '    const D = t.last.constructor;',
    '    const at = (ratio, mode) => t.last.mul(D.from(ratio)).roundToStep(inst.tickSize, mode);',
    '    if (!ctx.state.opened) {',
    '      ctx.state.opened = true;',
    "      return [{ kind: 'place', surface: 'futures', symbol, orders: [{ side: 'buy', kind: 'market', timeInForce: 'ioc', size: D.from('0.01'), positionSide: 'long' }] }];",
    '    }',
    "    const held = update.positions.find((p) => p.symbol === symbol && p.side === 'long');",
    '    if (ctx.state.rested || !held) return;',
    '    ctx.state.rested = true;',
    '    return [',
    "      { kind: 'place', surface: 'futures', symbol, orders: [{ side: 'sell', kind: 'limit', timeInForce: 'gtc', price: at('1.015', 'up'), size: held.size, positionSide: 'long', reduceOnly: true }] },",
    "      { kind: 'place-trigger', symbol, positionSide: 'long', reduceOnly: true, size: held.size, triggerPrice: at('0.985', 'down') },",
    "      { kind: 'place', surface: 'futures', symbol, orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: at('0.99', 'down'), size: D.from('0.01'), positionSide: 'long' }] },",
    '    ];',
    '  },',
    '};',
    '',
  ].join('\n'),
);

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

describe('the kill switch flattens (risk.onKill: flatten)', () => {
  it('orders and trigger orders canceled, the position closed at the simulator, once; every step journaled', async () => {
    const doc = parseDocument(readFileSync('config/default.yaml', 'utf8'));
    const journalPath = join(dir, 'journal.sqlite');
    const cfgFile = join(dir, 'flatten.yaml');
    doc.setIn(['journal', 'path'], journalPath);
    doc.setIn(['daemon', 'http', 'port'], 0);
    doc.setIn(['daemon', 'polls'], { tickersMs: 300, ordersMs: 500, balancesMs: 300, positionsMs: 300, ledgerMs: 1000 });
    doc.setIn(['daemon', 'reconcileCron'], '* * * * * *');
    for (const surface of ['spot', 'futures']) {
      for (const pool of ['ip', 'uid']) doc.setIn(['exchange', 'rateLimit', surface, pool, 'budget'], 20_000);
      doc.setIn(['sim', 'budget', surface], { ip: 20_000, uid: 20_000 });
    }
    // A small account: 0.01 BTC (about 900 USDT) on 200 USDT of collateral is about 20 % from liquidation.
    doc.setIn(['sim', 'accounts', 'futuresCollateral'], '200');
    doc.setIn(['sim', 'tickIntervalMs'], 100);
    doc.setIn(['risk', 'onKill'], 'flatten');
    doc.setIn(['risk', 'minLiquidationDistancePct'], '50');
    doc.setIn(['strategyDirs'], [dir]);
    doc.setIn(['strategies'], [{ id: 'opener', name: 'opener', symbols: [SYMBOL] }]);
    writeFileSync(cfgFile, doc.toString());
    const loaded = parseConfig(doc.toString(), cfgFile, KEYS);
    let text = '';
    const logger = createLogger({ level: 'info', destination: { write: (s: string) => void (text += s) } });
    const daemon = await startDaemon(loaded, logger, systemClock);
    daemons.push(daemon);
    const lines = () =>
      text
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Line);
    const venue = createLiveClient(
      { ...loaded, config: { ...loaded.config, exchange: { ...loaded.config.exchange, spotBaseUrl: daemon.simUrl!, futuresBaseUrl: daemon.simUrl! } } },
      silentLogger,
      systemClock,
    );
    let seen = '';
    try {
      // The position, its resting close and its stop, at the simulator.
      await waitFor(
        'the position, the resting order and the stop',
        async () => {
          const [positions, open, triggers] = await Promise.all([venue.positions(SYMBOL), venue.openOrders('futures', SYMBOL), venue.triggerOrders(SYMBOL)]);
          // F5 lists a trigger order waiting for its price too.
          const resting = open.filter((o) => o.status !== 'untriggered');
          seen = `${positions.length} position(s), ${resting.length} resting order(s), ${triggers.length} trigger order(s)`;
          return positions.length === 1 && resting.length === 1 && triggers.length === 1 ? true : undefined;
        },
        30_000,
      ).catch((err: unknown) => Promise.reject(new Error(`${String(err)}: ${seen}`)));
      const [position] = await venue.positions(SYMBOL);
      expect(position).toMatchObject({ side: 'long', size: expect.anything() });
      expect(position!.size.toString()).toBe('0.01');
      // The opening buy near liquidation was denied, and journaled as a risk decision; the distance is a metric.
      const denied = await waitFor('the denial', () => lines().find((l) => l.component === 'activity' && l.event === 'denied'), 10_000);
      expect(denied).toMatchObject({
        reason: 'liquidation-distance',
        symbol: SYMBOL,
        detail: expect.stringMatching(/^cmt_btcusdt long: mark \S+ is \S+ % from liquidation at \S+ \(minimum 50 %\): only reduce-only orders$/),
      });
      const metrics = await (await fetch(`${daemon.opsUrl}/metrics`, { headers: opsAuthOf(daemon) })).text();
      const distance = /sextant_liquidation_distance_pct\{symbol="cmt_btcusdt",side="long"\} (\S+)/.exec(metrics);
      expect(Number(distance?.[1])).toBeGreaterThan(10);
      expect(Number(distance?.[1])).toBeLessThan(30);
      expect(metrics).toMatch(/sextant_margin_rate \d/);
      expect(metrics).toMatch(/sextant_maintenance_rate 0\.0\d/);
      // The funding watch reads the ledger (F30) on its own schedule.
      expect(metrics).toMatch(/sextant_poll_age_seconds\{poll="ledger"\} \d/);
      expect(metrics).toMatch(/sextant_exchange_requests_total\{endpoint="F30",outcome="ok"\} [1-9]/);

      // Another process latches the kill switch, as an operator does.
      const out: string[] = [];
      const code = await main(['node', 'sextant', 'risk', 'kill', '--reason', 'flatten test', '-c', cfgFile], {
        out: (s) => void out.push(s),
        err: (s) => void out.push(s),
      });
      expect({ code, out }).toEqual({ code: 0, out: [expect.stringMatching(/^halted: flatten test/)] });

      await waitFor(
        'everything flat at the simulator',
        async () => {
          const [positions, open, triggers] = await Promise.all([venue.positions(SYMBOL), venue.openOrders('futures', SYMBOL), venue.triggerOrders(SYMBOL)]);
          return positions.length === 0 && open.length === 0 && triggers.length === 0 ? true : undefined;
        },
        20_000,
      );
      const [collateral] = await venue.balances('futures');
      expect({ asset: collateral!.asset, positive: collateral!.total.gt(Decimal.ZERO) }).toEqual({ asset: 'USDT', positive: true }); // F3: the collateral left
      await waitFor(
        'the kill action to conclude',
        () => lines().find((l) => l.component === 'kill-action' && l.msg === 'kill action complete: nothing left'),
        15_000,
      );
      // The journal's rows of the canceled orders are settled by the reconciliation that follows.
      await waitFor(
        'the journal settled',
        () => {
          const db = new Database(journalPath, { readonly: true });
          try {
            const rows = db.prepare("SELECT state FROM orders WHERE state IN ('open', 'untriggered', 'canceling')").all();
            return rows.length === 0 ? true : undefined;
          } finally {
            db.close();
          }
        },
        15_000,
      );
    } finally {
      await venue.close();
    }
    const db = new Database(journalPath, { readonly: true });
    try {
      const intents = db.prepare("SELECT strategy_id AS strategyId, kind, json FROM intents WHERE kind = 'flatten'").all() as Array<{
        strategyId: string;
        kind: string;
        json: string;
      }>;
      expect(intents).toHaveLength(1); // once per latch
      expect(intents[0]!.strategyId).toBe('risk');
      expect(JSON.parse(intents[0]!.json)).toMatchObject({ latch: 'kill-switch:operator', reason: 'flatten test', pass: 1, futures: [SYMBOL], spot: [] });
      const steps = db.prepare("SELECT reason, detail FROM risk_decisions WHERE intent_kind = 'flatten' ORDER BY id").all() as Array<{
        reason: string;
        detail: string;
      }>;
      expect(steps.map((s) => s.reason)).toEqual(['flatten:cancel-orders', 'flatten:cancel-triggers', 'flatten:close-positions']);
      const [orders, triggers, close] = steps.map(
        (s) => JSON.parse(s.detail) as { symbol: string; endpoint: string; answers: Array<{ ok: boolean; orderId?: string | null }> },
      );
      expect(orders).toMatchObject({ symbol: SYMBOL, endpoint: 'F28', answers: [{ ok: true }] });
      expect(triggers).toMatchObject({ symbol: SYMBOL, endpoint: 'F28', answers: [{ ok: true }] });
      expect(close).toMatchObject({ symbol: SYMBOL, endpoint: 'F27', answers: [{ ok: true, orderId: expect.stringMatching(/^\d+$/) }] });
      const denials = db.prepare("SELECT reason FROM risk_decisions WHERE reason = 'liquidation-distance'").all();
      expect(denials).toHaveLength(1);
      const states = db.prepare('SELECT client_oid, is_trigger, reduce_only, state FROM orders ORDER BY created_at').all() as Array<{
        is_trigger: number;
        reduce_only: number;
        state: string;
      }>;
      expect(states.map((s) => [s.is_trigger, s.reduce_only, s.state])).toEqual([
        [0, 0, 'filled'],
        [0, 1, 'canceled'],
        [1, 1, 'canceled'],
      ]);
    } finally {
      db.close();
    }
    const warned = lines()
      .filter((l) => l.component === 'kill-action' && l.level === 'warn')
      .map((l) => l.msg);
    expect(warned).toEqual([expect.stringMatching(/^kill switch: flattening/)]);
    for (const secret of Object.values(KEYS)) expect(text).not.toContain(secret);
  }, 90_000);
});

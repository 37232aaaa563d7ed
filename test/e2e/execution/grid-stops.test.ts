// The shipped backtest (config/backtest.yaml) with the futures grid's trailing stop on, through the whole pipeline:
// every client id reaches the venue once, never two live stops of one role on one position side (the journal's
// order history, and the venue at each placing), the trailing stop moves and fires, and no stop is left behind once
// the grid's long is flat.
import '../../fixtures/backtest-in-jest.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import Database from '../../../src/journal/sqlite-driver.js';
import type { Surface } from '../../../src/domain/market.js';
import type { OrderRequest, TpSlRequest, TriggerOrderRequest } from '../../../src/exchange/client.js';

/** What the simulator was sent and saw: client ids of every placing, and live stops of the same role found at a placing. */
const seen = { clientOids: [] as string[], overlaps: [] as string[] };
const made: Array<import('../../../src/exchange/sim/simulated-exchange.js').SimulatedExchange> = [];
const actual = await import('../../../src/exchange/sim/simulated-exchange.js');
class WatchedExchange extends actual.SimulatedExchange {
  constructor(...args: ConstructorParameters<typeof actual.SimulatedExchange>) {
    super(...args);
    made.push(this);
  }
  override placeOrders(surface: Surface, symbol: string, orders: OrderRequest[]) {
    seen.clientOids.push(...orders.map((o) => o.clientOid));
    return super.placeOrders(surface, symbol, orders);
  }
  override placeTrigger(req: TriggerOrderRequest) {
    seen.clientOids.push(req.clientOid);
    return super.placeTrigger(req);
  }
  override placeTpSl(req: TpSlRequest) {
    seen.clientOids.push(req.clientOid);
    const live = this.engine.pendingTriggers(req.symbol).filter((o) => o.role === req.role && o.positionSide === req.positionSide);
    if (live.length > 0) seen.overlaps.push(`${req.clientOid} placed while ${live.map((o) => o.clientOid).join(', ')} live`);
    return super.placeTpSl(req);
  }
}
jest.unstable_mockModule('../../../src/exchange/sim/simulated-exchange.js', () => ({ ...actual, SimulatedExchange: WatchedExchange }));

const { loadConfig } = await import('../../../src/config/load.js');
const { runBacktest } = await import('../../../src/app/backtest.js');
const { silentLogger } = await import('../../../src/util/logger.js');

const GRID = 'grid-eth';
const CONTRACT = 'cmt_ethusdt';
const FINAL = new Set(['rejected', 'canceled', 'filled', 'closed', 'not-placed', 'vanished']);

describe('the futures grid with its trailing stop (config/backtest.yaml)', () => {
  const out = mkdtempSync(join(tmpdir(), 'sextant-grid-stops-'));
  let journal: Database.Database;
  beforeAll(async () => {
    const loaded = loadConfig('config/backtest.yaml', {});
    expect(loaded.config.strategies.find((s) => s.id === GRID)?.params).toMatchObject({ trailBps: expect.any(Number) });
    const result = await runBacktest(loaded, silentLogger, { outDir: out });
    expect(result.faults).toEqual([]);
    journal = new Database(join(out, 'journal.sqlite'), { readonly: true });
  });

  const stopRows = () =>
    journal
      .prepare(
        'SELECT client_oid AS oid, role, position_side AS side, size, state FROM orders WHERE strategy_id = ? AND role IS NOT NULL ORDER BY created_at, client_oid',
      )
      .all(GRID) as Array<{ oid: string; role: string; side: string; size: string; state: string }>;

  it('the stops are placed, moved by the trailing, and fire', () => {
    const rows = stopRows();
    expect(rows.length).toBeGreaterThan(2);
    expect(rows.filter((r) => r.state === 'filled').length).toBeGreaterThan(0);
    // Canceled: resized, or removed once the long was flat.
    expect(rows.filter((r) => r.state === 'canceled').length).toBeGreaterThan(0);
    const moves = journal
      .prepare("SELECT COUNT(*) AS n FROM order_events e JOIN orders o USING (client_oid) WHERE o.role IS NOT NULL AND e.event LIKE 'moved to %'")
      .get() as { n: number };
    expect(moves.n).toBeGreaterThan(0);
    expect(journal.prepare("SELECT COUNT(*) AS n FROM orders WHERE strategy_id = ? AND state = 'rejected'").get(GRID)).toEqual({ n: 0 });
  });

  it('no client id is sent twice', () => {
    expect(seen.clientOids.length).toBeGreaterThan(50);
    expect(new Set(seen.clientOids).size).toBe(seen.clientOids.length);
  });

  it('never two live stops of one role on one position side, by the journal and at the venue', () => {
    expect(seen.overlaps).toEqual([]);
    // Each stop is live from being written until its first final state; the next of its role and side is written after.
    const events = journal.prepare('SELECT state, at_ms AS atMs FROM order_events WHERE client_oid = ? ORDER BY id');
    const spans = stopRows().map((r) => {
      const history = events.all(r.oid) as Array<{ state: string; atMs: number }>;
      const end = history.find((h) => FINAL.has(h.state));
      return { ...r, from: history[0]!.atMs, to: end ? end.atMs : Number.POSITIVE_INFINITY };
    });
    const keys = new Set(spans.map((s) => `${s.role}|${s.side}`));
    for (const key of keys) {
      const mine = spans.filter((s) => `${s.role}|${s.side}` === key);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.from).toBeGreaterThanOrEqual(mine[i - 1]!.to);
      expect(mine.filter((s) => s.to === Number.POSITIVE_INFINITY).length).toBeLessThanOrEqual(1);
    }
  });

  it('at the end: no stop left behind when the long is flat, else one stop-loss sized to it', () => {
    const sim = made.at(-1)!;
    const long = sim.positionsNow(CONTRACT).find((p) => p.side === 'long');
    const pending = sim.engine.pendingTriggers(CONTRACT).filter((o) => o.role);
    if (!long) expect(pending).toEqual([]);
    else expect(pending.map((o) => [o.role, o.positionSide, sim.engine.toOrder(o).size.toString()])).toEqual([['stop-loss', 'long', long.size.toString()]]);
  });
});

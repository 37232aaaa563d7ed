// Real process death: a bot process kills itself with SIGKILL at each kill point; a new process recovers from
// the journal (a SQLite file; a PostgreSQL database, a schema per run). The venue (`sextant sim`) is audited against
// the journal afterwards.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { KILL_POINTS } from '../../../src/execution/kill-points.js';
import { DEFAULT_INSTRUMENTS } from '../../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../../src/exchange/sim/market.js';
import { SimServer } from '../../../src/exchange/sim/server.js';
import { PostgresJournal } from '../../../src/journal/postgres-journal.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { systemClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { dropPostgresSchemas, freshPostgresUrl } from '../../fixtures/postgres.js';

const CREDS = { apiKey: 'sk-key', apiSecret: 'sk-secret', passphrase: 'sk-pass' };
const dir = mkdtempSync(join(tmpdir(), 'sextant-sigkill-'));
afterAll(() => dropPostgresSchemas());

function child(cfg: object): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['test/fixtures/bot-child.mjs', JSON.stringify(cfg)], { env: { PATH: process.env.PATH } });
    let out = '';
    p.stdout.on('data', (x) => (out += String(x)));
    p.stderr.on('data', (x) => (out += String(x)));
    p.on('close', (code, signal) => resolve({ code, signal, out }));
  });
}

describe('SIGKILL at each kill point, then a new process recovers', () => {
  const cases = (['sqlite', 'postgres'] as const).flatMap((backend) => KILL_POINTS.map((p, i) => [backend, p, 1 + (i % 2)] as const));
  it.each(cases)('%s journal: %s (hit %d)', async (backend, killPoint, hitAt) => {
    const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 77, startMs: systemClock.now(), tickIntervalMs: 1000 });
    const server = new SimServer({
      market,
      accounts: { spot: { USDT: '1000000' }, futuresCollateral: '1000000', leverage: 20 },
      credentials: CREDS,
      budget: { spot: { ip: 1e9, uid: 1e9 }, futures: { ip: 1e9, uid: 1e9 }, windowMs: 10_000, orderRequestsPerSecond: 1e9 },
      clock: systemClock,
      logger: silentLogger,
    });
    const url = await server.listen(0, '127.0.0.1');
    try {
      const spot = server.engine.ticker('BTCUSDT_SPBL')!.last!;
      const fut = server.engine.ticker('cmt_btcusdt')!.last!;
      const at = (p: Decimal, k: string) => p.mul(Decimal.from(k)).roundToStep(Decimal.from('0.1'), 'down').toString();
      const targets = { BTCUSDT_SPBL: [at(spot, '0.99'), at(spot, '0.98')], cmt_btcusdt: [at(fut, '1.01'), at(fut, '1.02')] };
      const journalPath = join(dir, `${killPoint}.sqlite`);
      const journalUrl = backend === 'postgres' ? freshPostgresUrl(`sigkill_${killPoint.replace(/-/g, '_')}`) : undefined;
      const base = { url, creds: CREDS, journalPath, ...(journalUrl ? { journalUrl } : {}), targets, killPoint, hitAt };
      const life = await child({ ...base, mode: 'life' });
      expect({ signal: life.signal, out: life.out }).toEqual({ signal: 'SIGKILL', out: '' });
      const recover = await child({ ...base, mode: 'recover', killPoint: 'none' });
      expect({ code: recover.code, out: recover.out }).toEqual({ code: 0, out: 'done\n' });

      const journal = journalUrl ? new PostgresJournal(journalUrl, { clientOidPrefix: 'sx' }) : new SqliteJournal(journalPath, { clientOidPrefix: 'sx' });
      const rows = journal.allOrders();
      journal.close();
      const venueAll = [...server.engine.history('BTCUSDT_SPBL'), ...server.engine.history('cmt_btcusdt')];
      for (const v of venueAll)
        expect({ clientOid: v.clientOid, orderId: rows.find((r) => r.clientOid === v.clientOid)?.orderId }).toEqual({
          clientOid: v.clientOid,
          orderId: v.orderId,
        });
      const open = [...server.engine.openOrders('spot'), ...server.engine.openOrders('futures')].map((o) => server.engine.toOrder(o));
      for (const [symbol, prices] of Object.entries(targets)) {
        for (const p of prices)
          expect({ symbol, p, resting: open.filter((o) => o.symbol === symbol && o.price!.toString() === p).length }).toEqual({ symbol, p, resting: 1 });
      }
      expect(rows.filter((r) => r.state === 'unknown' || r.state === 'sending')).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

// One writer per account, and failover: two `sextant run` daemons on one account and one journal, with an account
// lease. The second waits as a standby; the active one is killed (SIGKILL) mid-trading and the standby takes over
// within the lease's time; a holder that was frozen (SIGSTOP) and comes back finds its token stale, writes nothing
// and stops. The venue (`sextant sim`) is audited against the journal: no order lost, none sent twice. A new holder
// that finds the SQLite journal locked (the test holds the lock as a holder frozen mid-write would) waits for it,
// its lease kept, and trades once it is free.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parseDocument } from 'yaml';
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../src/exchange/sim/market.js';
import { SimServer } from '../../src/exchange/sim/server.js';
import { PostgresJournal } from '../../src/journal/postgres-journal.js';
import Database from '../../src/journal/sqlite-driver.js';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { JournalFencedError, type Journal } from '../../src/journal/journal.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { OPS_AUTH, OPS_TOKEN, waitFor } from '../fixtures/e2e.js';
import { dropPostgresSchemas, freshPostgresUrl } from '../fixtures/postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-failover-'));
const KEYS = { apiKey: 'failover-key', apiSecret: 'failover-secret', passphrase: 'failover-pass' };
const TTL_MS = 3000;

interface Line {
  msg?: string;
  level?: number;
  time?: number;
  [k: string]: unknown;
}

/** A `sextant run` child: its log lines (JSON), the time each arrived, and its exit. */
function daemon(name: string, cfg: string) {
  const p: ChildProcess = spawn(process.execPath, ['bin/sextant.js', 'run', '--config', cfg], {
    env: {
      PATH: process.env.PATH ?? '',
      SEXTANT_HTTP_TOKEN: OPS_TOKEN,
      SEXTANT_API_KEY: KEYS.apiKey,
      SEXTANT_API_SECRET: KEYS.apiSecret,
      SEXTANT_API_PASSPHRASE: KEYS.passphrase,
    },
  });
  const lines: Array<Line & { seenAtMs: number }> = [];
  let text = '';
  let rest = '';
  p.stdout!.on('data', (d) => {
    rest += String(d);
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const l of parts) {
      text += `${l}\n`;
      try {
        lines.push({ ...(JSON.parse(l) as Line), seenAtMs: Date.now() });
      } catch {
        // not a log line
      }
    }
  });
  p.stderr!.on('data', (d) => (text += String(d)));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => p.on('close', (code, signal) => resolve({ code, signal })));
  // A wait that runs out says what the daemon said last.
  const line = (what: string, test: (l: Line) => boolean, ms: number) =>
    waitFor(`${name}: ${what}`, () => lines.find(test), ms).catch((err: Error) => {
      throw new Error(`${err.message}; ${name} said last:\n${text.split('\n').slice(-15).join('\n')}`);
    });
  return { name, p, lines, exit, line, text: () => text };
}

type Daemon = ReturnType<typeof daemon>;
const running: Daemon[] = [];
afterAll(async () => {
  for (const d of running) if (d.p.exitCode === null && d.p.signalCode === null) d.p.kill('SIGKILL');
  dropPostgresSchemas();
});

/** Where the journal and the lease are: a SQLite file with the lease in Redis, or both in one PostgreSQL schema. */
interface Backend {
  journal: { path: string } | { url: string };
  lease: string;
  open(): Journal;
}

const backends: Array<[string, () => Backend]> = [
  [
    'SQLite journal, lease in Redis',
    () => {
      const path = join(dir, `journal-${Date.now()}.sqlite`);
      return { journal: { path }, lease: 'redis://127.0.0.1:6379', open: () => new SqliteJournal(path, { clientOidPrefix: 'sx' }) };
    },
  ],
  [
    'PostgreSQL journal and lease',
    () => {
      const url = freshPostgresUrl('failover');
      return { journal: { url }, lease: 'journal', open: () => new PostgresJournal(url, { clientOidPrefix: 'sx' }) };
    },
  ],
];

function config(backend: Backend, url: string, keyPrefix: string): string {
  const doc = parseDocument(readFileSync('config/default.yaml', 'utf8'));
  doc.setIn(['sim', 'embedded'], false);
  doc.setIn(['exchange', 'spotBaseUrl'], url);
  doc.setIn(['exchange', 'futuresBaseUrl'], url);
  doc.setIn(['journal'], backend.journal);
  doc.setIn(['daemon', 'http', 'port'], 0);
  doc.setIn(['daemon', 'polls'], { tickersMs: 300, ordersMs: 600, balancesMs: 1000, positionsMs: 1000 });
  doc.setIn(['daemon', 'reconcileCron'], '* * * * * *');
  doc.setIn(['daemon', 'shutdown', 'cancelOpenOrders'], false);
  doc.setIn(['daemon', 'lease'], { store: backend.lease, ttlMs: TTL_MS, keyPrefix });
  for (const surface of ['spot', 'futures']) for (const pool of ['ip', 'uid']) doc.setIn(['exchange', 'rateLimit', surface, pool, 'budget'], 20_000);
  const file = join(dir, `${keyPrefix.replace(/\W/g, '-')}.yaml`);
  writeFileSync(file, doc.toString());
  return file;
}

/** The venue (`sextant sim`) on loopback, with budgets nobody reaches, and every order it has had. */
async function venue(seed: number) {
  const server = new SimServer({
    market: new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed, startMs: systemClock.now(), tickIntervalMs: 50 }),
    accounts: { spot: { USDT: '1000000', BTC: '10' }, futuresCollateral: '1000000', leverage: 20 },
    credentials: KEYS,
    budget: { spot: { ip: 1e9, uid: 1e9 }, futures: { ip: 1e9, uid: 1e9 }, windowMs: 10_000, orderRequestsPerSecond: 1e9 },
    clock: systemClock,
    logger: silentLogger,
  });
  const url = await server.listen(0, '127.0.0.1');
  return { server, url, venueOrders: () => [...server.engine.history('BTCUSDT_SPBL'), ...server.engine.history('cmt_ethusdt')] };
}

const isLine = (msg: string) => (l: Line) => l.msg === msg;
const JOURNAL_LOCKED = 'the journal is locked by another process (a previous holder that stopped mid-write): waiting for it, the lease kept';

describe('account lease: a hot standby takes over, a stale holder cannot write', () => {
  it.each(backends)(
    '%s: SIGKILL of the active daemon mid-trading; a frozen one that comes back stops without writing; the venue matches the journal',
    async (_name, make) => {
      const backend = make();
      const { server, url, venueOrders } = await venue(11);
      const cfg = config(backend, url, `sextant-test:lease:${process.pid}:${Date.now()}`);
      try {
        // A trades; B waits as a standby, /ready saying who holds the lease.
        const a = daemon('A', cfg);
        running.push(a);
        const aTaken = await a.line('lease taken', isLine('account lease taken'), 60_000);
        await a.line('running', isLine('daemon running'), 60_000);
        await waitFor('orders from A at the venue', () => (venueOrders().length >= 4 ? true : undefined), 60_000);
        const b = daemon('B', cfg);
        running.push(b);
        const bWaiting = await b.line('standby', isLine('taking the account lease before trading'), 60_000);
        await b.line('told the holder', isLine('standby: the account lease is held by another daemon'), 60_000);
        const ready = await fetch(`${String(bWaiting.opsUrl)}/ready`);
        const readyBody = (await ready.json()) as { standby: string };
        expect({ status: ready.status, standby: readyBody.standby }).toEqual({
          status: 503,
          standby: expect.stringContaining(`token ${String(aTaken.fencingToken)}`),
        });
        expect(b.lines.some(isLine('daemon running'))).toBe(false);

        // SIGKILL A mid-trading: B takes the lease within its time to live (plus the standby's asking interval).
        const before = venueOrders().length;
        const killedAtMs = Date.now();
        a.p.kill('SIGKILL');
        expect(await a.exit).toEqual({ code: null, signal: 'SIGKILL' });
        const bTaken = await b.line('lease taken', isLine('account lease taken'), 20_000);
        expect(bTaken.seenAtMs - killedAtMs).toBeLessThanOrEqual(TTL_MS + TTL_MS / 5 + 2500);
        expect(Number(bTaken.fencingToken)).toBeGreaterThan(Number(aTaken.fencingToken));
        await b.line('running', isLine('daemon running'), 60_000);
        await waitFor('orders from B at the venue', () => (venueOrders().length >= before + 4 ? true : undefined), 60_000);

        // C waits; B is frozen past its lease; C takes over and trades; B comes back: stale, it stops without writing.
        const c = daemon('C', cfg);
        running.push(c);
        await c.line('standby', isLine('standby: the account lease is held by another daemon'), 60_000);
        const frozenAtMs = Date.now();
        b.p.kill('SIGSTOP');
        const cTaken = await c.line('lease taken', isLine('account lease taken'), 20_000);
        expect(Number(cTaken.fencingToken)).toBeGreaterThan(Number(bTaken.fencingToken));
        // B frozen in the middle of a write holds the journal's lock: C says so and waits, its lease kept, until B's
        // PostgreSQL session is ended (5 s idle in its transaction), or, SQLite, until B runs again (it is resumed now,
        // finds its lease gone and stops).
        let resumedAtMs: number | undefined;
        const cStart = await waitFor(
          'C: running, or waiting for the journal',
          () => c.lines.find((l) => l.msg === 'daemon running' || l.msg === JOURNAL_LOCKED),
          60_000,
        );
        if (cStart.msg === JOURNAL_LOCKED) {
          if ('path' in backend.journal) {
            resumedAtMs = Date.now();
            b.p.kill('SIGCONT');
          }
          await c.line('journal fenced', isLine('journal fenced: another process no longer holds its lock'), 20_000);
        }
        const cRunning = await c.line('running', isLine('daemon running'), 60_000);
        const status = (await (await fetch(`${String(cRunning.opsUrl)}/api/v1/status`, { headers: OPS_AUTH })).json()) as { lease: unknown };
        expect(status.lease).toEqual({ holder: expect.any(String), fencingToken: Number(cTaken.fencingToken), held: true });
        const beforeC = venueOrders().length;
        await waitFor('orders from C at the venue', () => (venueOrders().length >= beforeC + 4 ? true : undefined), 60_000);
        if (resumedAtMs === undefined) {
          resumedAtMs = Date.now();
          b.p.kill('SIGCONT');
        }
        const bEnd = await Promise.race([b.exit, new Promise<'running'>((r) => setTimeout(() => r('running'), 20_000))]);
        expect({ exit: bEnd, lost: b.lines.some(isLine('account lease lost: trading stops')) }).toEqual({ exit: { code: 3, signal: null }, lost: true });
        // Nothing B did after it came back reached the venue (its writes are refused before sending; the audit below
        // would find an order of its at the venue that the journal does not hold). An order B accepts after it came
        // back is one it had on the wire when it froze: its row was written before.
        const lateAccepts = b.lines.filter((l) => l.seenAtMs >= resumedAtMs! && l.msg === 'order accepted');
        if (lateAccepts.length > 0) {
          const journal = backend.open();
          try {
            for (const l of lateAccepts)
              expect({ clientOid: l.clientOid, writtenBeforeFreeze: (journal.order(String(l.clientOid))?.createdAtMs ?? Infinity) < frozenAtMs }).toEqual({
                clientOid: l.clientOid,
                writtenBeforeFreeze: true,
              });
          } finally {
            journal.close();
          }
        }

        // The audit: every venue order is in the journal once, with its venue id (an order sent just before a holder
        // died is resolved by the next one through the venue); client ids never repeat at the venue. A row whose
        // outcome is still unknown is one the venue does not have (a batch item it left out of its answer): the
        // tracker concludes it within its own bound (execution.vanishAfterMs), not this test's.
        const audit = () => {
          const journal = backend.open();
          try {
            const rows = new Map(journal.allOrders().map((r) => [r.clientOid, r]));
            const all = venueOrders();
            const problems = all
              .filter((v) => rows.get(v.clientOid)?.orderId !== v.orderId)
              .map(
                (v) => `${v.clientOid}: venue ${v.orderId}, journal ${rows.get(v.clientOid)?.orderId ?? 'none'} (${rows.get(v.clientOid)?.state ?? 'no row'})`,
              );
            if (new Set(all.map((v) => v.clientOid)).size !== all.length) problems.push('a client id repeats at the venue');
            return problems;
          } finally {
            journal.close();
          }
        };
        let problems: string[] = [];
        await waitFor('the journal to match the venue', () => ((problems = audit()).length === 0 ? true : undefined), 60_000).catch(() => undefined);
        // What the daemons said of the first order in question, when there is one.
        const first = /^(\S+?):? /.exec(problems[0] ?? '')?.[1];
        const evidence = first
          ? [a, b, c].flatMap((d) =>
              d
                .text()
                .split('\n')
                .filter((l) => l.includes(first))
                .map((l) => `${d.name}: ${l}`),
            )
          : [];
        expect({ problems, evidence }).toEqual({ problems: [], evidence: [] });
        c.p.kill('SIGTERM');
        expect(await c.exit).toEqual({ code: 0, signal: null });
        expect(audit()).toEqual([]);

        // B's token is stale for good: a write under it is refused, and nothing is written.
        const journal: Journal = backend.open();
        try {
          const before = journal.allOrders().length;
          expect(() => journal.fence(Number(bTaken.fencingToken))).toThrow(JournalFencedError);
          expect(() => journal.recordIntent('mm-btc', 'place', '{}', Date.now())).toThrow(JournalFencedError);
          expect(() => journal.nextClientOids('mm-btc', 1)).toThrow(JournalFencedError);
          expect(journal.allOrders()).toHaveLength(before);
        } finally {
          journal.close();
        }
      } finally {
        await server.close();
      }
    },
    420_000,
  );
});

describe('a SQLite journal another process keeps locked (as a holder frozen in the middle of a write does)', () => {
  it('the new holder waits for it, its lease kept past its time to live, then trades; a stop while it waits ends it with 0', async () => {
    const backend = backends[0]![1]();
    const { server, url, venueOrders } = await venue(12);
    const cfg = config(backend, url, `sextant-test:lease:${process.pid}:${Date.now()}:locked`);
    let holder: InstanceType<typeof Database> | undefined;
    try {
      // A first start binds the journal to the venue (a write of its own), then stops, giving the lease back.
      const first = daemon('first', cfg);
      running.push(first);
      await first.line('running', isLine('daemon running'), 60_000);
      first.p.kill('SIGINT');
      expect(await first.exit).toEqual({ code: 0, signal: null });
      holder = new Database((backend.journal as { path: string }).path);
      holder.exec('BEGIN IMMEDIATE');
      const d = daemon('D', cfg);
      running.push(d);
      await d.line('lease taken', isLine('account lease taken'), 60_000);
      await d.line('waiting for the journal', isLine(JOURNAL_LOCKED), 20_000);
      // Two lifetimes of the lease later: still held (renewed meanwhile), nothing traded.
      await new Promise((r) => setTimeout(r, 2 * TTL_MS));
      expect({ lost: d.lines.some(isLine('account lease lost: trading stops')), running: d.lines.some(isLine('daemon running')) }).toEqual({
        lost: false,
        running: false,
      });
      const before = venueOrders().length;
      holder.exec('ROLLBACK');
      await d.line('journal fenced', isLine('journal fenced: another process no longer holds its lock'), 10_000);
      await d.line('running', isLine('daemon running'), 30_000);
      await waitFor('orders from D at the venue', () => (venueOrders().length >= before + 2 ? true : undefined), 60_000);
      d.p.kill('SIGINT');
      expect(await d.exit).toEqual({ code: 0, signal: null });

      // Stopped while it waits: nothing traded, exit 0.
      holder.exec('BEGIN IMMEDIATE');
      const e = daemon('E', cfg);
      running.push(e);
      await e.line('waiting for the journal', isLine(JOURNAL_LOCKED), 60_000);
      e.p.kill('SIGINT');
      expect(await e.exit).toEqual({ code: 0, signal: null });
      expect({ givenUp: e.lines.some(isLine('start given up')), running: e.lines.some(isLine('daemon running')) }).toEqual({ givenUp: true, running: false });
    } finally {
      if (holder?.inTransaction) holder.exec('ROLLBACK');
      holder?.close();
      await server.close();
    }
  }, 240_000);
});

// Journal write latency on the compiled dist/: insertOrders of one order (what the executor waits for before it
// sends), then updateOrder, on a SQLite file and on PostgreSQL ($SEXTANT_TEST_POSTGRES_URL or the local server), each
// unfenced and fenced. Usage: npm run build && node bench/journal-write.js [orders]. Median and p99 in ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresConnection } from '../dist/journal/postgres-connection.js';
import { PostgresJournal } from '../dist/journal/postgres-journal.js';
import { SqliteJournal } from '../dist/journal/sqlite-journal.js';

const N = Number(process.argv[2] ?? 2000);
const PG = process.env.SEXTANT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const row = (clientOid, t) => ({
  clientOid,
  strategyId: 's',
  intentId: 1,
  surface: 'spot',
  symbol: 'BTCUSDT_SPBL',
  side: 'buy',
  kind: 'limit',
  timeInForce: 'gtc',
  price: '100.5',
  size: '0.01',
  positionSide: null,
  reduceOnly: false,
  isTrigger: false,
  triggerPrice: null,
  orderId: null,
  state: 'sending',
  filledSize: '0',
  avgPrice: null,
  fee: null,
  createdAtMs: t,
  updatedAtMs: t,
  seenAtMs: null,
  absentChecks: 0,
  absentSinceMs: null,
  lastError: null,
});

function measure(name, journal) {
  const insert = [];
  const update = [];
  for (let i = 0; i < N; i++) {
    const oid = `b${i}`;
    let t0 = process.hrtime.bigint();
    journal.insertOrders([row(oid, i)]);
    insert.push(Number(process.hrtime.bigint() - t0) / 1e6);
    t0 = process.hrtime.bigint();
    journal.updateOrder(oid, { state: 'canceled', orderId: String(7e17 + i) }, 'canceled', i + 1);
    update.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const stat = (xs) => {
    xs.sort((a, b) => a - b);
    return { medianMs: +xs[xs.length >> 1].toFixed(3), p99Ms: +xs[Math.floor(xs.length * 0.99)].toFixed(3) };
  };
  process.stdout.write(`${JSON.stringify({ name, orders: N, insertOrders: stat(insert), updateOrder: stat(update) })}\n`);
}

const dir = mkdtempSync(join(tmpdir(), 'sextant-journal-bench-'));
for (const fenced of [false, true]) {
  const sqlite = new SqliteJournal(join(dir, `j-${fenced}.sqlite`), { clientOidPrefix: 'sx' });
  if (fenced) sqlite.fence(1);
  measure(`sqlite file${fenced ? ', fenced' : ''}`, sqlite);
  sqlite.close();
  const admin = new PostgresConnection(PG);
  const schema = `sx_bench_${process.pid}_${fenced}`;
  admin.exec(`CREATE SCHEMA ${schema}`);
  const url = new URL(PG);
  url.searchParams.set('options', `-c search_path=${schema}`);
  try {
    const pg = new PostgresJournal(url.toString(), { clientOidPrefix: 'sx' });
    if (fenced) pg.fence(1);
    measure(`postgres${fenced ? ', fenced' : ''}`, pg);
    pg.close();
  } finally {
    admin.exec(`DROP SCHEMA ${schema} CASCADE`);
    admin.close();
  }
}
rmSync(dir, { recursive: true, force: true });

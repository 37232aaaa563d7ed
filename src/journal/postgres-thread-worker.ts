// The thread side of a PostgreSQL connection (postgres-connection.ts): owns a pg client, runs each message's statements
// in order (named prepared statements, one per text), answers with the last one's result or the first failure. A
// connection that broke is opened again at the next message. BIGINT columns come back as numbers (times in ms, ids,
// counts), or as their exact text beyond 2^53.
import pg from 'pg';
import { LOCK_TIMEOUT_MS, type PostgresRequest, type PostgresThreadData, type Statement } from './postgres-protocol.js';
import { reply, threadStart, wire } from './sync-thread-serve.js';

const start = threadStart<PostgresThreadData>();
const INT8 = 20;

const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary'): ((text: string) => unknown) => {
    if (oid === INT8) {
      return (text: string) => {
        const n = Number(text);
        return Number.isSafeInteger(n) ? n : text;
      };
    }
    return pg.types.getTypeParser(oid, format as 'text') as (text: string) => unknown;
  },
};

let client: pg.Client | undefined;
/** Prepared statement names by text, for the client they were prepared on. */
let names = new Map<string, string>();

async function connection(): Promise<pg.Client> {
  if (client) return client;
  const c = new pg.Client({
    connectionString: start.url,
    types,
    application_name: 'sextant journal',
    keepAlive: true,
    connectionTimeoutMillis: 10_000,
    query_timeout: 60_000,
  });
  c.on('error', () => {
    if (client === c) client = undefined;
  });
  c.on('end', () => {
    if (client === c) client = undefined;
  });
  try {
    await c.connect();
    // Set here, not as connection options (a URL's own `options`, a search_path, would replace them). A writer
    // waiting on the fence row or a lock waits 10 s at most (SQLite's busy timeout does the same). A transaction left
    // open by a process that froze mid-write (stopped, swapped out) ends with its session after 5 s, so its locks
    // never hold up the daemon that took the account's lease over; its own next write finds the session gone.
    await c.query(`SET lock_timeout = ${LOCK_TIMEOUT_MS}; SET idle_in_transaction_session_timeout = 5000`);
  } catch (err) {
    void c.end().catch(() => undefined);
    throw err;
  }
  client = c;
  names = new Map();
  return c;
}

async function run(c: pg.Client, [text, params, mode]: Statement): Promise<unknown> {
  if (mode === 'exec') {
    await c.query(text);
    return undefined;
  }
  let name = names.get(text);
  if (!name) names.set(text, (name = `sx${names.size}`));
  const r = await c.query({ name, text, values: params });
  switch (mode) {
    case 'run':
      return { changes: r.rowCount ?? 0, lastInsertRowid: 0 };
    case 'get':
      return r.rows[0];
    case 'all':
      return r.rows;
  }
}

async function take(m: PostgresRequest): Promise<void> {
  try {
    if (m.close) {
      const c = client;
      client = undefined;
      await c?.end();
      return reply(start, { value: undefined });
    }
    const c = await connection();
    let value: unknown;
    for (const st of m.batch ?? []) value = await run(c, st);
    reply(start, { value });
  } catch (err) {
    reply(start, { error: wire(err) });
  }
}

// One message at a time, in the order posted.
let queue = Promise.resolve();
start.port.on('message', (m: PostgresRequest) => {
  queue = queue.then(() => take(m));
});

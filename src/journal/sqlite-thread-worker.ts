// The thread side of a database on a worker thread (sqlite-thread.ts): owns the database, runs what it is sent in
// the order sent, answers the calls that wait (the answer posted, then the shared flag set and waited on).
import { writeFileSync } from 'node:fs';
import { receiveMessageOnPort } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { SLOT, type Answer, type Call, type Request, type WireError } from './sqlite-thread-protocol.js';
import { reply, threadStart, wire } from './sync-thread-serve.js';

// However the thread ends, a caller waiting for an answer stops waiting: set before anything that may fail is loaded.
const start = threadStart();
const { port, state } = start;

/** The database, or why it could not be opened (what every call is answered with then). */
let db!: BetterSqlite3.Database;
let unopened: WireError | undefined;
try {
  const { default: Database } = await import('./sqlite-driver.js');
  db = new Database(':memory:');
} catch (err) {
  unopened = wire(err);
}
const texts = new Map<number, string>();
const statements = new Map<number, BetterSqlite3.Statement>();
/** Failures of writes nobody waited for, until a call is answered with them (the first, and how many more). */
let failure: WireError | undefined;
let moreFailures = 0;

/** Prepared on first use (a text that does not prepare is tried again at its next use). */
function statement(id: number): BetterSqlite3.Statement {
  let st = statements.get(id);
  if (!st) {
    const text = texts.get(id);
    if (text === undefined) throw new Error(`no statement ${id}`);
    statements.set(id, (st = db.prepare(text)));
  }
  return st;
}

/**
 * A batch of writes, as one flush of the writer: each runs (one that fails does not keep the others from the table);
 * the failures are kept to be told, none dropped.
 */
function write(writes: Array<number | unknown[] | null>): void {
  if (unopened) return;
  for (let i = 0; i < writes.length; i += 2) {
    const id = writes[i] as number;
    const params = writes[i + 1] as unknown[] | null;
    try {
      if (params) statement(id).run(...params);
      else db.exec(texts.get(id)!);
    } catch (err) {
      if (failure) moreFailures++;
      else failure = wire(err);
      Atomics.store(state, SLOT.failed, 1);
    }
  }
}

function perform(call: Call): unknown {
  switch (call[0]) {
    case 'run': {
      const r = statement(call[1]).run(...call[2]);
      return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
    }
    case 'get':
      return statement(call[1]).get(...call[2]);
    case 'all':
      return statement(call[1]).all(...call[2]);
    case 'pragma':
      return db.pragma(call[1], { simple: call[2] });
    case 'inTransaction':
      return db.inTransaction;
    case 'serialize':
      return db.serialize();
    case 'save':
      writeFileSync(call[1], db.serialize());
      return undefined;
    case 'close':
      db.close();
      return undefined;
    case 'check':
      return undefined;
  }
}

function answer(call: Call): void {
  let a: Answer;
  if (unopened) {
    a = { error: unopened };
  } else if (failure) {
    // A write that failed is told first; what was asked is not done (it would see what the failure left).
    a = {
      error:
        moreFailures === 0 ? failure : { ...failure, message: `${failure.message} (and ${moreFailures} more write${moreFailures === 1 ? '' : 's'} failed)` },
    };
    failure = undefined;
    moreFailures = 0;
    Atomics.store(state, SLOT.failed, 0);
  } else {
    try {
      a = { value: perform(call) };
    } catch (err) {
      a = { error: wire(err) };
    }
  }
  reply(start, a);
}

function take(m: Request): void {
  if (m.defs) for (const [id, text] of m.defs) texts.set(id, text);
  if (m.writes) write(m.writes);
  if (m.call) answer(m.call);
}

/**
 * Polls of the port after a message (some hundred microseconds) before the thread waits in its event loop: a caller
 * that asks often is answered at once (a thread woken from its wait answers tens of microseconds later).
 */
const POLLS = 5000;

port.on('message', (m: Request) => {
  take(m);
  for (let i = 0; i < POLLS; i++) {
    const next = receiveMessageOnPort(port);
    if (next) {
      take(next.message as Request);
      i = 0;
    }
  }
});

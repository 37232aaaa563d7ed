// The SQLite journal's schema, as numbered migrations: the user_version is how many have been applied; a new
// change is a new entry at the end, never an edit of one already shipped.
export const MIGRATIONS: string[] = [
  // 1: the first schema
  `CREATE TABLE intents (id INTEGER PRIMARY KEY AUTOINCREMENT, strategy_id TEXT NOT NULL, kind TEXT NOT NULL, json TEXT NOT NULL, at_ms INTEGER NOT NULL);
   CREATE TABLE sequences (strategy_id TEXT PRIMARY KEY, next INTEGER NOT NULL);
   CREATE TABLE orders (
     client_oid TEXT PRIMARY KEY, strategy_id TEXT NOT NULL, intent_id INTEGER NOT NULL, surface TEXT NOT NULL, symbol TEXT NOT NULL,
     side TEXT NOT NULL, kind TEXT NOT NULL, time_in_force TEXT NOT NULL, price TEXT, size TEXT NOT NULL, position_side TEXT,
     reduce_only INTEGER NOT NULL, is_trigger INTEGER NOT NULL, trigger_price TEXT, order_id TEXT, state TEXT NOT NULL,
     filled_size TEXT NOT NULL, avg_price TEXT, fee TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
     absent_checks INTEGER NOT NULL DEFAULT 0, last_error TEXT);
   CREATE INDEX orders_state ON orders(state);
   CREATE INDEX orders_order_id ON orders(order_id);
   CREATE TABLE order_events (id INTEGER PRIMARY KEY AUTOINCREMENT, client_oid TEXT NOT NULL, event TEXT NOT NULL, state TEXT NOT NULL, at_ms INTEGER NOT NULL);
   CREATE INDEX order_events_oid ON order_events(client_oid);
   CREATE TABLE fills (fill_id TEXT PRIMARY KEY, client_oid TEXT NOT NULL, order_id TEXT NOT NULL, price TEXT NOT NULL, size TEXT NOT NULL, fee TEXT NOT NULL, at_ms INTEGER NOT NULL);
   CREATE TABLE risk_decisions (id INTEGER PRIMARY KEY AUTOINCREMENT, strategy_id TEXT NOT NULL, intent_kind TEXT NOT NULL, reason TEXT NOT NULL, detail TEXT NOT NULL, at_ms INTEGER NOT NULL);
   CREATE TABLE latches (name TEXT PRIMARY KEY, reason TEXT NOT NULL, at_ms INTEGER NOT NULL);
   CREATE TABLE equity (id INTEGER PRIMARY KEY AUTOINCREMENT, surface TEXT NOT NULL, value TEXT NOT NULL, at_ms INTEGER NOT NULL);`,
  // 2: strategy instances' state, kept across restarts
  `CREATE TABLE strategy_state (strategy_id TEXT PRIMARY KEY, json TEXT NOT NULL, at_ms INTEGER NOT NULL);`,
  // 3: when the venue last showed an order; the venue and account the journal belongs to
  `ALTER TABLE orders ADD COLUMN seen_at_ms INTEGER;
   CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL, at_ms INTEGER NOT NULL);`,
  // 4: when an order's run of failed lookups began (an order vanishes only after a time without it)
  `ALTER TABLE orders ADD COLUMN absent_since_ms INTEGER;`,
  // 5: what a trigger order is to its position (a managed stop-loss or take-profit); funding settled on the account
  `ALTER TABLE orders ADD COLUMN role TEXT;
   CREATE TABLE funding (ref TEXT PRIMARY KEY, symbol TEXT NOT NULL, amount TEXT NOT NULL, at_ms INTEGER NOT NULL);`,
  // 6: operators' commands (who, why, what, and how they ended); the queries by strategy and time
  `CREATE TABLE commands (id INTEGER PRIMARY KEY AUTOINCREMENT, via TEXT NOT NULL, who TEXT NOT NULL, command TEXT NOT NULL, args TEXT NOT NULL,
     reason TEXT, at_ms INTEGER NOT NULL, ok INTEGER, detail TEXT, done_at_ms INTEGER);
   CREATE INDEX orders_strategy_created ON orders(strategy_id, created_at);
   CREATE INDEX orders_created ON orders(created_at);
   CREATE INDEX fills_client_oid ON fills(client_oid);
   CREATE INDEX equity_at ON equity(at_ms);`,
  // 7: the fence: the largest lease token a writer has written under (a writer with a smaller one is refused)
  `CREATE TABLE journal_fence (id INTEGER PRIMARY KEY CHECK (id = 1), token INTEGER NOT NULL);
   INSERT INTO journal_fence (id, token) VALUES (1, 0);`,
];

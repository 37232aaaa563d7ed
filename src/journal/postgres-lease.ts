// The account lease kept in PostgreSQL (the journal's database): one row per account in account_leases, never
// deleted, so each new grant's token is larger than every one before, of any account; each call is one statement,
// atomic under the row's lock, and times to live run on the database's clock (clock_timestamp()). Its own pool of
// connections, async.
import pg from 'pg';
import type { LeaseGrant, LeaseHolder, LeaseStore } from '../domain/lease.js';
import { redactUrlCredentials, registerUrlCredentials, scrubSecrets } from '../util/logger.js';

const SCHEMA = `SELECT pg_advisory_xact_lock(${0x5e7a1e});
  CREATE TABLE IF NOT EXISTS account_leases (account TEXT PRIMARY KEY, holder TEXT, token BIGINT NOT NULL, expires_at TIMESTAMPTZ)`;

/** $3: the time to live in ms. */
const EXPIRES = "clock_timestamp() + $3::bigint * interval '1 millisecond'";

// Free, lapsed or held by the same holder: granted (a new token unless the same holder still holds it). A new token
// is above every token granted in the database (and above the account's own, read from its locked row): a journal
// rebound to other keys (another account here) keeps the fence the keys before left, which the first token of the
// keys after passes. No row back: another holder has it.
const ACQUIRE = `INSERT INTO account_leases AS l (account, holder, token, expires_at)
    VALUES ($1, $2, (SELECT COALESCE(MAX(token), 0) + 1 FROM account_leases), ${EXPIRES})
  ON CONFLICT (account) DO UPDATE SET
    token = CASE WHEN l.holder = excluded.holder AND l.expires_at > clock_timestamp() THEN l.token
      ELSE GREATEST(l.token, (SELECT MAX(token) FROM account_leases)) + 1 END,
    holder = excluded.holder, expires_at = excluded.expires_at
  WHERE l.holder IS NULL OR l.expires_at <= clock_timestamp() OR l.holder = excluded.holder
  RETURNING token`;

const RENEW = `UPDATE account_leases SET expires_at = clock_timestamp() + $4::bigint * interval '1 millisecond'
  WHERE account = $1 AND holder = $2 AND token = $3 AND expires_at > clock_timestamp()`;

const RELEASE = 'UPDATE account_leases SET holder = NULL, expires_at = NULL WHERE account = $1 AND holder = $2 AND token = $3';

const CURRENT = `SELECT holder, token, GREATEST(0, CEIL(EXTRACT(EPOCH FROM expires_at - clock_timestamp()) * 1000))::bigint AS ttl_left_ms
  FROM account_leases WHERE account = $1 AND holder IS NOT NULL AND expires_at > clock_timestamp()`;

/** A BIGINT as PostgreSQL sends it (text), as a number: tokens and times stay far below 2^53. */
function int(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`lease value ${text} is beyond 2^53`);
  return n;
}

export class PostgresLeaseStore implements LeaseStore {
  private readonly pool: pg.Pool;
  /** The database as it may be shown (no password). */
  private readonly where: string;
  private schema: Promise<unknown> | undefined;

  constructor(url: string) {
    registerUrlCredentials(url);
    // A renewal that cannot be made must say so soon, not wait.
    this.pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5000, query_timeout: 5000, application_name: 'sextant lease' });
    // Errors reach the caller through the queries; an idle connection that broke is replaced by the pool.
    this.pool.on('error', () => undefined);
    this.where = redactUrlCredentials(url);
  }

  private async query(text: string, values: unknown[]): Promise<pg.QueryResult> {
    try {
      this.schema ??= this.pool.query(SCHEMA).catch((err: unknown) => {
        this.schema = undefined;
        throw err;
      });
      await this.schema;
      return await this.pool.query(text, values);
    } catch (err) {
      throw new Error(`lease store PostgreSQL at ${this.where}: ${scrubSecrets((err as Error).message)}`, { cause: err });
    }
  }

  async acquire(account: string, holder: string, ttlMs: number): Promise<LeaseGrant | null> {
    const row = (await this.query(ACQUIRE, [account, holder, ttlMs])).rows[0] as { token: string } | undefined;
    return row ? { token: int(row.token), ttlMs } : null;
  }

  async renew(account: string, holder: string, token: number, ttlMs: number): Promise<boolean> {
    return (await this.query(RENEW, [account, holder, token, ttlMs])).rowCount === 1;
  }

  async release(account: string, holder: string, token: number): Promise<void> {
    await this.query(RELEASE, [account, holder, token]);
  }

  async current(account: string): Promise<LeaseHolder | null> {
    const row = (await this.query(CURRENT, [account])).rows[0] as { holder: string; token: string; ttl_left_ms: string } | undefined;
    return row ? { holder: row.holder, token: int(row.token), ttlLeftMs: int(row.ttl_left_ms) } : null;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

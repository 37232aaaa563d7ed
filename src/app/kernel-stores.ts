// The stores the kernel chooses for a configuration: the journal it writes to (a SQLite file, or a PostgreSQL database
// with its password from the environment), bound to the venue and account it trades, and the store of its account
// lease (Redis, or the PostgreSQL journal's database).
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import { DEFAULT_JOURNAL_PATH } from '../config/schema.js';
import { accountDigest } from '../domain/credentials.js';
import type { LeaseStore } from '../domain/lease.js';
import { bindJournal, type Journal, type VenueBinding } from '../journal/journal.js';
import { PostgresJournal } from '../journal/postgres-journal.js';
import { PostgresLeaseStore } from '../journal/postgres-lease.js';
import { RedisLeaseStore } from '../journal/redis-lease.js';
import { JournalLockedError, waitForJournalLock } from '../journal/journal-lock-wait.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import { SQLITE_NO_WAIT } from '../journal/sqlite-open.js';
import { systemClock, type Clock } from '../util/clock.js';
import { registerSecret, type Logger } from '../util/logger.js';

/** A URL as it may be shown: user and password taken out. */
function withoutCredentials(url: string): string {
  return url.replace(/^([a-z]+:\/\/)[^@/]*@/i, '$1');
}

/** The venue and account a journal is bound to, and whether the venue is new at every start. */
type JournalVenue = VenueBinding & { perStart: boolean };

/**
 * The venue and account a configuration trades, which its journal is bound to: the base URLs and a digest of
 * the API key (never the key; the venue names no account a key belongs to, so a rotated key is moved to with
 * `sextant journal rebind`). A venue that lives only as long as the process (the embedded simulator, dry-run's
 * paper venue) is a new one at every start.
 */
export function venueOf(loaded: LoadedConfig): JournalVenue {
  const cfg = loaded.config;
  if (cfg.sim.embedded) return { venue: `embedded simulator ${randomUUID()}`, account: 'demo', perStart: true };
  if (cfg.mode === 'dry-run') return { venue: `paper venue ${randomUUID()}`, account: 'paper', perStart: true };
  const venue = [cfg.exchange.spotBaseUrl, cfg.exchange.futuresBaseUrl].map(withoutCredentials).join(' ');
  const key = loaded.credentials?.apiKey;
  const account = key ? `key sha256:${accountDigest(key)}` : 'no key';
  return { venue, account, perStart: false };
}

/** The store of the account lease (daemon.lease): Redis at its URL, or the PostgreSQL journal's database. */
export function openLeaseStore(loaded: LoadedConfig): LeaseStore {
  const lease = loaded.config.daemon.lease;
  if (!lease) throw new Error('no account lease configured (daemon.lease)');
  if (lease.store !== 'journal') return new RedisLeaseStore(lease.store, lease.keyPrefix);
  const url = journalUrl(loaded);
  if (url === undefined) throw new Error('daemon.lease.store "journal" needs a PostgreSQL journal (journal.url)');
  return new PostgresLeaseStore(url);
}

/**
 * The PostgreSQL journal's URL as the driver takes it: journal.url with the password from SEXTANT_JOURNAL_PASSWORD
 * (or its _FILE variant) when one is set, registered as a secret (never shown); undefined for a SQLite journal.
 */
function journalUrl(loaded: LoadedConfig): string | undefined {
  const url = loaded.config.journal.url;
  if (url === undefined || loaded.journalPassword === undefined) return url;
  registerSecret(loaded.journalPassword);
  const u = new URL(url);
  u.password = encodeURIComponent(loaded.journalPassword);
  return u.toString();
}

/** A venue that lives only as long as its process: its journal means nothing once the process is gone. */
function isPerStart(binding: VenueBinding | undefined): boolean {
  return !!binding && /^(embedded simulator|paper venue) /.test(binding.venue);
}

/**
 * Opens the configured journal: a PostgreSQL database (journal.url), or a SQLite file, its folder owner-only when it
 * makes it. With `venue`, binds it: a journal of another venue or account is refused. For a venue that is new at
 * every start (the embedded simulator, the paper venue), the SQLite journal of an earlier such start is moved to
 * `<path>.previous` (replacing the one there: a dead demo venue's) and a fresh one begins; a journal that was never
 * bound but holds orders (written before journals were bound) is moved aside under a timestamped name, never deleted;
 * one bound to a real venue is refused. A PostgreSQL journal is for a real venue only (a database is not moved aside).
 * A SQLite file another process holds locked is waited for SQLite's busy timeout (5 s), then refused naming the file;
 * openJournalWaiting waits longer without holding up the process.
 */
export function openJournal(loaded: LoadedConfig, venue?: JournalVenue, onMovedAside?: (file: string) => void): Journal {
  const j = loaded.config.journal;
  if (j.url !== undefined) return openPostgresJournal(loaded, venue);
  const path = j.path ?? DEFAULT_JOURNAL_PATH;
  const sinceMs = systemClock.now();
  try {
    return openSqliteJournal(path, j.clientOidPrefix, venue, onMovedAside, false);
  } catch (err) {
    if (SQLITE_NO_WAIT.busy(err)) throw new JournalLockedError(path, systemClock.now() - sinceMs, "SQLite's busy timeout");
    throw err;
  }
}

export interface JournalOpenWait {
  clock: Clock;
  logger: Logger;
  onMovedAside?: (file: string) => void;
  /** Ends a wait for the lock early: rejects with what it resolves to (a stop, a lost lease). */
  until?: Promise<Error>;
}

/**
 * openJournal, with a SQLite file that another process holds locked (a daemon stopped in the middle of a write)
 * waited for when opening must write to it (its schema brought up to date, its first binding): logged once, asked
 * again every 200 ms without holding up the process, given up after journal.lockWaitMs with JournalLockedError
 * naming the file (or with what `until` resolves to, first). A journal that needs no write opens at once: reads do
 * not wait on the lock.
 */
export async function openJournalWaiting(loaded: LoadedConfig, venue: JournalVenue | undefined, wait: JournalOpenWait): Promise<Journal> {
  const j = loaded.config.journal;
  const path = j.path ?? DEFAULT_JOURNAL_PATH;
  if (j.url !== undefined || path === ':memory:') return openJournal(loaded, venue, wait.onMovedAside);
  const log = wait.logger.child({ component: 'journal' });
  return waitForJournalLock(path, () => openSqliteJournal(path, j.clientOidPrefix, venue, wait.onMovedAside, true), SQLITE_NO_WAIT.busy, {
    clock: wait.clock,
    boundMs: j.lockWaitMs,
    bound: 'journal.lockWaitMs',
    onWaiting: () =>
      log.warn(
        { journal: path, lockWaitMs: j.lockWaitMs },
        'the journal is locked by another process (one stopped in the middle of a write?): waiting for it to open the journal',
      ),
    onDone: (waitedMs) => log.info({ journal: path, waitedMs }, 'journal opened: the other process no longer holds its lock'),
    ...(wait.until ? { until: wait.until } : {}),
  });
}

function openPostgresJournal(loaded: LoadedConfig, venue: JournalVenue | undefined): Journal {
  if (venue?.perStart)
    throw new Error(
      'a PostgreSQL journal (journal.url) is for a real venue: the embedded simulator and dry-run start a new venue every time, keep their journal in a SQLite file (journal.path)',
    );
  const journal = new PostgresJournal(journalUrl(loaded)!, { clientOidPrefix: loaded.config.journal.clientOidPrefix });
  try {
    if (venue) bindJournal(journal, venue, journal.where, systemClock.now());
  } catch (err) {
    journal.close();
    throw err;
  }
  return journal;
}

/**
 * The SQLite journal at `path`, opened and bound as openJournal says. With `noWait`, a write that finds the lock held
 * (a migration, the binding) fails at once with SQLITE_BUSY, the journal closed, nothing moved aside or bound.
 */
function openSqliteJournal(
  path: string,
  clientOidPrefix: string,
  venue: JournalVenue | undefined,
  onMovedAside: ((file: string) => void) | undefined,
  noWait: boolean,
): SqliteJournal {
  const open = () => new SqliteJournal(path, { clientOidPrefix, noWait });
  if (path !== ':memory:') {
    const dir = dirname(path);
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
    }
  }
  let journal = open();
  if (!venue) return journal;
  const have = journal.venueBinding();
  const legacy = have === undefined && journal.allOrders().length > 0;
  if (venue.perStart && path !== ':memory:' && (isPerStart(have) || legacy)) {
    // Closing folds the WAL into the file, so the file moved is whole (SQLite removes the WAL of its last connection).
    journal.close();
    const aside = legacy ? `${path}.unbound-${new Date(systemClock.now()).toISOString().replace(/[:.]/g, '-')}` : `${path}.previous`;
    if (!legacy) for (const f of [aside, `${aside}-wal`, `${aside}-shm`]) rmSync(f, { force: true });
    renameSync(path, aside);
    onMovedAside?.(aside);
    journal = open();
  }
  const bound = journal;
  const bind = () => bindJournal(bound, venue, path, systemClock.now());
  try {
    if (noWait) bound.withoutWaiting(bind);
    else bind();
  } catch (err) {
    bound.close();
    throw err;
  }
  return bound;
}

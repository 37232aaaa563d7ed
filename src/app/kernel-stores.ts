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
import { SqliteJournal } from '../journal/sqlite-journal.js';
import { systemClock } from '../util/clock.js';
import { registerSecret } from '../util/logger.js';

/** A URL as it may be shown: user and password taken out. */
function withoutCredentials(url: string): string {
  return url.replace(/^([a-z]+:\/\/)[^@/]*@/i, '$1');
}

/**
 * The venue and account a configuration trades, which its journal is bound to: the base URLs and a digest of
 * the API key (never the key). A venue that lives only as long as the process (the embedded simulator, dry-run's
 * paper venue) is a new one at every start.
 */
export function venueOf(loaded: LoadedConfig): VenueBinding & { perStart: boolean } {
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
 */
export function openJournal(loaded: LoadedConfig, venue?: VenueBinding & { perStart: boolean }, onMovedAside?: (file: string) => void): Journal {
  const j = loaded.config.journal;
  if (j.url !== undefined) {
    if (venue?.perStart)
      throw new Error(
        'a PostgreSQL journal (journal.url) is for a real venue: the embedded simulator and dry-run start a new venue every time, keep their journal in a SQLite file (journal.path)',
      );
    const journal = new PostgresJournal(journalUrl(loaded)!, { clientOidPrefix: j.clientOidPrefix });
    try {
      if (venue) bindJournal(journal, venue, journal.where, systemClock.now());
    } catch (err) {
      journal.close();
      throw err;
    }
    return journal;
  }
  const path = j.path ?? DEFAULT_JOURNAL_PATH;
  const open = () => new SqliteJournal(path, { clientOidPrefix: j.clientOidPrefix });
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
  try {
    bindJournal(journal, venue, path, systemClock.now());
  } catch (err) {
    journal.close();
    throw err;
  }
  return journal;
}

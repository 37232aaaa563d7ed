// A daemon configured with an account lease (daemon.lease) takes it before anything trades. While another daemon
// holds it, this one is a standby: its ops server answers /health (alive) and /ready (503, naming the holder and its
// token), and it asks again every fifth of the lease's time to live until the lease is its own.
import type { LoadedConfig } from '../config/load.js';
import type { LeaseHolder } from '../domain/lease.js';
import type { Journal } from '../journal/journal.js';
import { sleepUnless, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { AccountLease, leaseAccountKey } from './account-lease.js';
import { Metrics, OpsServer, daemonToken } from './http.js';
import { openLeaseStore, venueOf } from './kernel-stores.js';

/**
 * Waits for the account's lease (config daemon.lease), serving /health and /ready as a standby meanwhile. Resolves to
 * the lease, held, or undefined when `stop` resolved first (or no lease is configured).
 */
export async function takeAccountLease(loaded: LoadedConfig, logger: Logger, clock: Clock, stop: Promise<unknown>): Promise<AccountLease | undefined> {
  const cfg = loaded.config;
  if (!cfg.daemon.lease) return undefined;
  const store = openLeaseStore(loaded);
  const venue = venueOf(loaded);
  const lease = new AccountLease({
    store,
    account: leaseAccountKey(venue),
    ttlMs: cfg.daemon.lease.ttlMs,
    clock,
    logger,
    ...(cfg.daemon.lease.holder ? { holder: cfg.daemon.lease.holder } : {}),
  });
  let waiting: { holder: LeaseHolder | null; error?: string } = { holder: null };
  const http = cfg.daemon.http;
  const ops = new OpsServer(
    new Metrics(),
    {
      health: () => ({ ok: true, detail: { standby: true, holder: lease.holder } }),
      ready: () => ({
        ok: false,
        detail: {
          standby: waiting.holder
            ? `the account lease is held by ${waiting.holder.holder} (token ${waiting.holder.token}, ${waiting.holder.ttlLeftMs} ms left)`
            : waiting.error
              ? `the lease store does not answer: ${waiting.error}`
              : 'taking the account lease',
          account: venue.account,
        },
      }),
      // A generated token is not written: the standby serves only /health and /ready (the daemon it becomes writes its own).
    },
    daemonToken(process.env, http.tokenEnv, http.host).token,
    { allowedHosts: http.allowedHosts, allowedOrigins: http.allowedOrigins },
  );
  const url = await ops.listen(http.port, http.host);
  logger.child({ component: 'daemon' }).info({ opsUrl: url, holder: lease.holder, account: venue.account }, 'taking the account lease before trading');
  try {
    const token = await lease.take(stop, (holder, err) => (waiting = { holder, ...(err ? { error: err.message } : {}) }));
    if (token !== undefined) return lease;
    await lease.close();
    return undefined;
  } catch (err) {
    await lease.close();
    throw err;
  } finally {
    await ops.close();
  }
}

/** How often a new holder asks again for a journal another process holds locked. */
const JOURNAL_ASK_MS = 200;

/** The start was given up before trading: stopped (a signal) or the lease lost meanwhile. */
export class StartAbandonedError extends Error {
  constructor(
    readonly reason: string,
    /** By a stop asked for (a signal), not a lost lease. */
    readonly stopped: boolean,
  ) {
    super(`${reason} while waiting for the journal: nothing traded`);
    this.name = 'StartAbandonedError';
  }
}

/**
 * Records the lease's token in the journal (journal.fence), without holding up the process: a previous holder that
 * stopped mid-write (frozen, swapped out) holds the journal's write lock until it runs again (SQLite) or its session
 * ends (PostgreSQL, after 5 s). Meanwhile the lease is kept (renewed on this process's timers) and the question asked
 * again every JOURNAL_ASK_MS. Rejects with what `until` resolves to when it does first (the lease lost, a stop).
 */
export async function fenceJournal(
  journal: Pick<Journal, 'tryFence'>,
  token: number,
  opts: { clock: Clock; logger: Logger; until: Promise<StartAbandonedError> },
): Promise<void> {
  const log = opts.logger.child({ component: 'lease' });
  let ended: StartAbandonedError | undefined;
  void opts.until.then((why) => (ended = why));
  const sinceMs = opts.clock.now();
  for (let told = false; ; told = true) {
    if (ended !== undefined) throw ended;
    if (journal.tryFence(token)) {
      if (told) log.info({ fencingToken: token, waitedMs: opts.clock.now() - sinceMs }, 'journal fenced: another process no longer holds its lock');
      return;
    }
    if (!told)
      log.warn({ fencingToken: token }, 'the journal is locked by another process (a previous holder that stopped mid-write): waiting for it, the lease kept');
    await sleepUnless(opts.clock, JOURNAL_ASK_MS, opts.until);
  }
}

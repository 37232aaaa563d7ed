// `sextant journal rebind`: the journal moved to the configured API keys after they were rotated on the same venue
// account, once the new keys find the journal's own orders at the venue (journal-rebind.ts).
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { ExchangeError } from '../../exchange/errors.js';
import type { Journal } from '../../journal/journal.js';
import { systemClock } from '../../util/clock.js';
import { createLogger, redactUrlCredentials } from '../../util/logger.js';
import { RebindRefusedError, rebindJournal } from '../journal-rebind.js';
import { createLiveClient } from '../kernel.js';
import { openJournalWaiting, venueOf } from '../kernel-stores.js';
import { DEFAULT_CONFIG, type Io, type SetCode } from './io.js';
import { loadForCommand } from './load-for-command.js';

interface RebindCommandOptions {
  config: string;
  reason?: string;
}

/** The operator's name as the system knows it (kept with the command), or `cli`. */
function operator(): string {
  try {
    return userInfo().username || 'cli';
  } catch {
    return 'cli';
  }
}

async function rebind(opts: RebindCommandOptions, io: Io): Promise<number> {
  const check = await loadForCommand(opts.config, io, { strategies: false });
  if (!check) return 1;
  const { loaded } = check;
  const want = venueOf(loaded);
  if (want.perStart) {
    io.err(`${opts.config} trades the embedded simulator or dry-run's paper venue: a new venue at every start, with a fresh journal; nothing to rebind`);
    return 1;
  }
  if (!loaded.credentials) {
    io.err('no API keys configured: the rebind checks the new keys (SEXTANT_API_KEY, SEXTANT_API_SECRET and SEXTANT_API_PASSPHRASE, or their _FILE variants)');
    return 1;
  }
  const { path, url } = loaded.config.journal;
  if (path !== undefined && path !== ':memory:' && !existsSync(path)) {
    io.err(`no journal at ${path} (journal.path in ${opts.config}): nothing to rebind`);
    return 1;
  }
  const where = url !== undefined ? redactUrlCredentials(url) : path!;
  // Warnings only on stderr: a wait for the journal's lock, the client's retries.
  const logger = createLogger({ level: 'warn', fd: 2, base: { app: 'sextant', cmd: 'journal rebind' } });
  let journal: Journal;
  try {
    journal = await openJournalWaiting(loaded, undefined, { clock: systemClock, logger });
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  }
  // Reads only: a write would be refused before it left.
  const client = createLiveClient(loaded, logger.child({ component: 'cli' }), systemClock, undefined, () => false);
  try {
    const outcome = await rebindJournal(journal, want, client, { where, now: () => systemClock.now(), who: operator(), reason: opts.reason?.trim() || null });
    io.out(outcome.text);
    return 0;
  } catch (err) {
    if (err instanceof RebindRefusedError) io.err(`refused: ${err.message}`);
    else if (err instanceof ExchangeError) io.err(`the new keys could not be checked at the venue, nothing changed: ${err.summary()}`);
    else io.err((err as Error).message);
    return 1;
  } finally {
    await client.close();
    journal.close();
  }
}

export function registerJournal(program: Command, io: Io, setCode: SetCode): void {
  const journal = program.command('journal').description('the venue account the journal is bound to');
  journal
    .command('rebind')
    .description(
      "operator action, daemon stopped: bind the journal to the configured API keys after a key rotation on the same venue account; refused unless the new keys find the journal's own orders at the venue",
    )
    .option('--reason <text>', 'why: kept with the command in the journal')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action(async (opts: RebindCommandOptions) => setCode(await rebind(opts, io)));
}

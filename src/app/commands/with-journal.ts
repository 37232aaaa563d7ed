// Opening the configured journal for a command that reads or settles what it holds (risk, orders).
import { existsSync } from 'node:fs';
import type { LoadedConfig } from '../../config/load.js';
import type { Journal } from '../../journal/journal.js';
import { openJournal } from '../kernel-stores.js';
import type { Io } from './io.js';
import { loadForCommand } from './load-for-command.js';

/**
 * Runs `act` on the configured journal and prints what it returns; resolves to the exit code. A journal that
 * does not exist is said so, and nothing is created.
 */
export async function withJournal(file: string, io: Io, act: (journal: Journal, loaded: LoadedConfig) => string): Promise<number> {
  const check = await loadForCommand(file, io, { strategies: false });
  if (!check) return 1;
  const { loaded } = check;
  const path = loaded.config.journal.path;
  if (path !== undefined && path !== ':memory:' && !existsSync(path)) {
    io.err(`no journal at ${path} (journal.path in ${file}): nothing has traded with this configuration yet`);
    return 1;
  }
  const journal = openJournal(loaded);
  try {
    io.out(act(journal, loaded));
    return 0;
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  } finally {
    journal.close();
  }
}

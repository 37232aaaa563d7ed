// The journal contract against SQLite: on disk (durable: reopened, and two connections at once) and in memory.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteJournal } from '../../src/journal/sqlite-journal.js';
import { describeJournalContract } from './journal-contract.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-journal-contract-'));
let stores = 0;

describeJournalContract('SQLite file', {
  durable: true,
  fresh: () => {
    const file = join(dir, `journal-${stores++}.sqlite`);
    return { open: () => new SqliteJournal(file, { clientOidPrefix: 'sx' }) };
  },
});

describeJournalContract('SQLite in memory', {
  durable: false,
  fresh: () => ({ open: () => new SqliteJournal(':memory:', { clientOidPrefix: 'sx' }) }),
});

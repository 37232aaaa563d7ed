// The journal contract against the in-memory SQLite journal kept on the calling thread (the default one is on a
// worker thread: test/contract/sqlite-journal.test.ts).
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { describeJournalContract } from '../../contract/journal-contract.js';

describeJournalContract('SQLite in memory, on the calling thread', {
  durable: false,
  fresh: () => ({ open: () => new SqliteJournal(':memory:', { clientOidPrefix: 'sx', thread: false }) }),
});

// The journal contract against PostgreSQL (the real server the tests use): each store a schema of its own, dropped
// after; durable (reopened, and two connections at once).
import { afterAll } from '@jest/globals';
import { PostgresJournal } from '../../src/journal/postgres-journal.js';
import { dropPostgresSchemas, freshPostgresUrl } from '../fixtures/postgres.js';
import { describeJournalContract } from './journal-contract.js';

afterAll(() => dropPostgresSchemas());

describeJournalContract('PostgreSQL', {
  durable: true,
  fresh: () => {
    const url = freshPostgresUrl('contract');
    return { open: () => new PostgresJournal(url, { clientOidPrefix: 'sx' }) };
  },
});

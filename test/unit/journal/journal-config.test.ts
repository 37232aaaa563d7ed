// Choosing the journal from the configuration: SQLite by default (journal.path), PostgreSQL with journal.url (the
// real server: bound to the venue, the same rows through another connection), never both; the URL's password never
// shown.
import { afterAll, describe, expect, it } from '@jest/globals';
import { openJournal, venueOf } from '../../../src/app/kernel-stores.js';
import { parseConfig } from '../../../src/config/load.js';
import { JournalVenueError } from '../../../src/journal/journal.js';
import { PostgresJournal } from '../../../src/journal/postgres-journal.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { journalRow } from '../../fixtures/journal-row.js';
import { dropPostgresSchemas, freshPostgresUrl } from '../../fixtures/postgres.js';

afterAll(() => dropPostgresSchemas());

const live = (journal: string) => parseConfig(`mode: live\njournal: ${journal}\n`, 'fleet.yaml', {});

describe('journal configuration', () => {
  it('is a SQLite file by default, a PostgreSQL database with journal.url, and refuses both at once', () => {
    expect(parseConfig('{}', 'a.yaml', {}).config.journal).toMatchObject({ path: 'data/journal.sqlite' });
    expect(live('{ url: "postgres://sx@db.example:5432/fleet" }').config.journal).toEqual({
      url: 'postgres://sx@db.example:5432/fleet',
      path: undefined,
      clientOidPrefix: 'sx',
      lockWaitMs: 60_000,
    });
    expect(() => live('{ path: data/j.sqlite, url: "postgres://sx@db.example:5432/fleet" }')).toThrow(/journal\.path and journal\.url are both set/);
    expect(() => live('{ url: "mysql://sx@db.example/fleet" }')).toThrow(/expected a postgres:\/\/ URL/);
  });

  it('opens the PostgreSQL journal of journal.url bound to the venue; another venue is refused, naming the database without its password', () => {
    const url = freshPostgresUrl('config');
    const loaded = live(JSON.stringify({ url }));
    const journal = openJournal(loaded, venueOf(loaded));
    expect(journal).toBeInstanceOf(PostgresJournal);
    expect(journal).not.toBeInstanceOf(SqliteJournal);
    journal.insertOrders([journalRow('a', { state: 'open' })]);
    journal.close();
    const again = openJournal(loaded, venueOf(loaded));
    expect(again.activeOrders().map((r) => r.clientOid)).toEqual(['a']);
    again.close();
    // A password in the URL: the store refuses another account, and says where without the password.
    const withPassword = new URL(url);
    withPassword.password = 'pw-s3cr3t';
    const other = parseConfig(`mode: live\njournal: ${JSON.stringify({ url: withPassword.toString() })}\n`, 'fleet.yaml', {
      SEXTANT_API_KEY: 'k2',
      SEXTANT_API_SECRET: 's',
      SEXTANT_API_PASSPHRASE: 'p',
    });
    let caught: unknown;
    try {
      openJournal(other, venueOf(other)).close();
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(JournalVenueError);
    expect((caught as Error).message).toContain('postgres://[redacted]@127.0.0.1');
    expect((caught as Error).message).not.toContain('pw-s3cr3t');
  });

  it('refuses a PostgreSQL journal for a venue that is new at every start', () => {
    const loaded = parseConfig(`sim: { embedded: true }\njournal: { url: "postgres://sx@127.0.0.1:5432/postgres" }\n`, 'demo.yaml', {});
    expect(() => openJournal(loaded, venueOf(loaded))).toThrow(/for a real venue/);
  });

  it('says which database it could not open, without the password', () => {
    let caught: unknown;
    try {
      new PostgresJournal('postgres://sx:pw-s3cr3t@127.0.0.1:1/nowhere', { clientOidPrefix: 'sx' }).close();
    } catch (err) {
      caught = err;
    }
    expect((caught as Error).message).toMatch(/^journal postgres:\/\/\[redacted\]@127\.0\.0\.1:1\/nowhere: /);
    expect((caught as Error).message).not.toContain('pw-s3cr3t');
  });
});

import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parseConfig } from '../../../src/config/load.js';
import { openJournal, venueOf } from '../../../src/app/kernel-stores.js';
import { JournalVenueError } from '../../../src/journal/journal.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { journalRow } from '../../fixtures/journal-row.js';

const demo = (path: string) => parseConfig(`sim: { embedded: true }\njournal: { path: ${JSON.stringify(path)} }\n`, 'demo.yaml', {});

describe('the journal of a venue that is new at every start', () => {
  it('an earlier demo journal is moved to .previous; a fresh one begins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-oj-'));
    const path = join(dir, 'journal.sqlite');
    const a = openJournal(demo(path), venueOf(demo(path)));
    a.insertOrders([journalRow('x1')]);
    a.close();
    const moved: string[] = [];
    const b = openJournal(demo(path), venueOf(demo(path)), (f) => moved.push(f));
    expect(moved).toEqual([`${path}.previous`]);
    expect(b.allOrders()).toEqual([]);
    b.close();
  });

  it('a journal bound to a real venue is refused, and left as it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-oj-'));
    const path = join(dir, 'journal.sqlite');
    const live = new SqliteJournal(path, { clientOidPrefix: 'sx' });
    live.bindVenue({ venue: 'https://api-spot.weex.com https://api-contract.weex.com', account: 'key sha256:0123456789abcdef' }, 1);
    live.insertOrders([journalRow('live1', { state: 'open', orderId: '5' })]);
    live.close();
    expect(() => openJournal(demo(path), venueOf(demo(path)))).toThrow(JournalVenueError);
    expect(readdirSync(dir).filter((f) => f.startsWith('journal.sqlite.'))).toEqual([]);
    const again = new SqliteJournal(path, { clientOidPrefix: 'sx' });
    expect(again.activeOrders().map((r) => r.clientOid)).toEqual(['live1']);
    again.close();
  });

  it('an unbound journal with orders (written before journals were bound) is moved aside under a dated name, never deleted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-oj-'));
    const path = join(dir, 'journal.sqlite');
    const old = new SqliteJournal(path, { clientOidPrefix: 'sx' });
    old.insertOrders([journalRow('old1', { state: 'open' })]);
    old.close();
    const moved: string[] = [];
    openJournal(demo(path), venueOf(demo(path)), (f) => moved.push(f)).close();
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatch(/journal\.sqlite\.unbound-\d{4}-\d\d-\d\dT/);
    expect(existsSync(moved[0]!)).toBe(true);
    const kept = new SqliteJournal(moved[0]!, { clientOidPrefix: 'sx' });
    expect(kept.activeOrders().map((r) => r.clientOid)).toEqual(['old1']);
    kept.close();
  });
});

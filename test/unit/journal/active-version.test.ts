// The journal's activeVersion() moves with every write of an order (so a reader may keep what it made of the active
// rows while it holds), and not with reads: in memory and on disk, and when another connection's change is taken in.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { JournalOrder } from '../../../src/journal/journal.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';

const row = (clientOid: string): JournalOrder => ({
  clientOid,
  strategyId: 's',
  intentId: 1,
  surface: 'futures',
  symbol: 'cmt_btcusdt',
  side: 'buy',
  kind: 'limit',
  timeInForce: 'gtc',
  price: '100',
  size: '1',
  positionSide: 'long',
  reduceOnly: false,
  isTrigger: false,
  triggerPrice: null,
  orderId: null,
  state: 'sending',
  filledSize: '0',
  avgPrice: null,
  fee: null,
  createdAtMs: 1,
  updatedAtMs: 1,
  seenAtMs: null,
  absentChecks: 0,
  absentSinceMs: null,
  lastError: null,
});

describe('activeVersion', () => {
  for (const where of ['memory', 'disk'] as const) {
    it(`moves with every write of an order, not with reads (${where})`, () => {
      const path = where === 'memory' ? ':memory:' : join(mkdtempSync(join(tmpdir(), 'sextant-version-')), 'j.sqlite');
      const j = new SqliteJournal(path, { clientOidPrefix: 'sx' });
      const seen = [j.activeVersion()];
      j.insertOrders([row('a')]);
      seen.push(j.activeVersion());
      j.activeOrders();
      j.order('a');
      expect(j.activeVersion()).toBe(seen[1]);
      j.updateOrder('a', { state: 'open', orderId: '7' }, 'accepted', 2);
      seen.push(j.activeVersion());
      j.updateOrder('a', { state: 'filled', filledSize: '1' }, 'filled', 3);
      seen.push(j.activeVersion());
      expect(new Set(seen).size).toBe(seen.length);
      if (where === 'disk') {
        // Another connection's change is taken in by refresh(): the version moves then.
        const other = new SqliteJournal(path, { clientOidPrefix: 'sx' });
        other.updateOrder('a', { state: 'open' }, 'reopened by an operator', 4);
        other.close();
        const before = j.activeVersion();
        j.refresh();
        expect(j.activeVersion()).not.toBe(before);
        expect(j.activeOrders().map((r) => r.clientOid)).toEqual(['a']);
      }
      j.close();
    });
  }
});

// The funding watch: the ledger's funding entries (F30) recorded once each by bill id, read from the newest one
// recorded (so a restart neither loses nor doubles one), paged back while the venue says more exist; the totals per
// contract come from the journal and survive a restart.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { LedgerEntry, LedgerKind } from '../../../src/domain/market.js';
import type { LedgerQuery } from '../../../src/exchange/client.js';
import { FundingWatch } from '../../../src/execution/funding-watch.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { ManualClock } from '../../../src/util/clock.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-funding-'));
let files = 0;
const journalFile = () => join(dir, `journal-${files++}.sqlite`);

function entry(billId: string, symbol: string, amount: string, timestampMs: number, kind: LedgerKind = 'funding'): LedgerEntry {
  return {
    billId,
    asset: 'USDT',
    symbol,
    kind,
    rawKind: kind === 'funding' ? 'position_funding' : 'order_fill_fee_income',
    amount: Decimal.from(amount),
    balance: null,
    fee: null,
    timestampMs,
  };
}

/** A ledger as the venue answers it: the entries of the window (kind filtered), newest first, `limit` at most. */
class Ledger {
  readonly queries: LedgerQuery[] = [];
  constructor(public entries: LedgerEntry[]) {}
  async ledger(q: LedgerQuery = {}): Promise<{ entries: LedgerEntry[]; hasMore: boolean }> {
    this.queries.push(q);
    const inWindow = this.entries
      .filter(
        (e) => (!q.kind || e.kind === q.kind) && (q.startMs === undefined || e.timestampMs >= q.startMs) && (q.endMs === undefined || e.timestampMs <= q.endMs),
      )
      .sort((a, b) => b.timestampMs - a.timestampMs);
    const limit = q.limit ?? 20;
    return { entries: inWindow.slice(0, limit), hasMore: inWindow.length > limit };
  }
}

const BIG_ID = '686960019383517338123';

describe('the funding watch', () => {
  it('records each settlement once by bill id, oldest first, with its symbol and signed amount; other entries are not funding', async () => {
    const journal = new SqliteJournal(journalFile(), { clientOidPrefix: 'sx' });
    const ledger = new Ledger([
      entry(BIG_ID, 'cmt_btcusdt', '-0.08266646', 28_800_000),
      entry('2', 'cmt_ethusdt', '0.5', 28_800_001),
      entry('3', 'cmt_btcusdt', '-1.2', 28_800_001, 'fee'),
    ]);
    const watch = new FundingWatch({ client: ledger, journal, clock: new ManualClock(0) });
    expect(await watch.poll()).toEqual([
      { ref: BIG_ID, symbol: 'cmt_btcusdt', amount: '-0.08266646', atMs: 28_800_000 },
      { ref: '2', symbol: 'cmt_ethusdt', amount: '0.5', atMs: 28_800_001 },
    ]);
    expect(ledger.queries).toEqual([{ kind: 'funding', startMs: 0, limit: 100 }]);
    // The same entries again (the window starts at the newest recorded, included): nothing new.
    expect(await watch.poll()).toEqual([]);
    expect(ledger.queries[1]).toEqual({ kind: 'funding', startMs: 28_800_001, limit: 100 });
    ledger.entries.push(entry('4', 'cmt_btcusdt', '0.01266646', 57_600_000), entry('5', 'cmt_ethusdt', '-0.25', 28_800_001));
    expect((await watch.poll()).map((r) => r.ref)).toEqual(['5', '4']);
    expect(Object.fromEntries([...watch.totals()].map(([s, t]) => [s, t.toString()]))).toEqual({ cmt_btcusdt: '-0.07', cmt_ethusdt: '0.25' });
    expect(journal.funding().map((r) => r.ref)).toEqual([BIG_ID, '2', '5', '4']);
    journal.close();
  });

  it('a restart keeps the totals and reads on from the newest recorded settlement, recording none twice', async () => {
    const file = journalFile();
    const ledger = new Ledger([entry('10', 'cmt_btcusdt', '-2', 1000), entry('11', 'cmt_btcusdt', '-3', 2000)]);
    const first = new SqliteJournal(file, { clientOidPrefix: 'sx' });
    await new FundingWatch({ client: ledger, journal: first, clock: new ManualClock(0) }).poll();
    first.close();

    ledger.entries.push(entry('12', 'cmt_btcusdt', '1.5', 3000));
    const second = new SqliteJournal(file, { clientOidPrefix: 'sx' });
    // Started long after: the window starts at the newest recorded, not at the start.
    const watch = new FundingWatch({ client: ledger, journal: second, clock: new ManualClock(1_000_000) });
    expect(watch.totals().get('cmt_btcusdt')?.toString()).toBe('-5');
    expect(await watch.poll()).toEqual([{ ref: '12', symbol: 'cmt_btcusdt', amount: '1.5', atMs: 3000 }]);
    expect(ledger.queries.at(-1)).toEqual({ kind: 'funding', startMs: 2000, limit: 100 });
    expect(watch.totals().get('cmt_btcusdt')?.toString()).toBe('-3.5');
    second.close();
  });

  it('with nothing recorded, the ledger is read from the start less the lookback', async () => {
    const ledger = new Ledger([entry('1', 'cmt_btcusdt', '-1', 500), entry('2', 'cmt_btcusdt', '-1', 5000)]);
    const journal = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
    const watch = new FundingWatch({ client: ledger, journal, clock: new ManualClock(10_000), lookbackMs: 6000 });
    expect((await watch.poll()).map((r) => r.ref)).toEqual(['2']);
    expect(ledger.queries).toEqual([{ kind: 'funding', startMs: 4000, limit: 100 }]);
    journal.close();
  });

  it('pages back while the venue says more exist, each page ending at the oldest entry of the one before', async () => {
    const many = Array.from({ length: 250 }, (_, i) => entry(String(1000 + i), i % 2 ? 'cmt_btcusdt' : 'cmt_ethusdt', '-0.01', 100 + Math.floor(i / 2)));
    const ledger = new Ledger(many);
    const journal = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
    const watch = new FundingWatch({ client: ledger, journal, clock: new ManualClock(0) });
    const recorded = await watch.poll();
    expect(recorded).toHaveLength(250);
    expect(recorded.map((r) => r.atMs)).toEqual([...recorded.map((r) => r.atMs)].sort((a, b) => a - b));
    expect(ledger.queries.map((q) => q.endMs)).toEqual([undefined, 175, 126]);
    expect(watch.totals().get('cmt_btcusdt')?.toString()).toBe('-1.25');
    journal.close();
  });

  it('a walk cut short by maxPages goes on from where it stopped at the next read, and then reads on from the newest', async () => {
    const ledger = new Ledger(Array.from({ length: 30 }, (_, i) => entry(String(i), 'cmt_btcusdt', '-1', 100 + i)));
    const journal = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
    const watch = new FundingWatch({ client: { ledger: (q) => ledger.ledger({ ...q, limit: 10 }) }, journal, clock: new ManualClock(0), maxPages: 2 });
    expect(await watch.poll()).toHaveLength(19); // 10 + 9 new (the page boundary's entry is read twice)
    expect(await watch.poll()).toHaveLength(11);
    expect(journal.funding()).toHaveLength(30);
    ledger.entries.push(entry('30', 'cmt_btcusdt', '-1', 500));
    expect((await watch.poll()).map((r) => r.ref)).toEqual(['30']);
    expect(ledger.queries.at(-1)).toMatchObject({ startMs: 129 });
    journal.close();
  });
});

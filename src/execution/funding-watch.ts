// Funding settled on the futures account: the ledger's funding entries (F30) read on a schedule and each recorded
// once in the journal (by the venue's bill id), so the totals per contract survive restarts. Amounts are changes of
// collateral as the ledger signs them: negative when paid.
import { Decimal } from '../domain/decimal.js';
import type { LedgerEntry } from '../domain/market.js';
import type { ExchangeClient } from '../exchange/client.js';
import type { FundingRecord, Journal } from '../journal/journal.js';
import type { TimeSource } from '../util/clock.js';

/** Entries one ledger read asks for (the venue's maximum). */
const PAGE = 100;

export interface FundingWatchOptions {
  client: Pick<ExchangeClient, 'ledger'>;
  journal: Journal;
  clock: TimeSource;
  /** With no settlement recorded yet, the ledger is read from this long before the watch started (default: none). */
  lookbackMs?: number;
  /** Pages one read walks at most (older pages are reached at the next read: the window starts at the newest recorded). */
  maxPages?: number;
}

/** The symbol a settlement is recorded under: the ledger's, else the asset's (an entry without a contract). */
function symbolOf(e: LedgerEntry): string {
  return e.symbol ?? e.asset;
}

export class FundingWatch {
  private readonly totalsBySymbol = new Map<string, Decimal>();
  /** Where the next read starts: the newest settlement recorded (included: entries of the same ms are read again, and kept once). */
  private sinceMs: number;
  private newestMs: number | undefined;
  /** A walk cut short by maxPages goes on from here, back to sinceMs, at the next read. */
  private resumeEndMs: number | undefined;

  constructor(private readonly opts: FundingWatchOptions) {
    for (const r of opts.journal.funding()) this.add(r);
    this.sinceMs = this.newestMs ?? opts.clock.now() - (opts.lookbackMs ?? 0);
  }

  private add(r: FundingRecord): void {
    this.totalsBySymbol.set(r.symbol, (this.totalsBySymbol.get(r.symbol) ?? Decimal.ZERO).add(Decimal.from(r.amount)));
    if (this.newestMs === undefined || r.atMs > this.newestMs) this.newestMs = r.atMs;
  }

  /** Funding per contract over every settlement recorded (negative: paid on balance). */
  totals(): ReadonlyMap<string, Decimal> {
    return this.totalsBySymbol;
  }

  /**
   * Reads the funding entries since the newest recorded one, newest first, page by page back to it, and records
   * the new ones, oldest first. Returns the settlements recorded now (none already known).
   */
  async poll(): Promise<FundingRecord[]> {
    const startMs = this.sinceMs;
    const entries: LedgerEntry[] = [];
    let endMs = this.resumeEndMs;
    let complete = false;
    for (let page = 0; page < (this.opts.maxPages ?? 10); page++) {
      const { entries: got, hasMore } = await this.opts.client.ledger({ kind: 'funding', startMs, ...(endMs !== undefined ? { endMs } : {}), limit: PAGE });
      const fresh = got.filter((e) => !entries.some((x) => x.billId === e.billId));
      entries.push(...fresh);
      if (!hasMore || fresh.length === 0) {
        complete = true;
        break;
      }
      // The window moves back to the oldest entry (included: others of the same ms are on the next page).
      endMs = Math.min(...got.map((e) => e.timestampMs));
    }
    const recorded: FundingRecord[] = [];
    for (const e of entries.sort((a, b) => a.timestampMs - b.timestampMs || (a.billId < b.billId ? -1 : 1))) {
      if (e.kind !== 'funding') continue;
      const record: FundingRecord = { ref: e.billId, symbol: symbolOf(e), amount: e.amount.toString(), atMs: e.timestampMs };
      if (!this.opts.journal.recordFunding(record)) continue;
      this.add(record);
      recorded.push(record);
    }
    // Only a walk that reached the start moves it: one cut short goes on back from where it stopped.
    this.resumeEndMs = complete ? undefined : endMs;
    if (complete && this.newestMs !== undefined && this.newestMs > this.sinceMs) this.sinceMs = this.newestMs;
    return recorded;
  }
}

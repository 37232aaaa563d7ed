// Fills of one order, read from the venue (spot S2, futures F20) and written to the journal once each: the one
// place the order tracker and the executor record fills.
import type { Fill } from '../domain/market.js';
import type { ExchangeClient } from '../exchange/client.js';
import type { Journal, JournalOrder } from '../journal/journal.js';

/** Records the venue's fills of an order; returns how many were new. */
export async function recordVenueFills(client: ExchangeClient, journal: Journal, row: JournalOrder, orderId: string): Promise<number> {
  return recordFills(journal, row, orderId, await client.fills(row.surface, row.symbol, orderId));
}

/** Records fills of an order as the venue listed them, each once; returns how many were new. */
export function recordFills(journal: Journal, row: JournalOrder, orderId: string, fills: readonly Fill[]): number {
  let added = 0;
  for (const f of fills) {
    if (
      journal.recordFill({
        clientOid: row.clientOid,
        orderId,
        fillId: f.fillId,
        price: f.price.toString(),
        size: f.size.toString(),
        fee: f.fee.toString(),
        atMs: f.timestampMs,
      })
    )
      added++;
  }
  return added;
}

// Items a batch placement's answer left out (S6 lists only the items the venue took and leaves out what it refused;
// an answer may also drop an item the venue took). The venue answered, so the request is done with: what can hide an
// order it placed is read-after-write lag, which the tracker's grace window bounds. The executor hands such orders
// to the order tracker right after the answer: looked up at once (found: resolved), and their lookups spent together
// as soon as absence counts, not one per scheduled reconciliation. The evidence asked for is the tracker's own.
import type { ItemResult } from '../exchange/client.js';
import type { Logger } from '../util/logger.js';

/**
 * An item the venue's answer did not account for. A whole request that failed or could not be read is not one: its
 * error carries the HTTP status or the field that failed (exchange/live/item-results.ts, rest-client.ts).
 */
export function leftOutOfAnswer(res: ItemResult): boolean {
  return res.outcome === 'unknown' && res.error.category === 'bad-response' && res.error.httpStatus === undefined && res.error.field === undefined;
}

/** What settles the orders an answer left out: the order tracker. */
export interface LeftOutSettler {
  settleLeftOut(clientOids: readonly string[]): Promise<unknown>;
}

/** Has the orders looked up now (by the settler, when there is one); a failure leaves them to the scheduled reconciliations. */
export async function settleLeftOut(settler: LeftOutSettler | undefined, clientOids: readonly string[], logger: Logger): Promise<void> {
  if (!settler || clientOids.length === 0) return;
  await settler
    .settleLeftOut(clientOids)
    .catch((err: unknown) => logger.warn({ clientOids, err: String(err) }, 'looking up orders the answer left out failed: left to reconciliation'));
}

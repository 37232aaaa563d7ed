// A journal moved to new API keys of the same venue account (keys rotated). The journal is bound to a digest of the
// key (kernel-stores.ts venueOf): the venue has no endpoint that names the account a key belongs to (spot order
// records carry an accountId, futures ones none), so the new keys are checked against what only that account can
// show: the journal's own orders, looked up at the venue by their ids with the new keys, must come back with the
// client ids the journal gave them.
import type { ExchangeClient } from '../exchange/client.js';
import type { Journal, JournalOrder, VenueBinding } from '../journal/journal.js';

/** How many of the journal's orders are looked up at most. */
export const REBIND_LOOKUPS = 5;

/** The orders read to choose from (the newest of any state, besides the active ones). */
const RECENT_READ = 50;

/** A rebind refused: the journal is left bound as it was. */
export class RebindRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RebindRefusedError';
  }
}

/**
 * The orders to look up: those the venue gave an id to (trigger orders left out: the order lookup does not serve
 * them), the active ones first (the venue holds them), then the newest; at most `n`.
 */
export function rebindEvidence(journal: Journal, n = REBIND_LOOKUPS): JournalOrder[] {
  const known = (o: JournalOrder) => o.orderId !== null && !o.isTrigger;
  const newest = (a: JournalOrder, b: JournalOrder) => b.createdAtMs - a.createdAtMs;
  const out = new Map<string, JournalOrder>();
  for (const o of [...journal.activeOrders().filter(known).sort(newest), ...journal.recentOrders({ limit: RECENT_READ }).filter(known)]) {
    if (out.size >= n) break;
    out.set(o.clientOid, o);
  }
  return [...out.values()];
}

export interface RebindOptions {
  /** Where the journal is, as it may be shown (a file, a database without its password). */
  where: string;
  /** Now, in ms. */
  now: () => number;
  /** Who asked, and why: kept with the command in the journal. */
  who: string;
  reason: string | null;
}

export interface RebindOutcome {
  rebound: boolean;
  text: string;
}

/**
 * Binds `journal` to `want` (the configured venue and keys) when it is bound to the same venue under other keys and
 * the new keys find its orders at the venue: at least one of them with the client id the journal gave it, and none
 * with another. Throws RebindRefusedError otherwise (nothing written), an ExchangeError when the venue cannot be
 * asked. The rebind is journaled as an operator's command, with both account digests (never a key).
 */
export async function rebindJournal(journal: Journal, want: VenueBinding, client: Pick<ExchangeClient, 'order'>, opts: RebindOptions): Promise<RebindOutcome> {
  const { where } = opts;
  const have = journal.venueBinding();
  if (!have) return { rebound: false, text: `journal ${where} is not bound yet: the daemon binds it to the configured keys at its next start` };
  if (have.venue !== want.venue)
    throw new RebindRefusedError(
      `journal ${where} belongs to venue ${have.venue}, not to ${want.venue}: a rebind moves a journal to new keys of the same venue account, never to another venue`,
    );
  if (have.account === want.account) return { rebound: false, text: `journal ${where} is bound to the configured keys already (account ${want.account})` };
  const stays = `the journal stays bound to account ${have.account}`;
  const orders = rebindEvidence(journal);
  if (orders.length === 0)
    throw new RebindRefusedError(
      `journal ${where} holds no order the venue gave an id to: nothing to check the new keys against, and ${stays}; for these keys use another journal.path (or move the file away)`,
    );
  const found: string[] = [];
  const missing: string[] = [];
  for (const o of orders) {
    const at = await client.order(o.surface, o.symbol, { orderId: o.orderId! });
    if (at?.clientOid === o.clientOid) found.push(o.clientOid);
    else if (at?.clientOid)
      throw new RebindRefusedError(
        `order ${o.orderId} (${o.symbol}) is ${at.clientOid} at the venue with the new keys, but ${o.clientOid} in journal ${where}: the keys reach another account, or the journal belongs to another; ${stays}`,
      );
    else missing.push(`${o.clientOid} (order ${o.orderId})`);
  }
  if (found.length === 0)
    throw new RebindRefusedError(
      `none of the ${orders.length} orders of journal ${where} looked up is found with the new keys (${missing.join(', ')}): the keys reach another account ` +
        `(or the orders are older than the venue keeps); ${stays}`,
    );
  const detail = `${found.length} of ${orders.length} orders found with the new keys (${found.join(', ')})`;
  const args = JSON.stringify({ venue: want.venue, from: have.account, to: want.account, found });
  const id = journal.recordCommand({ via: 'cli', who: opts.who, command: 'journal rebind', args, reason: opts.reason, atMs: opts.now() });
  journal.bindVenue(want, opts.now());
  journal.finishCommand(id, { ok: true, detail, atMs: opts.now() });
  return { rebound: true, text: `journal ${where} rebound from account ${have.account} to ${want.account}: ${detail}` };
}

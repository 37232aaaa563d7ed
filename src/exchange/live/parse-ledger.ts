// F30 bills -> ledger entries: the kind of each documented `businessType` (wire/enums.ts); an unknown one is 'other'
// (reported, its raw name kept).
import type { LedgerEntry } from '../../domain/market.js';
import { LEDGER_KIND_OF } from '../wire/enums.js';
import { longToString } from '../wire/fields.js';
import type { WireLedgerBill } from '../wire/responses.js';
import { fieldsAt, type ParseContext } from './parse-context.js';

/** One bill, `items[i]` of the answer. The amount is kept as the venue signs it: a change of collateral. */
export function ledgerEntry(ctx: ParseContext, bill: WireLedgerBill, i: number): LedgerEntry {
  const field = fieldsAt(`items[${i}]`);
  let kind = LEDGER_KIND_OF[bill.businessType];
  if (kind === undefined) {
    ctx.report(field('businessType'), bill.businessType, 'unknown bill type: kind other');
    kind = 'other';
  }
  // Documented `cTime`, sent as `ctime` in the venue's sample.
  const time = bill.cTime ?? bill.ctime;
  return {
    billId: longToString(bill.billId),
    asset: bill.coin,
    symbol: bill.symbol || null,
    kind,
    rawKind: bill.businessType,
    amount: ctx.dec(field('amount'), bill.amount),
    balance: ctx.decOpt(bill.balance),
    fee: ctx.decOpt(bill.fillFee),
    timestampMs:
      ctx.time(time) ?? ctx.fail(field(bill.cTime !== undefined ? 'cTime' : 'ctime'), `not a millisecond timestamp: ${JSON.stringify(time ?? null)}`),
  };
}

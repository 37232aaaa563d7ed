// F30 bills -> ledger entries: every documented businessType has its kind, an unknown one is 'other' with its raw
// name; kinds several types share are asked for by none.
import { describe, expect, it } from '@jest/globals';
import type { LedgerKind } from '../../../../src/domain/market.js';
import { ParseContext } from '../../../../src/exchange/live/parse-context.js';
import { ledgerEntry } from '../../../../src/exchange/live/parse-ledger.js';
import { LEDGER_KIND_OF, businessTypeOf } from '../../../../src/exchange/wire/enums.js';
import { JsonBigInt } from '../../../../src/exchange/wire/json.js';
import type { WireLedgerBill } from '../../../../src/exchange/wire/responses.js';

/** The businessType values the reference lists for F30 (§6), in its order. */
const DOCUMENTED = [
  'deposit',
  'withdraw',
  'transfer_in',
  'transfer_out',
  'margin_move_in',
  'margin_move_out',
  'position_open_long',
  'position_open_short',
  'position_close_long',
  'position_close_short',
  'position_funding',
  'order_fill_fee_income',
  'order_liquidate_fee_income',
  'start_liquidate',
  'finish_liquidate',
  'order_fix_margin_amount',
  'tracking_follow_pay',
  'tracking_system_pre_receive',
  'tracking_follow_back',
  'tracking_trader_income',
  'tracking_third_party_share',
];

const bill = (fields: Partial<WireLedgerBill>): WireLedgerBill => ({
  billId: new JsonBigInt('686960019383517338'),
  coin: 'USDT',
  symbol: 'cmt_btcusdt',
  amount: '0.08266646',
  businessType: 'position_funding',
  balance: '4738.70667369',
  fillFee: '0',
  transferReason: 'UNKNOWN_TRANSFER_REASON',
  ctime: 1763784031721,
  ...fields,
});

describe('businessType and kind', () => {
  it('maps every documented type, and no other', () => {
    expect(Object.keys(LEDGER_KIND_OF).sort()).toEqual([...DOCUMENTED].sort());
    expect(DOCUMENTED.map((t) => LEDGER_KIND_OF[t])).toEqual([
      'transfer',
      'transfer',
      'transfer',
      'transfer',
      'transfer',
      'transfer',
      'open',
      'open',
      'close',
      'close',
      'funding',
      'fee',
      'fee',
      'liquidation-start',
      'liquidation-finish',
      'liquidation-compensation',
      'other',
      'other',
      'other',
      'other',
      'other',
    ]);
  });

  it('asks for a kind by its one type; a kind of several types by none', () => {
    const kinds: LedgerKind[] = ['funding', 'liquidation-start', 'liquidation-finish', 'liquidation-compensation', 'fee', 'open', 'close', 'transfer', 'other'];
    expect(kinds.map(businessTypeOf)).toEqual([
      'position_funding',
      'start_liquidate',
      'finish_liquidate',
      'order_fix_margin_amount',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('ledger entries', () => {
  it('the sample bill: id digit for digit, the signed amount as sent, `ctime`', () => {
    const e = ledgerEntry(new ParseContext('F30'), bill({}), 0);
    expect({ ...e, amount: e.amount.toString(), balance: e.balance!.toString(), fee: e.fee!.toString() }).toEqual({
      billId: '686960019383517338',
      asset: 'USDT',
      symbol: 'cmt_btcusdt',
      kind: 'funding',
      rawKind: 'position_funding',
      amount: '0.08266646',
      balance: '4738.70667369',
      fee: '0',
      timestampMs: 1763784031721,
    });
  });

  it('`cTime` as documented (a string); an empty symbol is none; an unknown type is other, reported, its name kept', () => {
    const ctx = new ParseContext('F30');
    const e = ledgerEntry(ctx, bill({ ctime: undefined, cTime: '1763784031722', symbol: '', businessType: 'airdrop', amount: '-1.5' }), 4);
    expect([e.timestampMs, e.symbol, e.kind, e.rawKind, e.amount.toString()]).toEqual([1763784031722, null, 'other', 'airdrop', '-1.5']);
    expect(ctx.anomalies).toEqual([{ endpoint: 'F30', field: 'items[4].businessType', value: 'airdrop', note: 'unknown bill type: kind other' }]);
  });

  it('a bill without a time or an amount fails naming the field', () => {
    expect(() => ledgerEntry(new ParseContext('F30'), bill({ ctime: undefined }), 2)).toThrow('items[2].ctime: not a millisecond timestamp: null');
    expect(() => ledgerEntry(new ParseContext('F30'), bill({ amount: '' }), 1)).toThrow('items[1].amount: a value is required');
  });
});

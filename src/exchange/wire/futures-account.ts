// Futures account shapes exactly as the venue sends them: positions (F4, F29, and inside F3), collateral and the
// account list (F3), and the ledger of bills (F30). Venue field names kept; extra fields pass through.
import { z } from 'zod';
import { decStr, int, long, timeMs } from './fields.js';

const str = z.string();
const bool = z.boolean();
const opt = <T extends z.ZodType>(t: T) => t.optional();

/**
 * A futures position (F4, F29; F3 without `symbol`, with string ids). F29 adds `marginSize`, `contractVal`,
 * `unrealizePnl` and `liquidatePrice` ("0": no liquidation price, the position is at low risk); newer revisions list
 * them for F4 too. The sign convention of `funding_fee` / `cum_funding_fee` is undocumented (exchange.fundingFeeSign).
 */
export const futuresPosition = z.looseObject({
  id: opt(long),
  account_id: opt(long),
  coin_id: opt(int),
  contract_id: opt(long),
  symbol: opt(str),
  side: str,
  margin_mode: opt(str),
  separated_mode: opt(str),
  separated_open_order_id: opt(long),
  leverage: opt(decStr),
  size: decStr,
  open_value: decStr,
  open_fee: opt(decStr),
  funding_fee: opt(decStr),
  isolated_margin: opt(decStr),
  is_auto_append_isolated_margin: opt(bool),
  cum_open_size: opt(decStr),
  cum_open_value: opt(decStr),
  cum_open_fee: opt(decStr),
  cum_close_size: opt(decStr),
  cum_close_value: opt(decStr),
  cum_close_fee: opt(decStr),
  cum_funding_fee: opt(decStr),
  cum_liquidate_fee: opt(decStr),
  created_match_sequence_id: opt(long),
  updated_match_sequence_id: opt(long),
  created_time: opt(timeMs),
  updated_time: opt(timeMs),
  marginSize: opt(decStr),
  contractVal: opt(decStr),
  unrealizePnl: opt(decStr),
  liquidatePrice: opt(decStr),
});
export type WirePosition = z.infer<typeof futuresPosition>;

const feeSetting = z.looseObject({
  is_set_fee_rate: opt(bool),
  taker_fee_rate: opt(decStr),
  maker_fee_rate: opt(decStr),
  is_set_fee_discount: opt(bool),
  fee_discount: opt(decStr),
  is_set_taker_maker_fee_discount: opt(bool),
  taker_fee_discount: opt(decStr),
  maker_fee_discount: opt(decStr),
  contract_id: opt(long),
});

/**
 * Futures collateral (F3): `amount`, whether a liquidation is in progress, and lifetime sums. The sign convention of
 * `cum_position_funding_amount` is undocumented (exchange.fundingFeeSign).
 */
export const futuresCollateral = z.looseObject({
  account_id: opt(long),
  coin_id: opt(int),
  coin: opt(str),
  margin_mode: opt(str),
  cross_contract_id: opt(long),
  isolated_position_id: opt(long),
  amount: decStr,
  pending_deposit_amount: opt(decStr),
  pending_withdraw_amount: opt(decStr),
  pending_transfer_in_amount: opt(decStr),
  pending_transfer_out_amount: opt(decStr),
  is_liquidating: opt(bool),
  legacy_amount: opt(decStr),
  cum_deposit_amount: opt(decStr),
  cum_withdraw_amount: opt(decStr),
  cum_transfer_in_amount: opt(decStr),
  cum_transfer_out_amount: opt(decStr),
  cum_margin_move_in_amount: opt(decStr),
  cum_margin_move_out_amount: opt(decStr),
  cum_position_open_long_amount: opt(decStr),
  cum_position_open_short_amount: opt(decStr),
  cum_position_close_long_amount: opt(decStr),
  cum_position_close_short_amount: opt(decStr),
  cum_position_fill_fee_amount: opt(decStr),
  cum_position_liquidate_fee_amount: opt(decStr),
  cum_position_funding_amount: opt(decStr),
  cum_order_fill_fee_income_amount: opt(decStr),
  cum_order_liquidate_fee_income_amount: opt(decStr),
  created_time: opt(timeMs),
  updated_time: opt(timeMs),
});
export type WireCollateral = z.infer<typeof futuresCollateral>;

export const futuresAccountList = z.looseObject({
  account: z.looseObject({
    id: opt(long),
    user_id: opt(long),
    client_account_id: opt(z.union([long, str])),
    is_system_account: opt(bool),
    default_fee_setting: opt(feeSetting.nullable()),
    contract_id_to_fee_setting: opt(z.record(z.string(), feeSetting)),
    contract_id_to_mode_setting: opt(z.record(z.string(), z.looseObject({ margin_mode: opt(str), separated_mode: opt(str), position_mode: opt(str) }))),
    contract_id_to_leverage_setting: opt(z.record(z.string(), z.looseObject({}))),
    create_order_rate_limit_per_minute: opt(int),
    create_order_delay_milliseconds: opt(int),
    status: opt(str),
    created_time: opt(timeMs),
    updated_time: opt(timeMs),
  }),
  collateral: z.array(futuresCollateral),
  position: z.array(futuresPosition),
  version: opt(z.string().nullable()),
});
export type WireAccountList = z.infer<typeof futuresAccountList>;

/**
 * One F30 bill. `billId` is documented a string but sent as a raw JSON number beyond 2^53; the time is documented
 * `cTime` (string) but sent as `ctime` (number): either is taken. The sign of `amount` is undocumented (the
 * businessType descriptions speak of collateral increasing and decreasing: read as a signed change).
 */
export const ledgerBill = z.looseObject({
  billId: long,
  coin: str,
  symbol: opt(z.string().nullable()),
  amount: decStr,
  businessType: str,
  balance: opt(decStr),
  fillFee: opt(decStr),
  transferReason: opt(z.string().nullable()),
  cTime: opt(timeMs),
  ctime: opt(timeMs),
});
export type WireLedgerBill = z.infer<typeof ledgerBill>;

/** F30: one window of bills and whether older ones exist (no cursor: lower `endTime`). */
export const ledgerPage = z.looseObject({ hasNextPage: opt(z.boolean().nullable()), items: z.array(ledgerBill) });
export type WireLedgerPage = z.infer<typeof ledgerPage>;

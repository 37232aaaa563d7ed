// The simulator's futures account in the venue's wire shapes: a position side (inside F3, F4, F29), the collateral
// (F3) and a bill (F30), from the engine's views. Funding fields are signed as `exchange.fundingFeeSign` says the
// venue signs them; the engine's amounts are changes of collateral (paid negative). Bills keep that sign.
import { Decimal } from '../../../domain/decimal.js';
import type { LedgerEntry } from '../../../domain/market.js';
import { fundingSigned, type FundingFeeSign } from '../../wire/enums.js';
import type { WireCollateral, WireLedgerBill, WirePosition } from '../../wire/responses.js';
import type { SimAccountView, SimPositionView } from '../futures-views.js';
import { rawLong } from '../wire-format.js';

/**
 * Where a position record goes: the account list (F3: ids as strings, no symbol), the single-contract read (F4) or
 * every position (F29): ids as raw JSON numbers, the symbol named.
 */
export type PositionShape = 'F3' | 'F4' | 'F29';

/** One position side. `liquidatePrice` "0" when there is none (the venue's "low risk"). */
export function positionRecord(
  view: SimPositionView,
  contractId: number,
  contractValue: string | undefined,
  sign: FundingFeeSign,
  shape: PositionShape,
): WirePosition {
  const inList = shape === 'F3';
  const id = (digits: string) => (inList ? digits : rawLong(digits));
  const time = (ms: number) => (inList ? String(ms) : ms);
  return {
    id: id(view.positionId),
    account_id: id('1'),
    coin_id: 2,
    contract_id: contractId,
    ...(inList ? {} : { symbol: view.symbol }),
    side: view.side === 'long' ? 'LONG' : 'SHORT',
    margin_mode: 'SHARED',
    separated_mode: 'COMBINED',
    separated_open_order_id: id('0'),
    leverage: view.leverage.toString(),
    size: view.size.toString(),
    open_value: view.openValue.toString(),
    open_fee: view.openFee.toString(),
    funding_fee: fundingSigned(view.fundingFee, sign).toString(),
    isolated_margin: '0',
    is_auto_append_isolated_margin: false,
    cum_open_size: view.cumOpenSize.toString(),
    cum_open_value: view.cumOpenValue.toString(),
    cum_open_fee: view.cumOpenFee.toString(),
    cum_close_size: view.cumCloseSize.toString(),
    cum_close_value: view.cumCloseValue.toString(),
    cum_close_fee: view.cumCloseFee.toString(),
    cum_funding_fee: fundingSigned(view.cumFundingFee, sign).toString(),
    cum_liquidate_fee: view.cumLiquidateFee.toString(),
    created_match_sequence_id: id('0'),
    updated_match_sequence_id: id('0'),
    created_time: time(view.createdAtMs),
    updated_time: time(view.updatedAtMs),
    marginSize: view.margin.toString(),
    ...(contractValue !== undefined ? { contractVal: contractValue } : {}),
    unrealizePnl: view.unrealizedPnl.toString(),
    liquidatePrice: view.liquidationPrice ? view.liquidationPrice.toString() : '0',
  };
}

/** The one shared USDT collateral (F3): its amount, whether a liquidation runs, lifetime funding and fees. */
export function collateralRecord(view: SimAccountView, nowMs: number, sign: FundingFeeSign): WireCollateral {
  return {
    account_id: '1',
    coin_id: 2,
    margin_mode: 'SHARED',
    cross_contract_id: 0,
    isolated_position_id: '0',
    amount: view.collateral.toString(),
    pending_deposit_amount: '0',
    pending_withdraw_amount: '0',
    pending_transfer_in_amount: '0',
    pending_transfer_out_amount: '0',
    is_liquidating: view.liquidating,
    legacy_amount: '0',
    cum_position_fill_fee_amount: view.cumFees.toString(),
    cum_position_liquidate_fee_amount: view.cumLiquidationFees.toString(),
    cum_position_funding_amount: fundingSigned(view.cumFunding, sign).toString(),
    created_time: '0',
    updated_time: String(nowMs),
  };
}

/** One bill as the venue's sample shows it: `billId` a raw JSON number, the time in `ctime`, a number. */
export function billRecord(entry: LedgerEntry): WireLedgerBill {
  return {
    billId: rawLong(entry.billId),
    coin: entry.asset,
    symbol: entry.symbol ?? '',
    amount: entry.amount.toString(),
    businessType: entry.rawKind,
    balance: (entry.balance ?? Decimal.ZERO).toString(),
    fillFee: (entry.fee ?? Decimal.ZERO).toString(),
    transferReason: 'UNKNOWN_TRANSFER_REASON',
    ctime: entry.timestampMs,
  };
}

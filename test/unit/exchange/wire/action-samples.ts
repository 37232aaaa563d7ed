// Verbatim answers of F23–F30 from the extensions reference (§5, §6), whitespace as printed there: the wire tests
// parse them, the live client's endpoint tests serve them.
import type { EndpointId } from '../../../../src/exchange/endpoints.js';

/** Verbatim samples of the extensions reference (§5, §6). */
export const ACTION_SAMPLES = {
  F23: '[{"orderId": 696073048050107226, "success": true}]',
  F24: '{"code": "00000", "msg": "success", "requestTime": 1765956639711, "data": ""}',
  F25: '{"client_oid": null, "order_id": "596471064624628269"}',
  F26: '{"order_id": "596476148997685805", "client_oid": null, "result": true, "err_msg": null}',
  F27: '[{"positionId": 690800371848708186, "successOrderId": 696023766399976282, "errorMessage": "", "success": true}]',
  F28: '[{"orderId": 696026685023191898, "success": true}]',
  F29: `[{"id": 0, "account_id": 0, "coin_id": 2, "contract_id": 10000002, "side": "Long", "margin_mode": "SHARED",
  "separated_mode": "COMBINED", "separated_open_order_id": 0, "leverage": "1", "size": "0.", "open_value": "0",
  "open_fee": "0.000000", "funding_fee": "0.000001", "isolated_margin": "0", "is_auto_append_isolated_margin": false,
  "cum_open_size": "0", "cum_open_value": "09", "cum_open_fee": "0.000000", "cum_close_size": "0",
  "cum_close_value": "0", "cum_close_fee": "0.000000", "cum_funding_fee": "0", "cum_liquidate_fee": "0",
  "created_match_sequence_id": 0, "updated_match_sequence_id": 0, "created_time": 1708395319042,
  "updated_time": 1713341325556}]`,
  F30: `{"hasNextPage": true,
 "items": [{"billId": 686960019383517338, "coin": "USDT", "symbol": "cmt_btcusdt", "amount": "0.08266646",
   "businessType": "position_funding", "balance": "4738.70667369", "fillFee": "0",
   "transferReason": "UNKNOWN_TRANSFER_REASON", "ctime": 1763784031721}]}`,
} satisfies Partial<Record<EndpointId, string>>;

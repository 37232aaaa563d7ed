// Why the simulator turns an order or cancel down: the venue's codes and messages (exchange facts §3), with
// messages that say what exactly was wrong, and the per-item outcomes carrying them.
import type { Surface } from '../../domain/market.js';

export interface Refusal {
  code: string;
  message: string;
}

export type PlaceOutcome = { ok: true; orderId: string; clientOid: string } | { ok: false; refusal: Refusal };
export type CancelOutcome =
  { ok: true; orderId: string; clientOid: string } | { ok: false; orderId: string | null; clientOid: string | null; refusal: Refusal };

export const refusals = {
  spotFormat: (what: string): Refusal => ({ code: '40409', message: `Incorrect format: ${what}` }),
  futuresParam: (what: string): Refusal => ({ code: '40020', message: `Parameter ${what} is invalid` }),
  /** A malformed parameter, as the surface words it. */
  param: (surface: Surface, what: string): Refusal => (surface === 'spot' ? refusals.spotFormat(what) : refusals.futuresParam(what)),
  spotMin: (): Refusal => ({ code: '43006', message: 'Amount is less than the minimum order amount' }),
  spotMax: (): Refusal => ({ code: '43007', message: 'Amount exceeds maximum order amount' }),
  spotBand: (): Refusal => ({ code: '43009', message: 'The current order price exceeds the limit' }),
  failed: (surface: Surface, why: string): Refusal =>
    surface === 'spot' ? { code: '43002', message: `Failed to place order: ${why}` } : { code: '40017', message: `Parameter validation failed: ${why}` },
  notFound: (surface: Surface): Refusal =>
    surface === 'spot' ? { code: 'FAILED_ORDER_NOT_FOUND', message: 'FAILED_ORDER_NOT_FOUND' } : { code: '50005', message: 'Order does not exist' },
  symbol: (surface: Surface, symbol: string): Refusal =>
    surface === 'spot'
      ? { code: '40102', message: `Trading pair configuration does not exist: ${symbol}` }
      : { code: '40020', message: 'Parameter symbol is invalid' },
};

/** Tells a refusal from a checked value (refusals alone carry `code`). */
export function isRefusal<T extends object>(checked: T | Refusal): checked is Refusal {
  return 'code' in checked;
}

// What an endpoint handler of the simulator's HTTP face sees (the engine, the venue's clock, read-after-write
// visibility), the handler and route-table types (an answer typed by the endpoint's wire schema), and lookups
// the handlers share.
import type { Fill, Surface } from '../../../domain/market.js';
import type { EndpointId } from '../../endpoints.js';
import type { FundingFeeSign } from '../../wire/enums.js';
import type { ResponseOf } from '../../wire/responses.js';
import type { MatchingEngine, SimOrder } from '../engine.js';
import type { SimInstrumentSpec } from '../instruments.js';
import { WireError, type Params } from './request.js';

/**
 * How F11 reads its window. `both-bounds` (the default, as a client that measured the venue found it): the rows in
 * [startTime, endTime] when both are given, endTime alone has no effect. `end-time-first` (the docs' reading): the
 * rows up to endTime, startTime ignored once endTime is given.
 */
export type F11Reading = 'both-bounds' | 'end-time-first';

export interface RouteContext {
  readonly engine: MatchingEngine;
  readonly f11Reading: F11Reading;
  /** How funding amounts are signed on the wire (positions, collateral): exchange.fundingFeeSign. */
  readonly fundingFeeSign: FundingFeeSign;
  /** The venue's clock when the request was dispatched. */
  readonly nowMs: number;
  /** Whether reads see the order yet (the scripted read-after-write lag). */
  visible(order: SimOrder): boolean;
  /** A fill shows once its order does (fills come after their order's acceptance). */
  fillVisible(fill: Fill): boolean;
  /** The venue's numeric id of a futures contract. */
  contractId(symbol: string): number;
}

/** Answers one endpoint: its payload (spot: the envelope's `data`; futures: the body), or throws a WireError. */
export type RouteHandler<E extends EndpointId> = (ctx: RouteContext, params: Params) => ResponseOf<E>;

/** Handlers keyed by endpoint id. */
export type RouteTable<Ids extends EndpointId> = { readonly [E in Ids]: RouteHandler<E> };

export type SpotEndpointId = Extract<EndpointId, `S${string}`>;
export type FuturesEndpointId = Extract<EndpointId, `F${string}`>;

/** The instrument of a symbol on a surface, or the venue's refusal for an unknown one. */
export function specOf(engine: MatchingEngine, symbol: string, surface: Surface): SimInstrumentSpec {
  const spec = engine.specs(surface).find((s) => s.symbol === symbol);
  if (!spec)
    throw surface === 'spot'
      ? new WireError(400, '40102', 'Trading pair configuration does not exist')
      : new WireError(400, '40020', 'Parameter symbol is invalid');
  return spec;
}

/** One page of a list. */
export function pageOf<T>(all: readonly T[], pageIndex: number, pageSize: number): T[] {
  return all.slice(pageIndex * pageSize, (pageIndex + 1) * pageSize);
}

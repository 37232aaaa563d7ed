// The simulator's route table: endpoint id -> handler for every endpoint of the table, the endpoint a method and
// path stand for, and which answers come in the envelope.
import { ENDPOINTS, type EndpointId } from '../../endpoints.js';
import type { ResponseOf } from '../../wire/responses.js';
import { FUTURES_ROUTES } from './futures-routes.js';
import type { Params } from './request.js';
import type { RouteContext, RouteHandler, RouteTable } from './route-context.js';
import { SPOT_ROUTES } from './spot-routes.js';

export const ROUTES: RouteTable<EndpointId> = { ...SPOT_ROUTES, ...FUTURES_ROUTES };

const BY_ROUTE = new Map<string, EndpointId>(Object.values(ENDPOINTS).map((e) => [`${e.method} ${e.path}`, e.id]));

/** The endpoint a request's method and path stand for; undefined when the venue has none there. */
export function endpointAt(method: string, path: string): EndpointId | undefined {
  return BY_ROUTE.get(`${method} ${path}`);
}

/** Whether a success of the endpoint is sent in the envelope: every spot answer, and of the futures ones F24 only. */
export function answersInEnvelope(id: EndpointId): boolean {
  return ENDPOINTS[id].surface === 'spot' || id === 'F24';
}

/** Runs the endpoint's handler: its payload, typed by the endpoint's wire schema, or a thrown WireError. */
export function answer<E extends EndpointId>(id: E, ctx: RouteContext, params: Params): ResponseOf<E> {
  const handler: RouteHandler<E> = ROUTES[id];
  return handler(ctx, params);
}

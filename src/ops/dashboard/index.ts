// The operator's dashboard as a fastify plugin: GET / serves the page, /dashboard/* its script, its stylesheet and
// lightweight-charts' standalone build (read from node_modules once, at start: the page works offline, nothing comes
// from a CDN). The page reads and steers the daemon only through the control API (/api/v1). Every answer carries a
// content security policy allowing this origin alone, and an ETag: an unchanged asset is answered 304.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { chartsLibrary } from '../../report/html.js';
import { DASHBOARD_JS } from './client.js';
import { DASHBOARD_CSS, DASHBOARD_HTML } from './page.js';

/** One file the dashboard serves. */
export interface DashboardAsset {
  body: string;
  contentType: string;
  etag: string;
}

/** Scripts, styles, API calls and the event stream from this origin only; no frames, no forms elsewhere. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const asset = (body: string, contentType: string): DashboardAsset => ({
  body,
  contentType,
  etag: `"${createHash('sha256').update(body, 'utf8').digest('base64url').slice(0, 27)}"`,
});

let cached: Map<string, DashboardAsset> | undefined;

/** The dashboard's files by path (`/`, `/dashboard/app.js`, ...), built once per process. */
export function dashboardAssets(): ReadonlyMap<string, DashboardAsset> {
  cached ??= new Map([
    ['/', asset(DASHBOARD_HTML, 'text/html; charset=utf-8')],
    ['/dashboard/app.js', asset(DASHBOARD_JS, 'text/javascript; charset=utf-8')],
    ['/dashboard/style.css', asset(DASHBOARD_CSS, 'text/css; charset=utf-8')],
    ['/dashboard/lightweight-charts.js', asset(chartsLibrary(), 'text/javascript; charset=utf-8')],
  ]);
  return cached;
}

function send(file: DashboardAsset, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply
    .header('content-security-policy', DASHBOARD_CSP)
    .header('x-content-type-options', 'nosniff')
    // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the page's own POSTs,
    // which the origin check refuses; same-origin still sends nothing to any other site.
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-cache')
    .header('etag', file.etag);
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  return reply.type(file.contentType).send(file.body);
}

/**
 * The dashboard's routes: `GET /` (the page) and `GET /dashboard/*` (its assets; anything else there is a 404).
 * Registered on the control API's server, beside /api/v1.
 */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  const files = dashboardAssets();
  for (const [path, file] of files) app.get(path, (request, reply) => send(file, request, reply));
}

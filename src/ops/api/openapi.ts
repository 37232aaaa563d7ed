// The control API's OpenAPI 3.1 document, made from the route table (routes.ts) and its zod schemas
// (z.toJSONSchema: JSON Schema 2020-12, which OpenAPI 3.1 speaks).
import { z } from 'zod';
import { API_PREFIX, ROUTES, type Route } from './routes.js';
import { errorSchema } from './schemas.js';

type Json = Record<string, unknown>;

/** A zod schema as JSON Schema, without the `$schema` line (the document says which dialect). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

/** Path and query parameters from an object schema's properties. */
function parameters(schema: z.ZodType | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const s = jsonSchema(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, prop]) => {
    const { description, ...rest } = prop;
    return { name, in: where, required: where === 'path' || (s.required ?? []).includes(name), schema: rest, ...(description ? { description } : {}) };
  });
}

const ERROR_TEXT: Record<number, string> = {
  400: 'A field is invalid (named in `error`)',
  401: 'A bearer token is needed, or the one given is wrong',
  403: 'Commands are disabled on this daemon',
  404: 'No such strategy or order, or no shadow runs',
  409: 'Nothing to do, or not now',
};

function operation(route: Route): Json {
  const error = { content: { 'application/json': { schema: jsonSchema(errorSchema, 'output') } } };
  const responses: Json = {};
  if (route.ok === 'stream') responses['200'] = { description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } };
  else if (route.ok === 'page') responses['200'] = { description: 'A page', content: { 'text/html': { schema: { type: 'string' } } } };
  else if (route.ok === 'document') responses['200'] = { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } };
  else responses['200'] = { description: 'OK', content: { 'application/json': { schema: jsonSchema(route.ok, 'output') } } };
  const statuses = new Set([...route.errors, 401, ...(route.kind === 'command' ? [403] : [])]);
  for (const status of [...statuses].sort()) responses[String(status)] = { description: ERROR_TEXT[status] ?? 'Refused', ...error };
  const id = `${route.method.toLowerCase()}${route.path.replace(/[/:.-]+(\w)/g, (_, c: string) => c.toUpperCase())}`;
  return {
    operationId: id,
    summary: route.summary,
    tags: [route.kind === 'command' ? 'commands' : 'reads'],
    parameters: [...parameters(route.params, 'path'), ...parameters(route.query, 'query')],
    ...(route.body ? { requestBody: { required: false, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } } : {}),
    responses,
  };
}

/** The document: every route of the table under /api/v1, a bearer security scheme. */
export function openApiDocument(version: string): Json {
  const paths: Record<string, Json> = {};
  for (const route of ROUTES) {
    const path = `${API_PREFIX}${route.path}`.replace(/:(\w+)/g, '{$1}');
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sextant control API',
      version,
      description: "Reads of a running daemon and the operator's commands (journaled with who gave them and why). Money figures are exact decimal strings.",
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }, {}],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: "The daemon's token (daemon.http.tokenEnv): needed beyond loopback, and on loopback for the control API and /metrics when one is set",
        },
      },
    },
    paths,
  };
}

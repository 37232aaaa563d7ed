// The configuration reference (docs/config.md) generated from the schema, so it cannot drift from what loads.
import { z } from 'zod';
import { ENV_OVERRIDES, SECRET_VARS } from './load.js';
import { configSchema } from './schema.js';

/** A node of the schema as JSON Schema (what zod writes; the keys used here). */
interface Node {
  type?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  anyOf?: Node[];
  properties?: Record<string, Node>;
  required?: string[];
  additionalProperties?: Node | boolean;
  propertyNames?: Node;
  items?: Node;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  minItems?: number;
  /** Set on decimalText (schema.ts). */
  decimal?: boolean;
}

const SAFE = Number.MAX_SAFE_INTEGER;

function bounds(n: Node): string {
  const parts: string[] = [];
  const lo = n.exclusiveMinimum !== undefined ? `> ${n.exclusiveMinimum}` : n.minimum !== undefined && n.minimum > -SAFE ? `≥ ${n.minimum}` : undefined;
  const hi = n.exclusiveMaximum !== undefined ? `< ${n.exclusiveMaximum}` : n.maximum !== undefined && n.maximum < SAFE ? `≤ ${n.maximum}` : undefined;
  if (n.minimum !== undefined && n.maximum !== undefined && lo?.startsWith('≥') && hi?.startsWith('≤')) return ` ${n.minimum}–${n.maximum}`;
  if (lo) parts.push(lo);
  if (hi) parts.push(hi);
  return parts.length ? ` ${parts.join(', ')}` : '';
}

function typeOf(n: Node): string {
  if (n.decimal) return 'decimal';
  if (n.enum) return n.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' or ');
  if (n.anyOf) return n.anyOf.map(typeOf).join(' or ');
  switch (n.type) {
    case 'integer':
    case 'number':
      return `${n.type}${bounds(n)}`;
    case 'boolean':
      return 'boolean';
    case 'string':
      if (n.format === 'uri') return 'URL';
      if (n.pattern) return `string \`${n.pattern}\``;
      return n.minLength ? 'string, not empty' : 'string';
    case 'array':
      return `list of ${n.items?.properties ? 'objects (keys below)' : typeOf(n.items ?? {})}${n.minItems ? `, at least ${n.minItems}` : ''}`;
    case 'object':
      if (n.properties) return 'object';
      if (typeof n.additionalProperties === 'object') {
        return `map of ${n.propertyNames ? typeOf(n.propertyNames) : 'string'} to ${typeOf(n.additionalProperties)}`;
      }
      return 'object';
    default:
      return 'any';
  }
}

function defaultOf(n: Node, required: boolean): string {
  if ('default' in n) {
    // An object whose keys all have defaults is written as {}: its keys' own defaults say what it holds.
    if (n.properties && typeof n.default === 'object' && n.default !== null && Object.keys(n.default).length === 0) return "(its keys' defaults)";
    return `\`${JSON.stringify(n.default)}\``;
  }
  return required ? 'required' : 'not set';
}

interface Row {
  key: string;
  type: string;
  default: string;
  description: string;
}

/** Rows for the keys of an object node, depth first; a key without a description is an error (the test says which). */
function rows(n: Node, prefix: string, out: Row[]): Row[] {
  for (const [key, child] of Object.entries(n.properties ?? {})) {
    const path = `${prefix}${key}`;
    if (!child.description) throw new Error(`config key ${path} has no description: add .describe(...) in src/config/schema.ts`);
    out.push({ key: path, type: typeOf(child), default: defaultOf(child, n.required?.includes(key) ?? false), description: child.description });
    if (child.properties) rows(child, `${path}.`, out);
    if (child.items?.properties) rows(child.items, `${path}[].`, out);
  }
  return out;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function table(list: Row[]): string[] {
  return [
    '| Key | Type | Default | Description |',
    '|---|---|---|---|',
    ...list.map((r) => `| \`${cell(r.key)}\` | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.description)} |`),
  ];
}

/** The Markdown text of docs/config.md. */
export function configReference(): string {
  const root = z.toJSONSchema(configSchema, {
    io: 'input',
    unrepresentable: 'any',
    // zod leaves out the default of a value it transforms (a decimal's): the input default is the same value here.
    override: ({ zodSchema, jsonSchema }) => {
      const def = zodSchema._zod.def as { type: string; defaultValue?: unknown };
      if (def.type === 'default' && !('default' in jsonSchema)) jsonSchema.default = JSON.parse(JSON.stringify(def.defaultValue)) as unknown;
    },
  }) as Node;
  const lines = [
    '# Configuration reference',
    '',
    "<!-- Generated from src/config/schema.ts by `npm run docs:config`: edit the schema's descriptions, not this file. -->",
    '',
    'A configuration is one YAML file (`config/default.yaml`, `config/live.example.yaml`, `config/backtest.yaml`).',
    'Keys are checked strictly: an unknown key is an error. `sextant config check FILE` reports every problem at once,',
    'each as `file:line:col: path: message`, and `sextant run` refuses to start on any of them: the schema below, strategy',
    "names not found in `strategyDirs`, params their strategy's own schema refuses, schedule names no `onSchedule` hook",
    'defines, invalid cron expressions, duplicate strategy ids, unknown symbols, and a polling plan beyond its share of',
    'the rate budget.',
    '',
    '- **decimal**: an exact amount. Write it quoted (`size: "0.002"`) or as plain digits (`size: 0.002`), which is read',
    '  exactly as written, never through a binary float; a number written otherwise (`1e-3`, `.5`) is refused with a',
    '  message that says to quote it. The same holds for strategy params whose schema expects a decimal string.',
    '- Durations are in milliseconds (keys ending in `Ms`). Cron expressions have 5 fields, or 6 with seconds first, in UTC.',
    "- Symbols are checked against the simulator's instruments when the configuration trades it (`sim.embedded`, backtests),",
    "  otherwise against the venue's list, read by `run` and `plan` and cached beside the journal (`<journal.path>.instruments.json`).",
    '',
    '## Environment',
    '',
    'Secrets never live in YAML. A secret may also be read from a file: set `<VARIABLE>_FILE` to its path (docker secrets).',
    '',
    '| Variable | Use |',
    '|---|---|',
    `| \`${SECRET_VARS.apiKey}\`, \`${SECRET_VARS.apiSecret}\`, \`${SECRET_VARS.passphrase}\` | The API key, secret and passphrase: all three or none (public endpoints only). |`,
    ...ENV_OVERRIDES.map(([name, key]) => `| \`${name}\` | Replaces \`exchange.${key}\`. |`),
    "| the variable named by `daemon.http.tokenEnv` | The token of the ops server: `Authorization: Bearer` for the control API and /metrics, and the dashboard's sign-in link (`SEXTANT_HTTP_TOKEN` by default; unset: generated at every start and written, mode 0600, to daemon.http.tokenFile). |",
    '| the variable named by `notify.telegram.tokenEnv` | The Telegram bot token (`SEXTANT_TELEGRAM_TOKEN` by default). |',
    "| the variables named by `notify.webhooks[].secretEnv` and `notify.discord[].urlEnv` | A webhook's HMAC secret; a Discord webhook URL (it carries the webhook's token). |",
    '',
  ];
  for (const [key, node] of Object.entries(root.properties ?? {})) {
    if (!node.description) throw new Error(`config key ${key} has no description: add .describe(...) in src/config/schema.ts`);
    lines.push(`## \`${key}\``, '');
    if (node.properties || node.items?.properties) lines.push(node.description, '');
    const own: Row = { key, type: typeOf(node), default: defaultOf(node, root.required?.includes(key) ?? false), description: node.description };
    const below = node.properties ? rows(node, `${key}.`, []) : node.items?.properties ? rows(node.items, `${key}[].`, []) : [];
    lines.push(...table(node.properties ? below : [own, ...below]), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

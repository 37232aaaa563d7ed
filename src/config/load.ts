// Loads a YAML config: parse, apply environment overrides, validate, and report every error at once with
// file, line and path. Secrets come only from the environment or *_FILE secret files, never from YAML.
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, isMap, isPair, isScalar, type Document } from 'yaml';
import type { z } from 'zod';
import type { Credentials } from '../domain/credentials.js';
import { configSchema, type Config } from './schema.js';

export interface ConfigIssue {
  file: string;
  line?: number;
  col?: number;
  /** Dotted path inside the document, e.g. `exchange.rateLimit.spot.ip.budget`; "" for the whole file. */
  path: string;
  message: string;
}

export class ConfigError extends Error {
  constructor(readonly issues: ConfigIssue[]) {
    super(`invalid configuration:\n${issues.map(formatIssue).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function formatIssue(i: ConfigIssue): string {
  const where = i.line !== undefined ? `${i.file}:${i.line}:${i.col ?? 1}` : i.file;
  return `${where}: ${i.path || '(root)'}: ${i.message}`;
}

export interface LoadedConfig {
  config: Config;
  /** Present only when all three secrets are set. */
  credentials?: Credentials;
  file: string;
}

type Env = Record<string, string | undefined>;

function dotted(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p))).join('.').replace(/\.\[/g, '[');
}

/** Finds the line of the node at `path`, or of its nearest existing ancestor. */
function locate(doc: Document, lc: LineCounter, path: ReadonlyArray<PropertyKey>, key?: string): { line: number; col: number } | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n) as unknown[], true) as { range?: [number, number, number] } | undefined;
    if (n === path.length && key !== undefined && isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
      const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
      if (range) return lc.linePos(range[0]);
    }
    if (node?.range) return lc.linePos(node.range[0]);
  }
  return undefined;
}

const SECRET_VARS = { apiKey: 'SEXTANT_API_KEY', apiSecret: 'SEXTANT_API_SECRET', passphrase: 'SEXTANT_API_PASSPHRASE' } as const;

/** Reads one secret from VAR or VAR_FILE (a path, as docker secrets mount them). Never echoes the value. */
function readSecret(env: Env, name: string, issues: ConfigIssue[]): string | undefined {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  if (direct !== undefined && direct !== '' && file !== undefined && file !== '') {
    issues.push({ file: 'environment', path: name, message: `set either ${name} or ${name}_FILE, not both` });
    return undefined;
  }
  if (file !== undefined && file !== '') {
    try {
      const value = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
      if (value === '') issues.push({ file: 'environment', path: `${name}_FILE`, message: `secret file ${file} is empty` });
      return value || undefined;
    } catch (err) {
      issues.push({ file: 'environment', path: `${name}_FILE`, message: `cannot read secret file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}` });
      return undefined;
    }
  }
  return direct === '' ? undefined : direct;
}

export function readCredentials(env: Env, issues: ConfigIssue[]): Credentials | undefined {
  const values = {
    apiKey: readSecret(env, SECRET_VARS.apiKey, issues),
    apiSecret: readSecret(env, SECRET_VARS.apiSecret, issues),
    passphrase: readSecret(env, SECRET_VARS.passphrase, issues),
  };
  const set = Object.entries(values).filter(([, v]) => v !== undefined).map(([k]) => k);
  if (set.length === 0) return undefined;
  if (set.length < 3) {
    const missing = (Object.keys(values) as Array<keyof typeof values>).filter((k) => values[k] === undefined).map((k) => SECRET_VARS[k]);
    issues.push({ file: 'environment', path: missing.join(', '), message: `API credentials are incomplete: set ${missing.join(' and ')} (or their _FILE variants)` });
    return undefined;
  }
  return values as Credentials;
}

/** Parses and validates config text. Throws ConfigError with every problem found. */
export function parseConfig(text: string, file: string, env: Env = process.env): LoadedConfig {
  const issues: ConfigIssue[] = [];
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  for (const e of doc.errors) {
    const pos = lc.linePos(e.pos[0]);
    issues.push({ file, line: pos.line, col: pos.col, path: '', message: `YAML: ${e.message.split('\n')[0]}` });
  }
  let raw: unknown = {};
  if (doc.errors.length === 0) {
    raw = doc.toJS() ?? {};
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      issues.push({ file, line: 1, col: 1, path: '', message: 'expected a mapping at the top level' });
      raw = {};
    }
  }
  const data = structuredClone(raw) as Record<string, unknown>;
  // Environment overrides for the base URLs.
  const overrides: Array<[string, string]> = [
    ['SEXTANT_SPOT_BASE_URL', 'spotBaseUrl'],
    ['SEXTANT_FUTURES_BASE_URL', 'futuresBaseUrl'],
  ];
  for (const [name, key] of overrides) {
    const v = env[name];
    if (v) {
      const ex = (data.exchange ??= {}) as Record<string, unknown>;
      if (typeof ex === 'object' && ex !== null) ex[key] = v;
    }
  }
  if (doc.errors.length === 0) {
    for (const secret of ['apiKey', 'apiSecret', 'passphrase', 'secret', 'key', 'password']) {
      const ex = data.exchange as Record<string, unknown> | undefined;
      if (ex && typeof ex === 'object' && secret in ex) {
        const pos = locate(doc, lc, ['exchange'], secret);
        issues.push({ file, ...pos, path: `exchange.${secret}`, message: 'secrets never live in YAML: use SEXTANT_API_KEY / SEXTANT_API_SECRET / SEXTANT_API_PASSPHRASE or their _FILE variants' });
        delete ex[secret];
      }
    }
  }
  const parsed = configSchema.safeParse(data);
  if (!parsed.success) issues.push(...zodIssues(parsed.error.issues, doc, lc, file, env));
  const credentials = readCredentials(env, issues);
  if (issues.length > 0 || !parsed.success) throw new ConfigError(issues);
  return { config: parsed.data, file, ...(credentials ? { credentials } : {}) };
}

function zodIssues(list: z.core.$ZodIssue[], doc: Document, lc: LineCounter, file: string, env: Env): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const iss of list) {
    const path = iss.path as PropertyKey[];
    if (iss.code === 'unrecognized_keys') {
      for (const key of iss.keys) {
        out.push({ file, ...locate(doc, lc, path, key), path: dotted([...path, key]), message: 'unknown key' });
      }
      continue;
    }
    const p = dotted(path);
    const fromEnv = p === 'exchange.spotBaseUrl' && env.SEXTANT_SPOT_BASE_URL ? 'SEXTANT_SPOT_BASE_URL' : p === 'exchange.futuresBaseUrl' && env.SEXTANT_FUTURES_BASE_URL ? 'SEXTANT_FUTURES_BASE_URL' : undefined;
    if (fromEnv) {
      out.push({ file: 'environment', path: fromEnv, message: iss.message });
      continue;
    }
    out.push({ file, ...locate(doc, lc, path), path: p, message: iss.message });
  }
  return out;
}

export function loadConfig(file: string, env: Env = process.env): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([{ file, path: '', message: `cannot read file: ${(err as NodeJS.ErrnoException).code ?? String(err)}` }]);
  }
  return parseConfig(text, file, env);
}

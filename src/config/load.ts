// Loads a YAML config: parse, apply environment overrides, validate, and report every error at once with
// file, line and path. Secrets come only from the environment or *_FILE secret files, never from YAML.
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, isAlias, isCollection, isMap, isPair, isScalar, type Document } from 'yaml';
import type { z } from 'zod';
import type { Credentials } from '../domain/credentials.js';
import { resolveConfigPaths } from './config-paths.js';
import { safeParseNumbersAsWritten, type NumberTextAt } from './number-text.js';
import { configSchema, type Config } from './schema.js';

export interface ConfigIssue {
  file: string;
  line?: number;
  col?: number;
  /** Dotted path inside the document, e.g. `exchange.rateLimit.spot.ip.budget`; "" for the whole file. */
  path: string;
  message: string;
}

/**
 * What can still be checked of a configuration with errors: the values in error left out (their defaults apply)
 * and the strategies in error emptied (no symbols) and listed in `skipStrategies`, at their own indices.
 */
export interface PartialConfig {
  loaded: LoadedConfig;
  skipStrategies: ReadonlySet<number>;
}

export class ConfigError extends Error {
  constructor(
    readonly issues: ConfigIssue[],
    readonly partial?: PartialConfig,
  ) {
    super(`invalid configuration:\n${issues.map(formatIssue).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Issues in the order a reader meets them: by file, then line and column; those with no position after, as they came. */
export function inFileOrder(issues: ConfigIssue[]): ConfigIssue[] {
  const files = [...new Set(issues.map((i) => i.file))];
  return issues
    .map((issue, n) => ({ issue, n }))
    .sort(
      (a, b) =>
        files.indexOf(a.issue.file) - files.indexOf(b.issue.file) ||
        (a.issue.line ?? Infinity) - (b.issue.line ?? Infinity) ||
        (a.issue.col ?? 0) - (b.issue.col ?? 0) ||
        a.n - b.n,
    )
    .map((x) => x.issue);
}

export function formatIssue(i: ConfigIssue): string {
  const where = i.line !== undefined ? `${i.file}:${i.line}:${i.col ?? 1}` : i.file;
  return `${where}: ${i.path || '(root)'}: ${i.message}`;
}

/** Where things are in the config file, for checks made after loading (strategy params, symbols, cron). */
export interface ConfigSource {
  /** Line and column of the node at `path` (of its key `key`, when given), or of its nearest ancestor in the file. */
  locate(path: ReadonlyArray<PropertyKey>, key?: string): { line: number; col: number } | undefined;
  /** The text of a number written at `path` exactly as in the file ("0.002"); undefined when no number is there. */
  numberText(path: ReadonlyArray<PropertyKey>): string | undefined;
}

export interface LoadedConfig {
  config: Config;
  /** Present only when all three secrets are set. */
  credentials?: Credentials;
  /** The PostgreSQL journal's password (SEXTANT_JOURNAL_PASSWORD or its _FILE variant), when set. */
  journalPassword?: string;
  file: string;
  /** The parsed file (absent for a configuration not read from a file). */
  source?: ConfigSource;
}

type Env = Record<string, string | undefined>;

export function dotted(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/** The node at `path`, through aliases at any step (`params: *shared`): `getIn` stops at an alias. */
function nodeAt(doc: Document, path: ReadonlyArray<PropertyKey>): unknown {
  let node: unknown = doc.contents;
  for (const k of path) {
    if (isAlias(node)) node = node.resolve(doc);
    node = isCollection(node) ? node.get(k, true) : undefined;
    if (node === undefined) return undefined;
  }
  return isAlias(node) ? node.resolve(doc) : node;
}

/** Finds the line of the node at `path`, or of its nearest existing ancestor. */
function locate(doc: Document, lc: LineCounter, path: ReadonlyArray<PropertyKey>, key?: string): { line: number; col: number } | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = nodeAt(doc, path.slice(0, n)) as { range?: [number, number, number] } | undefined;
    if (n === path.length && key !== undefined && isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
      const range = pair && isScalar(pair.key) ? pair.key.range : undefined;
      if (range) return lc.linePos(range[0]);
    }
    if (node?.range) return lc.linePos(node.range[0]);
  }
  return undefined;
}

function sourceOf(doc: Document, lc: LineCounter): ConfigSource {
  return {
    locate: (path, key) => locate(doc, lc, path, key),
    numberText: (path) => {
      const node = nodeAt(doc, path);
      return isScalar(node) && typeof node.value === 'number' ? node.source : undefined;
    },
  };
}

export const SECRET_VARS = { apiKey: 'SEXTANT_API_KEY', apiSecret: 'SEXTANT_API_SECRET', passphrase: 'SEXTANT_API_PASSPHRASE' } as const;

/** The PostgreSQL journal's password: never in the URL of a file, always from the environment or a secret file. */
export const JOURNAL_PASSWORD_VAR = 'SEXTANT_JOURNAL_PASSWORD';

/** Environment variables that replace a key of the file: variable, key of `exchange`. */
export const ENV_OVERRIDES: ReadonlyArray<readonly [string, 'spotBaseUrl' | 'futuresBaseUrl']> = [
  ['SEXTANT_SPOT_BASE_URL', 'spotBaseUrl'],
  ['SEXTANT_FUTURES_BASE_URL', 'futuresBaseUrl'],
];

/** Environment variable that replaces daemon.http.host. */
export const HTTP_HOST_VAR = 'SEXTANT_HTTP_HOST';

/** Reads one secret from VAR or VAR_FILE (a path, as docker secrets mount them). Never echoes the value. */
/** A secret from `name`, or the file its `name_FILE` variant points to (docker secrets); problems go to `issues`, naming the variable, never a value. */
export function readSecret(env: Env, name: string, issues: ConfigIssue[]): string | undefined {
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
  const set = Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  if (set.length === 0) return undefined;
  if (set.length < 3) {
    const missing = (Object.keys(values) as Array<keyof typeof values>).filter((k) => values[k] === undefined).map((k) => SECRET_VARS[k]);
    issues.push({
      file: 'environment',
      path: missing.join(', '),
      message: `API credentials are incomplete: set ${missing.join(' and ')} (or their _FILE variants)`,
    });
    return undefined;
  }
  return values as Credentials;
}

/** A YAML text as read: its value (undefined when it has syntax errors), where things are, and its syntax errors. */
export interface YamlText {
  value: unknown;
  source: ConfigSource;
  issues: ConfigIssue[];
}

/** Parses YAML text keeping positions (duplicate keys are errors): what every file read in config/ goes through. */
export function parseYaml(text: string, file: string): YamlText {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const issues = doc.errors.map((e): ConfigIssue => {
    const pos = lc.linePos(e.pos[0]);
    return { file, line: pos.line, col: pos.col, path: '', message: `YAML: ${e.message.split('\n')[0]}` };
  });
  return { value: issues.length === 0 ? doc.toJS() : undefined, source: sourceOf(doc, lc), issues };
}

/** The text of a file, or a ConfigError saying why it cannot be read. */
export function readConfigFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([{ file, path: '', message: `cannot read file: ${(err as NodeJS.ErrnoException).code ?? String(err)}` }]);
  }
}

/** Parses and validates config text. Throws ConfigError with every problem found. */
export function parseConfig(text: string, file: string, env: Env = process.env): LoadedConfig {
  const yaml = parseYaml(text, file);
  const { source } = yaml;
  const syntaxOk = yaml.issues.length === 0;
  const issues: ConfigIssue[] = [...yaml.issues];
  let raw: unknown = {};
  if (syntaxOk) {
    raw = yaml.value ?? {};
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      issues.push({ file, line: 1, col: 1, path: '', message: 'expected a mapping at the top level' });
      raw = {};
    }
  }
  const data = structuredClone(raw) as Record<string, unknown>;
  // Environment overrides for the base URLs.
  for (const [name, key] of ENV_OVERRIDES) {
    const v = env[name];
    if (v) {
      const ex = (data.exchange ??= {}) as Record<string, unknown>;
      if (typeof ex === 'object' && ex !== null) ex[key] = v;
    }
  }
  // The ops server's address (a container binds 0.0.0.0 to publish its port, whatever the file says).
  const httpHost = env[HTTP_HOST_VAR];
  if (httpHost) {
    const daemon = (data.daemon ??= {}) as Record<string, unknown>;
    const http = typeof daemon === 'object' && daemon !== null ? ((daemon.http ??= {}) as Record<string, unknown>) : undefined;
    if (typeof http === 'object' && http !== null) http.host = httpHost;
  }
  if (syntaxOk) {
    for (const secret of ['apiKey', 'apiSecret', 'passphrase', 'secret', 'key', 'password']) {
      const ex = data.exchange as Record<string, unknown> | undefined;
      if (ex && typeof ex === 'object' && secret in ex) {
        const pos = source.locate(['exchange'], secret);
        issues.push({
          file,
          ...pos,
          path: `exchange.${secret}`,
          message: 'secrets never live in YAML: use SEXTANT_API_KEY / SEXTANT_API_SECRET / SEXTANT_API_PASSPHRASE or their _FILE variants',
        });
        delete ex[secret];
      }
    }
  }
  // A number written where a decimal string is expected is read from the file's text, never through a float.
  const parsed = safeParseNumbersAsWritten(configSchema, data, syntaxOk ? source.numberText : () => undefined);
  if (!parsed.success) issues.push(...locatedIssues(parsed.issues, { file, source, env }));
  const credentials = readCredentials(env, issues);
  const journalPassword = readSecret(env, JOURNAL_PASSWORD_VAR, issues);
  // Paths written in the file resolve against its folder, in what is left of a configuration in error too; `raw` is
  // the file as written (no defaults, no environment overrides).
  const pathIssues = (config: Config) =>
    resolveConfigPaths(config, raw, file).map((p) => ({ file, ...source.locate(p.path), path: dotted(p.path), message: p.message }));
  if (issues.length > 0 || !parsed.success) {
    const rest = !syntaxOk ? undefined : parsed.success ? { config: parsed.data, skipStrategies: new Set<number>() } : salvage(data, source.numberText);
    if (rest) issues.push(...pathIssues(rest.config));
    throw new ConfigError(inFileOrder(issues), rest && { loaded: { config: rest.config, file, source }, skipStrategies: rest.skipStrategies });
  }
  issues.push(...pathIssues(parsed.data));
  if (issues.length > 0) throw new ConfigError(inFileOrder(issues), { loaded: { config: parsed.data, file, source }, skipStrategies: new Set() });
  return { config: parsed.data, file, source, ...(credentials ? { credentials } : {}), ...(journalPassword !== undefined ? { journalPassword } : {}) };
}

/**
 * The configuration without what is in error, so the rest can be checked too (all errors at once): a value in
 * error is left out (its default applies; when that is not enough, its parent), a strategy in error is emptied.
 */
function salvage(data: Record<string, unknown>, textAt: NumberTextAt): { config: Config; skipStrategies: Set<number> } | undefined {
  const value = structuredClone(data);
  const skip = new Set<number>();
  const removed = new Set<string>();
  const removeAt = (path: PropertyKey[]): boolean => {
    let p = path;
    while (p.length > 0 && removed.has(dotted(p))) p = p.slice(0, -1);
    if (p.length === 0) return false;
    removed.add(dotted(p));
    let node = value as Record<PropertyKey, unknown> | undefined;
    for (const key of p.slice(0, -1)) node = node?.[key] as Record<PropertyKey, unknown> | undefined;
    if (node && typeof node === 'object') delete node[p[p.length - 1]!];
    return true;
  };
  for (let round = 0; round < 32; round++) {
    const parsed = safeParseNumbersAsWritten(configSchema, value, textAt);
    if (parsed.success) {
      const strategies = parsed.data.strategies.map((s, i) => (skip.has(i) ? { ...s, symbols: [] } : s));
      return { config: { ...parsed.data, strategies }, skipStrategies: skip };
    }
    for (const iss of parsed.issues) {
      const path = iss.path as PropertyKey[];
      if (iss.code === 'custom' && path[0] === 'strategies' && typeof path[1] === 'number' && path[2] === 'id' && Array.isArray(value.strategies)) {
        // A duplicate id: the instance is checked further under a stand-in id.
        (value.strategies[path[1]] as Record<string, unknown>).id = `duplicate-${path[1]}`;
      } else if (path[0] === 'strategies' && typeof path[1] === 'number' && Array.isArray(value.strategies)) {
        skip.add(path[1]);
        value.strategies[path[1]] = { id: `skipped-${path[1]}`, name: 'skipped', symbols: ['skipped'] };
      } else if (iss.code === 'unrecognized_keys') {
        for (const key of iss.keys) removeAt([...path, key]);
      } else if (!removeAt(path)) {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * Schema issues as config issues, each with its file, line and column: `base` is where the parsed value sits in
 * the file (a strategy's params: `strategies[i].params`).
 */
export function locatedIssues(
  list: z.core.$ZodIssue[],
  at: { file: string; source?: ConfigSource; base?: ReadonlyArray<PropertyKey>; env?: Env },
): ConfigIssue[] {
  const { file, source, base = [], env = {} } = at;
  const out: ConfigIssue[] = [];
  for (const iss of list) {
    const path = [...base, ...(iss.path as PropertyKey[])];
    if (iss.code === 'unrecognized_keys') {
      for (const key of iss.keys) {
        out.push({ file, ...source?.locate(path, key), path: dotted([...path, key]), message: 'unknown key' });
      }
      continue;
    }
    const p = dotted(path);
    const fromEnv =
      p === 'exchange.spotBaseUrl' && env.SEXTANT_SPOT_BASE_URL
        ? 'SEXTANT_SPOT_BASE_URL'
        : p === 'exchange.futuresBaseUrl' && env.SEXTANT_FUTURES_BASE_URL
          ? 'SEXTANT_FUTURES_BASE_URL'
          : undefined;
    if (fromEnv) {
      out.push({ file: 'environment', path: fromEnv, message: iss.message });
      continue;
    }
    out.push({ file, ...source?.locate(path), path: p, message: iss.message });
  }
  return out;
}

export function loadConfig(file: string, env: Env = process.env): LoadedConfig {
  return parseConfig(readConfigFile(file), file, env);
}

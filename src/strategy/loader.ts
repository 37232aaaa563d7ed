// Loads strategy modules by name from the configured folders: `<dir>/<name>.ts|.js|.mjs` or `<dir>/<name>/index.*`.
// TypeScript files are compiled here (no loader hooks, no build step: a user drops a file in and restarts), the
// result cached where that can be written (the root filesystem may be read-only: then nothing is written).
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { StrategyDefinition } from './api.js';
import { CompileError, compile, type Compiled } from './compile.js';
import { findCompiled, storeCompiled } from './compile-cache.js';
import { TS_FILE } from './resolve.js';

const CANDIDATES = ['.ts', '.mts', '.js', '.mjs', '/index.ts', '/index.mts', '/index.js', '/index.mjs'];

export class StrategyLoadError extends Error {}

export function findStrategyFile(name: string, dirs: string[]): string | undefined {
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new StrategyLoadError(`strategy name ${JSON.stringify(name)}: letters, digits, dot, dash and underscore only`);
  for (const dir of dirs) {
    for (const suffix of CANDIDATES) {
      const f = resolve(dir, `${name}${suffix}`);
      if (existsSync(f)) return f;
    }
  }
  return undefined;
}

/** The strategy names the folders hold (files, and folders with an index), sorted: for messages. */
export function strategyNames(dirs: string[]): string[] {
  const names = new Set<string>();
  for (const dir of dirs) {
    let entries;
    try {
      entries = readdirSync(resolve(dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const m = /^([A-Za-z0-9._-]+?)(\.m?ts|\.m?js)$/.exec(e.name);
      if (e.isFile() && m && !/\.d$/.test(m[1]!)) names.add(m[1]!);
      else if (e.isDirectory() && /^[A-Za-z0-9._-]+$/.test(e.name) && CANDIDATES.some((c) => c.startsWith('/') && existsSync(resolve(dir, `${e.name}${c}`))))
        names.add(e.name);
    }
  }
  return [...names].sort();
}

/**
 * Modules loaded in this process, by file: a module cannot be unloaded, so loading it again (backtests run one
 * after another) would only add copies. A changed file takes effect on restart, as documented.
 */
const loaded = new Map<string, Promise<StrategyDefinition<unknown>>>();

export function loadStrategy(name: string, dirs: string[]): Promise<StrategyDefinition<unknown>> {
  const file = findStrategyFile(name, dirs);
  if (!file) return Promise.reject(new StrategyLoadError(notFound(name, dirs)));
  let p = loaded.get(file);
  if (!p) {
    p = loadFile(file);
    loaded.set(file, p);
    // A file that failed to load may be fixed: it is tried again next time.
    p.catch(() => loaded.delete(file));
  }
  return p;
}

/** Why a strategy name finds nothing: the folders looked in, and the names they hold. */
function notFound(name: string, dirs: string[]): string {
  const found = strategyNames(dirs);
  const missing = dirs.filter((d) => !existsSync(resolve(d)));
  return (
    `strategy ${JSON.stringify(name)} not found in ${dirs.join(', ')}` +
    (missing.length ? ` (no such folder: ${missing.join(', ')})` : '') +
    ` (looked for ${name}.ts, .mts, .js, .mjs or ${name}/index.*; ${found.length ? `found: ${found.join(', ')}` : 'no strategies there'})`
  );
}

/**
 * A TypeScript strategy file, compiled into one ES module (see compile.ts) and imported as a file: from the cache
 * when one is current, else compiled now and cached. Where no cache folder can be written it is imported from a
 * data: URL, which Node maps no source map for: its stack frames then show the compiled module's lines (named
 * `<file>.compiled.mjs`); the load error's location is still the .ts file's.
 */
async function importTypeScript(file: string): Promise<{ default?: unknown }> {
  const entry = realpathSync(file);
  // Stack traces through the strategy's code (here, and in its hooks later) show its .ts files and lines: Node
  // applies a module's source map only while this is on, and keeps it only for modules loaded while it is on.
  process.setSourceMapsEnabled(true);
  const cached = findCompiled(entry);
  if (cached) {
    try {
      return await importFile(cached.module);
    } catch (err) {
      // Gone since: another process compiled the file, changed a moment ago, and tidied. Compiled again below.
      if ((err as { url?: unknown } | null | undefined)?.url !== pathToFileURL(cached.module).href) throw loadError(file, err, cached.inputs);
    }
  }
  let compiled: Compiled;
  try {
    compiled = await compile(entry);
  } catch (err) {
    if (err instanceof CompileError) throw new StrategyLoadError(`${file}: cannot compile: ${err.message}`);
    throw err;
  }
  const inputs = compiled.inputs.map(([path]) => path);
  const out = storeCompiled(entry, compiled);
  if (out) {
    try {
      return await importFile(out);
    } catch (err) {
      throw loadError(file, err, inputs);
    }
  }
  const name = `${pathToFileURL(entry).href}.compiled.mjs`;
  try {
    return (await import(`data:text/javascript;base64,${Buffer.from(`${compiled.code}//# sourceURL=${name}\n`).toString('base64')}`)) as { default?: unknown };
  } catch (err) {
    throw loadError(file, err, inputs, { name, map: compiled.map });
  }
}

function importFile(path: string): Promise<{ default?: unknown }> {
  return import(pathToFileURL(path).href) as Promise<{ default?: unknown }>;
}

/**
 * Why a TypeScript strategy failed to load, with where in its own files the error was thrown: the first frame of
 * the stack in one of them (for a module from a data: URL, its frames mapped back through the source map).
 */
function loadError(file: string, err: unknown, inputs: string[], dataModule?: { name: string; map: SourceMapPayload }): StrategyLoadError {
  const message = err instanceof Error ? err.message : String(err);
  const at = throwSite(err, new Set(inputs), dataModule);
  const hint = /\b(require|module|exports|__dirname|__filename) is not defined\b|^Dynamic require of /.test(message)
    ? ' (TypeScript strategies load as ES modules: import instead of require, import.meta.url and import.meta.dirname instead of __filename and __dirname)'
    : '';
  return new StrategyLoadError(`${file}: cannot load: ${message}${at ? ` (at ${at})` : ''}${hint}`);
}

const asPath = (s: string) => (s.startsWith('file:') ? fileURLToPath(s) : s);

function throwSite(err: unknown, inputs: Set<string>, dataModule?: { name: string; map: SourceMapPayload }): string | undefined {
  const stack = (err as { stack?: unknown } | null | undefined)?.stack;
  if (typeof stack !== 'string') return undefined;
  for (const frame of stack.split('\n')) {
    const m = /\(?(\S+):(\d+):(\d+)\)?$/.exec(frame.trim());
    if (!m) continue;
    let [path, line, column] = [m[1]!, Number(m[2]), Number(m[3])];
    if (dataModule && path === dataModule.name) {
      const e = new SourceMap(dataModule.map).findEntry(line - 1, column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
      if (e.originalSource === undefined || e.originalLine === undefined || e.originalColumn === undefined) continue;
      [path, line, column] = [e.originalSource, e.originalLine + 1, e.originalColumn + 1];
    }
    if (inputs.has(asPath(path))) return `${asPath(path)}:${line}:${column}`;
  }
  return undefined;
}

async function loadFile(file: string): Promise<StrategyDefinition<unknown>> {
  let mod: { default?: unknown };
  try {
    mod = TS_FILE.test(file) ? await importTypeScript(file) : ((await import(pathToFileURL(file).href)) as { default?: unknown });
  } catch (err) {
    if (err instanceof StrategyLoadError) throw err;
    throw new StrategyLoadError(`${file}: cannot load: ${(err as Error).message}`);
  }
  const def = (mod.default as { default?: unknown } | undefined)?.default ?? mod.default;
  const d = def as Partial<StrategyDefinition<unknown>> | undefined;
  if (!d || typeof d.name !== 'string' || typeof (d.params as { safeParse?: unknown } | undefined)?.safeParse !== 'function') {
    throw new StrategyLoadError(`${file}: the default export is not a strategy (use defineStrategy from 'sextant/strategy')`);
  }
  return d as StrategyDefinition<unknown>;
}

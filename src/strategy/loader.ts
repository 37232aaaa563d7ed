// Loads strategy modules by name from the configured folders: `<dir>/<name>.ts|.js|.mjs` or `<dir>/<name>/index.*`.
// TypeScript files are compiled here (no loader hooks, no build step: a user drops a file in and restarts), the
// result cached where that can be written (the root filesystem may be read-only: then nothing is written).
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { StrategyDefinition } from './api.js';
import { CompileError, compile, type Compiled } from './compile.js';
import { findCompiled, storeCompiled } from './compile-cache.js';
import { TS_FILE } from './resolve.js';
import { PACKAGE_ROOT } from '../util/package.js';

const CANDIDATES = ['.ts', '.mts', '.js', '.mjs', '/index.ts', '/index.mts', '/index.js', '/index.mjs'];

export class StrategyLoadError extends Error {}

/** The package's shipped example strategies: looked in after the configured folders, so any config can name them. */
export const SHIPPED_STRATEGIES = join(PACKAGE_ROOT, 'examples', 'strategies');

/** The folders a strategy name is looked up in: the configured ones in order, then the shipped examples. */
export function strategySearchDirs(dirs: readonly string[]): string[] {
  const out = dirs.map((d) => resolve(d));
  return out.includes(SHIPPED_STRATEGIES) ? out : [...out, SHIPPED_STRATEGIES];
}

export function findStrategyFile(name: string, dirs: string[]): string | undefined {
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new StrategyLoadError(`strategy name ${JSON.stringify(name)}: letters, digits, dot, dash and underscore only`);
  for (const dir of strategySearchDirs(dirs)) {
    for (const suffix of CANDIDATES) {
      const f = resolve(dir, `${name}${suffix}`);
      if (existsSync(f)) return f;
    }
  }
  return undefined;
}

/** The strategy names the folders hold (files, and folders with an index), sorted: for messages. */
export function strategyNames(dirs: string[]): string[] {
  return [...new Set(strategyEntries(dirs).map((e) => e.name))].sort();
}

/** Each strategy the folders hold, in lookup order (a name in an earlier folder shadows the same name later). */
export function strategyEntries(dirs: string[]): Array<{ name: string; dir: string; file: string }> {
  const out: Array<{ name: string; dir: string; file: string }> = [];
  for (const dir of strategySearchDirs(dirs)) {
    let entries;
    try {
      entries = readdirSync(resolve(dir), { withFileTypes: true });
    } catch {
      continue;
    }
    const names = new Set<string>();
    for (const e of entries) {
      const m = /^([A-Za-z0-9._-]+?)(\.m?ts|\.m?js)$/.exec(e.name);
      if (e.isFile() && m && !/\.(d|test|spec)$/.test(m[1]!)) names.add(m[1]!);
      else if (e.isDirectory() && /^[A-Za-z0-9._-]+$/.test(e.name)) names.add(e.name);
    }
    // Each name's file as the loader finds it (`x.ts` before `x/index.ts`); a folder without an index is none.
    for (const name of names) {
      const suffix = CANDIDATES.find((c) => existsSync(resolve(dir, `${name}${c}`)));
      if (suffix) out.push({ name, dir, file: resolve(dir, `${name}${suffix}`) });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
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
  const entries = strategyEntries(dirs);
  const names = (shipped: boolean) => [...new Set(entries.filter((e) => (e.dir === SHIPPED_STRATEGIES) === shipped).map((e) => e.name))];
  const [found, shipped] = [names(false), names(true)];
  const missing = dirs.filter((d) => !existsSync(resolve(d)));
  return (
    `strategy ${JSON.stringify(name)} not found in ${dirs.join(', ')} or the shipped examples` +
    (missing.length ? ` (no such folder: ${missing.join(', ')})` : '') +
    ` (looked for ${name}.ts, .mts, .js, .mjs or ${name}/index.*; ${found.length ? `found: ${found.join(', ')}` : 'no strategies there'}; the shipped examples: ${shipped.join(', ')})`
  );
}

/**
 * Where a loaded strategy's code lies, to find in an error's stack where that code threw: the files compiled into
 * it (a TypeScript strategy), or its file and the folder it is in (a JavaScript one); for a module imported from a
 * data: URL, its name in stack frames and the source map that leads back to the .ts files.
 */
interface Origin {
  files: ReadonlySet<string>;
  /** A folder (ending with the path separator) whose files, outside node_modules, are the strategy's too. */
  folder?: string;
  dataModule?: DataModule;
}

interface DataModule {
  name: string;
  map: SourceMapPayload;
  /** Made from `map` the first time a frame is mapped. */
  parsed?: SourceMap;
}

/** Each definition loaded here, and where its code lies. */
const origins = new WeakMap<object, Origin>();

/**
 * Where in its own files a strategy's code threw `err` (`path:line:column`, the first frame of the stack there),
 * when `def` was loaded here and the stack passes through its code; undefined otherwise (a definition made
 * elsewhere, a value thrown that is not an error, a stack that never reaches the strategy's files).
 */
export function strategyThrowSite(def: object, err: unknown): string | undefined {
  const origin = origins.get(def);
  return origin ? throwSite(err, origin) : undefined;
}

/**
 * A TypeScript strategy file, compiled into one ES module (see compile.ts) and imported as a file: from the cache
 * when one is current, else compiled now and cached. Where no cache folder can be written it is imported from a
 * data: URL, which Node maps no source map for: its stack frames then show the compiled module's lines (named
 * `<file>.compiled.mjs`); the locations the loader and the runner report are still the .ts files' (throwSite).
 */
async function importTypeScript(file: string): Promise<{ mod: { default?: unknown }; origin: Origin }> {
  const entry = realpathSync(file);
  // Stack traces through the strategy's code (here, and in its hooks later) show its .ts files and lines: Node
  // applies a module's source map only while this is on, and keeps it only for modules loaded while it is on.
  process.setSourceMapsEnabled(true);
  const cached = findCompiled(entry);
  if (cached) {
    const origin: Origin = { files: new Set(cached.inputs) };
    try {
      return { mod: await importFile(cached.module), origin };
    } catch (err) {
      // Gone since: another process compiled the file, changed a moment ago, and tidied. Compiled again below.
      if ((err as { url?: unknown } | null | undefined)?.url !== pathToFileURL(cached.module).href) throw loadError(file, err, origin);
    }
  }
  let compiled: Compiled;
  try {
    compiled = await compile(entry);
  } catch (err) {
    if (err instanceof CompileError) throw new StrategyLoadError(`${file}: cannot compile: ${err.message}`);
    throw err;
  }
  const files = new Set(compiled.inputs.map(([path]) => path));
  const out = storeCompiled(entry, compiled);
  if (out) {
    const origin: Origin = { files };
    try {
      return { mod: await importFile(out), origin };
    } catch (err) {
      throw loadError(file, err, origin);
    }
  }
  const name = `${pathToFileURL(entry).href}.compiled.mjs`;
  const origin: Origin = { files, dataModule: { name, map: compiled.map } };
  try {
    const mod = (await import(`data:text/javascript;base64,${Buffer.from(`${compiled.code}//# sourceURL=${name}\n`).toString('base64')}`)) as {
      default?: unknown;
    };
    return { mod, origin };
  } catch (err) {
    throw loadError(file, err, origin);
  }
}

function importFile(path: string): Promise<{ default?: unknown }> {
  return import(pathToFileURL(path).href) as Promise<{ default?: unknown }>;
}

/**
 * Why a TypeScript strategy failed to load, with where in its own files the error was thrown: the first frame of
 * the stack in one of them (for a module from a data: URL, its frames mapped back through the source map).
 */
function loadError(file: string, err: unknown, origin: Origin): StrategyLoadError {
  const message = err instanceof Error ? err.message : String(err);
  const at = throwSite(err, origin);
  const hint = /\b(require|module|exports|__dirname|__filename) is not defined\b|^Dynamic require of /.test(message)
    ? ' (TypeScript strategies load as ES modules: import instead of require, import.meta.url and import.meta.dirname instead of __filename and __dirname)'
    : '';
  return new StrategyLoadError(`${file}: cannot load: ${message}${at ? ` (at ${at})` : ''}${hint}`);
}

const asPath = (s: string) => (s.startsWith('file:') ? fileURLToPath(s) : s);

/** A stack frame's location: `at name (where:line:column)` or `at where:line:column` (`where` may hold spaces). */
const FRAME = /^\s*at (?:.*? \((.+):(\d+):(\d+)\)|(.+):(\d+):(\d+))$/;

/** The first frame of `err`'s stack in the origin's files, as `path:line:column` (1-based, as stack frames are). */
function throwSite(err: unknown, origin: Origin): string | undefined {
  let stack: unknown;
  try {
    stack = (err as { stack?: unknown } | null | undefined)?.stack;
  } catch {
    // A getter of the strategy's own that throws: no location.
    return undefined;
  }
  if (typeof stack !== 'string') return undefined;
  const { files, folder, dataModule } = origin;
  for (const frame of stack.split('\n')) {
    const m = FRAME.exec(frame);
    if (!m) continue;
    let where = (m[1] ?? m[4])!;
    let [line, column] = [Number(m[2] ?? m[5]), Number(m[3] ?? m[6])];
    if (dataModule && where === dataModule.name) {
      dataModule.parsed ??= new SourceMap(dataModule.map);
      const e = dataModule.parsed.findEntry(line - 1, column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
      if (e.originalSource === undefined || e.originalLine === undefined || e.originalColumn === undefined) continue;
      [where, line, column] = [e.originalSource, e.originalLine + 1, e.originalColumn + 1];
    }
    if (!where.startsWith('file:') && !where.startsWith(sep)) continue;
    const path = asPath(where);
    if (files.has(path) || (folder !== undefined && path.startsWith(folder) && !path.slice(folder.length).split(sep).includes('node_modules')))
      return `${path}:${line}:${column}`;
  }
  return undefined;
}

/** A JavaScript strategy file: imported as it is; its code is the file and the files of its folder. */
async function importJavaScript(file: string): Promise<{ mod: { default?: unknown }; origin: Origin }> {
  const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  // Stack frames name a module by its real path.
  const real = realpathSync(file);
  return { mod, origin: { files: new Set([real]), folder: dirname(real).replace(/[\\/]*$/, sep) } };
}

async function loadFile(file: string): Promise<StrategyDefinition<unknown>> {
  let mod: { default?: unknown };
  let origin: Origin;
  try {
    ({ mod, origin } = TS_FILE.test(file) ? await importTypeScript(file) : await importJavaScript(file));
  } catch (err) {
    if (err instanceof StrategyLoadError) throw err;
    throw new StrategyLoadError(`${file}: cannot load: ${(err as Error).message}`);
  }
  const def = (mod.default as { default?: unknown } | undefined)?.default ?? mod.default;
  const d = def as Partial<StrategyDefinition<unknown>> | undefined;
  if (!d || typeof d.name !== 'string' || typeof (d.params as { safeParse?: unknown } | undefined)?.safeParse !== 'function') {
    throw new StrategyLoadError(`${file}: the default export is not a strategy (use defineStrategy from 'sextant/strategy')`);
  }
  // The first file to load a definition is where it is from (a file may re-export another's).
  if (!origins.has(d)) origins.set(d, origin);
  return d as StrategyDefinition<unknown>;
}

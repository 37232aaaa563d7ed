// Loads strategy modules by name from the configured folders: `<dir>/<name>.ts|.js|.mjs` or `<dir>/<name>/index.*`.
// TypeScript files are loaded through tsx, so a user drops a file in and restarts: no build step, and nothing
// written to disk (the root filesystem may be read-only).
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StrategyDefinition } from './api.js';

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
      else if (e.isDirectory() && /^[A-Za-z0-9._-]+$/.test(e.name) && CANDIDATES.some((c) => c.startsWith('/') && existsSync(resolve(dir, `${e.name}${c}`)))) names.add(e.name);
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
  return `strategy ${JSON.stringify(name)} not found in ${dirs.join(', ')}` +
    (missing.length ? ` (no such folder: ${missing.join(', ')})` : '') +
    ` (looked for ${name}.ts, .mts, .js, .mjs or ${name}/index.*; ${found.length ? `found: ${found.join(', ')}` : 'no strategies there'})`;
}

/** TypeScript files load one at a time: tsx's hooks are on only while one loads. */
let typeScriptTurn: Promise<unknown> = Promise.resolve();

/**
 * A TypeScript strategy file, compiled by tsx while it loads. The package entry (`sextant/strategy`) is this
 * process's own module, loaded first: the strategy shares its modules (one Decimal class) instead of loading a
 * copy of them through tsx's loader thread (a namespaced import), which took most of a second.
 */
function importTypeScript(file: string): Promise<{ default?: unknown }> {
  const run = async () => {
    // tsx caches compiled files under os.tmpdir() and fails to load anything where that cannot be written (a
    // read-only container). A handful of strategy files compile in milliseconds: no cache, no writes at all.
    // Read once, when tsx is first imported (and copied into its loader thread, started then).
    process.env.TSX_DISABLE_CACHE ??= '1';
    const [{ register }, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api'), import('./api.js')]);
    // A file outside any "type": "module" package loads as CommonJS: tsx's require hook compiles that one.
    const unregisterCjs = cjs.register();
    const unregister = register();
    try {
      return (await import(pathToFileURL(file).href)) as { default?: unknown };
    } finally {
      await unregister();
      unregisterCjs();
    }
  };
  const turn = typeScriptTurn.then(run, run);
  typeScriptTurn = turn.catch(() => undefined);
  return turn;
}

async function loadFile(file: string): Promise<StrategyDefinition<unknown>> {
  let mod: { default?: unknown };
  try {
    if (/\.m?ts$/.test(file)) mod = await importTypeScript(file);
    else {
      mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
    }
  } catch (err) {
    throw new StrategyLoadError(`${file}: cannot load: ${(err as Error).message}`);
  }
  const def = (mod.default as { default?: unknown } | undefined)?.default ?? mod.default;
  const d = def as Partial<StrategyDefinition<unknown>> | undefined;
  if (!d || typeof d.name !== 'string' || typeof (d.params as { safeParse?: unknown } | undefined)?.safeParse !== 'function') {
    throw new StrategyLoadError(`${file}: the default export is not a strategy (use defineStrategy from 'sextant/strategy')`);
  }
  return d as StrategyDefinition<unknown>;
}

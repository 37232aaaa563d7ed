// Resolves the imports of a TypeScript strategy file without loader hooks: bare and `#` specifiers exactly as
// Node's ES module resolution would from the importing file (package self-reference, "exports" and "imports"
// with this process's conditions, node_modules lookup, legacy "main", symlinks followed unless the process keeps
// them), and relative ones as TypeScript writes them (`./grid.js` is grid.ts when that exists; extensionless and
// folder imports find an index).
import { realpathSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { moduleResolve } from 'import-meta-resolve';
import { PACKAGE_JSON } from '../util/package.js';

/** Where an import leads: a TypeScript file compiled into the strategy's module, or a module Node loads itself. */
export type Resolved = { bundle: string } | { external: string };

export const TS_FILE = /\.(?:[cm]?ts|tsx)$/;

/** An error as Node's resolver raises it, with its code. */
function resolveError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** Resolves `specifier` as written in `importer` (an absolute file path). */
export function resolveImport(specifier: string, importer: string): Resolved {
  if (isBuiltin(specifier)) return { external: specifier };
  // `sextant/strategy` and `sextant/testing` are the running package's own modules, wherever the strategy lives (a
  // user folder with no node_modules, or one holding another copy): one copy of its classes in the process.
  if (specifier === 'sextant' || specifier.startsWith('sextant/')) return { external: esmResolve(specifier, PACKAGE_JSON).href };
  if (isPathLike(specifier)) return localFile(specifier, importer);
  if (specifier[0] !== '#' && URL.canParse(specifier)) return { external: specifier };
  const url = esmResolve(specifier, pathToFileURL(importer));
  if (url.protocol !== 'file:') return { external: url.href };
  // Node cannot load TypeScript itself: a package that points at its .ts sources is compiled in.
  return TS_FILE.test(url.pathname) && !url.search && !url.hash ? { bundle: fileURLToPath(url) } : { external: url.href };
}

function isPathLike(s: string): boolean {
  return s.startsWith('file:') || s[0] === '/' || s === '.' || s === '..' || s.startsWith('./') || s.startsWith('../');
}

const TS_FOR_JS: Record<string, string[]> = { '.js': ['.ts', '.tsx'], '.jsx': ['.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] };
const IMPLICIT = ['.ts', '.tsx', '.mts', '.js', '.jsx', '.mjs', '.json'];

/** A relative, absolute or file: import of the strategy's own files. */
function localFile(specifier: string, importer: string): Resolved {
  let url: URL;
  if (specifier.startsWith('file:')) url = new URL(specifier);
  else {
    const at = specifier.search(/[?#]/);
    url = new URL(at === -1 ? specifier : specifier.slice(0, at), pathToFileURL(importer));
    if (at !== -1) url = new URL(specifier.slice(at), url);
  }
  const extra = url.search + url.hash;
  url.search = '';
  url.hash = '';
  const target = fileURLToPath(url);
  const folder = target.endsWith('/');
  const ext = folder ? '' : (/\.[^./]+$/.exec(target)?.[0] ?? '');
  const candidates: string[] = [];
  if (!folder) {
    for (const ts of TS_FOR_JS[ext] ?? []) candidates.push(target.slice(0, -ext.length) + ts);
    candidates.push(target);
    if (!IMPLICIT.includes(ext)) for (const e of IMPLICIT) candidates.push(target + e);
  }
  for (const e of IMPLICIT) candidates.push(resolve(target, `index${e}`));
  for (const c of candidates) {
    if (!isFile(c)) continue;
    const real = realpathSync(c);
    return TS_FILE.test(real) && !extra ? { bundle: real } : { external: pathToFileURL(real).href + extra };
  }
  throw resolveError('ERR_MODULE_NOT_FOUND', `Cannot find module '${target}' imported from ${importer}`);
}

/** A file, a folder, or nothing there (any error: as Node's resolver takes it). */
function kind(path: string): 'file' | 'folder' | undefined {
  try {
    const st = statSync(path);
    return st.isFile() ? 'file' : st.isDirectory() ? 'folder' : undefined;
  } catch {
    return undefined;
  }
}

const isFile = (path: string) => kind(path) === 'file';

/** What of this process's options Node's ES module resolver follows: its conditions, and whether it keeps symlinks. */
interface ResolverOptions {
  conditions: Set<string>;
  preserveSymlinks: boolean;
}

let processOptions: ResolverOptions | undefined;
function resolverOptions(): ResolverOptions {
  if (processOptions) return processOptions;
  const argv = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)];
  const user: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const m = /^(?:--conditions|-C)(?:=(.*))?$/.exec(argv[i]!);
    if (m) user.push(m[1] ?? argv[++i] ?? '');
  }
  const requireModule = (process.features as { require_module?: boolean }).require_module === true;
  const addons = !argv.includes('--no-addons');
  processOptions = {
    conditions: new Set(['node', 'import', ...(requireModule ? ['module-sync'] : []), ...(addons ? ['node-addons'] : []), ...user]),
    preserveSymlinks: argv.includes('--preserve-symlinks'),
  };
  return processOptions;
}

/**
 * A bare or `#` specifier resolved as Node's ES module resolver does (import-meta-resolve, a port of Node's own
 * resolver): package self-reference, "exports" and "imports" with this process's conditions, node_modules lookup,
 * legacy "main", symlinks followed unless the process keeps them.
 */
export function esmResolve(specifier: string, base: URL): URL {
  const { conditions, preserveSymlinks } = resolverOptions();
  return moduleResolve(specifier, base, conditions, preserveSymlinks);
}

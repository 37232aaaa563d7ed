// Compiled strategy modules kept between runs: `.sextant-cache/strategies/` in the project, else a folder of this
// user's under the temp dir. Each strategy file has a manifest naming its compiled module and what that was made
// from (every input file's content hash, every import's resolution, the compiler and Node versions); a module
// is reused only when all of these are still the same. A folder that cannot be written is skipped: a load
// never fails for want of a cache.
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { importTarget, sha256, type Compiled } from './compile.js';
import { esmResolve } from './resolve.js';
import { PACKAGE_ROOT } from '../util/package.js';

/** Changes when the compiled form or the manifest changes: older entries are then compiled again. */
const FORMAT = 1;

interface Manifest {
  format: number;
  node: string;
  esbuild: string;
  entry: string;
  inputs: Compiled['inputs'];
  imports: Compiled['imports'];
  /** The compiled module's file name in the same folder. */
  output: string;
}

interface CacheFolder {
  path: string;
  /** In a folder others can write to (the temp dir): used only when this user owns it and nobody else can write it. */
  shared: boolean;
}

const PROJECT = PACKAGE_ROOT;
let override: CacheFolder[] | undefined;

function folders(): CacheFolder[] {
  return (
    override ?? [
      { path: join(PROJECT, '.sextant-cache', 'strategies'), shared: false },
      { path: join(tmpdir(), `sextant-strategies-${process.getuid?.() ?? 'user'}`), shared: true },
    ]
  );
}

/** The folders the cache is kept in, in order (none: no cache). For tests. */
export function useCacheFolders(paths: string[]): void {
  override = paths.map((path) => ({ path, shared: false }));
}

let esbuildVersion: string | undefined;
function compilerVersion(): string {
  if (esbuildVersion === undefined) {
    try {
      const pjson = esmResolve('esbuild/package.json', new URL(import.meta.url));
      esbuildVersion = String((JSON.parse(readFileSync(pjson, 'utf8')) as { version?: unknown }).version);
    } catch {
      esbuildVersion = 'unknown';
    }
  }
  return esbuildVersion;
}

const manifestName = (entry: string) => `${sha256(entry).slice(0, 32)}.json`;

function readManifest(path: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** Whether this user owns `path`, a folder nobody else can write to. */
function ours(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isDirectory() && (process.getuid === undefined || st.uid === process.getuid()) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

function current(m: Manifest, entry: string): boolean {
  if (m.format !== FORMAT || m.node !== process.versions.node || m.entry !== entry || m.esbuild !== compilerVersion()) return false;
  if (!Array.isArray(m.inputs) || !Array.isArray(m.imports)) return false;
  for (const [path, hash] of m.inputs) {
    let content: Buffer;
    try {
      content = readFileSync(path);
    } catch {
      return false;
    }
    if (sha256(content) !== hash) return false;
  }
  for (const [importer, specifier, type, to] of m.imports) {
    try {
      if (importTarget(specifier, importer, type) !== to) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** The cached compiled module of `entry` (an absolute real path) and the files it was made from, when still current. */
export function findCompiled(entry: string): { module: string; inputs: string[] } | undefined {
  for (const folder of folders()) {
    if (folder.shared && !ours(folder.path)) continue;
    const m = readManifest(join(folder.path, manifestName(entry)));
    if (!m || typeof m.output !== 'string' || !/^[0-9a-f]+\.mjs$/.test(m.output) || !current(m, entry)) continue;
    const out = join(folder.path, m.output);
    if (isFile(out)) return { module: out, inputs: m.inputs.map(([path]) => path) };
  }
  return undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

let written = 0;
/** Writes through a temporary file and a rename: a reader sees the old file or the whole new one. */
function writeWhole(path: string, data: string, mode: number): void {
  const tmp = `${path}.${process.pid}-${threadId}-${++written}.tmp`;
  try {
    writeFileSync(tmp, data, { mode });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Forgets the strategy files that are gone (their manifests and modules), as each compilation is stored. */
function prune(folder: string): void {
  try {
    for (const name of readdirSync(folder)) {
      if (!/^[0-9a-f]{32}\.json$/.test(name)) continue;
      const m = readManifest(join(folder, name));
      if (!m || typeof m.entry !== 'string' || isFile(m.entry)) continue;
      rmSync(join(folder, name), { force: true });
      if (typeof m.output === 'string' && /^[0-9a-f]+\.mjs$/.test(m.output)) rmSync(join(folder, m.output), { force: true });
    }
  } catch {
    // Tidying only.
  }
}

/** Keeps `compiled` for `entry`; returns the module file, or undefined when no cache folder can be written. */
export function storeCompiled(entry: string, compiled: Compiled): string | undefined {
  const output = `${sha256(compiled.code).slice(0, 32)}.mjs`;
  const manifest: Manifest = {
    format: FORMAT,
    node: process.versions.node,
    esbuild: compilerVersion(),
    entry,
    inputs: compiled.inputs,
    imports: compiled.imports,
    output,
  };
  for (const folder of folders()) {
    try {
      const mode = folder.shared ? 0o600 : 0o666;
      mkdirSync(folder.path, { recursive: true, mode: folder.shared ? 0o700 : 0o777 });
      if (folder.shared && !ours(folder.path)) continue;
      const out = join(folder.path, output);
      if (!isFile(out)) writeWhole(out, compiled.code, mode);
      const manifestPath = join(folder.path, manifestName(entry));
      const previous = readManifest(manifestPath)?.output;
      writeWhole(manifestPath, JSON.stringify(manifest), mode);
      // The module compiled from the file before it changed: nothing refers to it any more.
      if (typeof previous === 'string' && previous !== output && /^[0-9a-f]+\.mjs$/.test(previous)) rmSync(join(folder.path, previous), { force: true });
      prune(folder.path);
      return out;
    } catch {
      continue;
    }
  }
  return undefined;
}

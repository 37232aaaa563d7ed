// Paths in a config file: which keys name files or folders, and how a relative one written in the file resolves
// (against the file's folder; defaults and environment overrides stay relative to the working directory, the user
// folder), with what a written path cannot have meant.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Config } from './schema.js';

/**
 * The keys of a configuration that name files or folders (a string, or a list of them), with the values that are
 * words rather than paths; `output`: written by a run (nothing to find there before); `mustExist`: read, and
 * required (a folder of strategies: the shipped examples would stand in for a missing one unseen).
 */
export const CONFIG_PATHS: ReadonlyArray<{ path: readonly string[]; words?: readonly string[]; output?: true; mustExist?: true }> = [
  { path: ['sim', 'replayFile'] },
  { path: ['journal', 'path'], words: [':memory:'] },
  { path: ['daemon', 'http', 'tokenFile'] },
  { path: ['backtest', 'data'] },
  { path: ['backtest', 'cache'], words: ['auto', 'off'], output: true },
  { path: ['backtest', 'out'], output: true },
  { path: ['backtest', 'funding'] },
  { path: ['shadow', 'out'], output: true },
  { path: ['strategyDirs'], mustExist: true },
];

/**
 * A relative path written in the file `file`, resolved against the file's folder, in the form every message and
 * report prints: relative to the working directory `cwd` when it lies inside it, absolute otherwise. An absolute
 * path is kept as written.
 */
export function resolveWrittenPath(path: string, file: string, cwd: string = process.cwd()): string {
  if (isAbsolute(path)) return path;
  const absolute = resolve(cwd, dirname(file), path);
  const rel = relative(cwd, absolute);
  if (rel === '') return '.';
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? absolute : rel;
}

function childAt(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) node = node !== null && typeof node === 'object' && !Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

/** A path written in a config that cannot be what its author meant, at its place in the file. */
export interface PathProblem {
  path: Array<string | number>;
  message: string;
}

/**
 * Resolves, in place, the paths of `config` (the CONFIG_PATHS keys) that the file `file` wrote (`written`: the file's
 * value before defaults and environment overrides) against the file's folder (resolveWrittenPath). A default, or a
 * value an environment override put there, is left relative to the working directory. Returns what cannot be meant:
 * a folder of strategies that is not there (the shipped examples would stand in for its strategies unseen), and a
 * relative path that finds nothing beside the file while the same path from the working folder finds something (a
 * config written when paths were read from the working folder: a journal would start empty beside the file).
 */
export function resolveConfigPaths(config: Config, written: unknown, file: string, cwd: string = process.cwd()): PathProblem[] {
  const problems: PathProblem[] = [];
  const check = (at: Array<string | number>, as: string, resolved: string, mustExist: boolean) => {
    if (existsSync(resolve(cwd, resolved))) return;
    const fromCwd = resolve(cwd, as);
    if (!isAbsolute(as) && fromCwd !== resolve(cwd, resolved) && existsSync(fromCwd))
      problems.push({
        path: at,
        message: `${as} is read from this file's folder (${resolved}: not there), but the working folder has ${as}: write the path from the file's folder, or an absolute one`,
      });
    else if (mustExist) problems.push({ path: at, message: `no such folder: ${resolved}` });
  };
  for (const { path, words = [], output, mustExist = false } of CONFIG_PATHS) {
    const given = childAt(written, path);
    if (given === undefined) continue;
    const parent = childAt(config, path.slice(0, -1)) as Record<string, unknown> | undefined;
    const key = path[path.length - 1]!;
    const value = parent?.[key];
    const one = (v: unknown, w: unknown, at: Array<string | number>): unknown => {
      if (typeof v !== 'string' || v !== w || words.includes(v)) return v;
      const resolved = resolveWrittenPath(v, file, cwd);
      if (!output) check(at, v, resolved, mustExist);
      // A folder whose name is one of the words stays a folder.
      return words.includes(resolved) ? `.${sep}${resolved}` : resolved;
    };
    if (!parent || value === undefined) continue;
    if (Array.isArray(value)) parent[key] = value.map((v, i) => one(v, Array.isArray(given) ? given[i] : undefined, [...path, i]));
    else parent[key] = one(value, given, [...path]);
  }
  return problems;
}

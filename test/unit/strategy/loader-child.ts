// Runs the built strategy loader (dist/) in a child process: strategies load through Node's own module loader
// there, as in the daemon (Jest's module system would load them its own way).
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const dist = (path: string) => JSON.stringify(pathToFileURL(resolve('dist', path)).href);

/**
 * Runs `body` (an async ES module body with `loadStrategy`, `api` (this process's sextant/strategy) and `out` in
 * scope) with the compile cache kept in `cache` (folders, in order), and returns what it put in `out`.
 */
export function inChild(body: string, cache: string[], opts: { args?: string[]; env?: Record<string, string> } = {}): Record<string, unknown> {
  const script = [
    `const { useCacheFolders } = await import(${dist('strategy/compile-cache.js')});`,
    `useCacheFolders(${JSON.stringify(cache)});`,
    `const api = await import(${dist('strategy/api.js')});`,
    `const { loadStrategy } = await import(${dist('strategy/loader.js')});`,
    'const out = {};',
    'try {',
    body,
    '} catch (err) { out.error = err.message; }',
    'console.log(JSON.stringify(out));',
  ].join('\n');
  const r = spawnSync(process.execPath, [...(opts.args ?? []), '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...opts.env },
  });
  if (r.status !== 0 || r.stderr !== '') throw new Error(`child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

/** Writes files (path relative to `root` → content) and returns `root`. */
export function files(root: string, content: Record<string, string>): string {
  for (const [path, text] of Object.entries(content)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** An ES module package at `root` where `sextant` is installed (a link to this checkout), as a user's folder would be. */
export function strategyPackage(root: string): string {
  files(root, { 'package.json': '{ "type": "module" }\n' });
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  symlinkSync(resolve('.'), join(root, 'node_modules', 'sextant'), 'dir');
  return root;
}

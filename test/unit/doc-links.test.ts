// Every link in README.md and docs/ resolves to a file inside the repository: a reader of the package, or of the
// repository on its own, never follows one into nothing. Markdown links and backticked relative paths (`../x`) are
// both read; web links and anchors are not files. Shown failing on a page made to break the rule.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';

/** The pages of a tree: its README and every markdown file under docs/. */
function pages(root: string): string[] {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => join('docs', f))
    : [];
  return ['README.md', ...docs];
}

/** Each link of the tree's pages that leaves it or names nothing, as `page: target (why)`. */
function brokenLinks(root: string): string[] {
  const out: string[] = [];
  const top = resolve(root);
  for (const page of pages(root)) {
    const text = readFileSync(join(root, page), 'utf8');
    const targets = [...text.matchAll(/\[[^\]\n]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!).concat([...text.matchAll(/`(\.\.?\/[^`\s]+)`/g)].map((m) => m[1]!));
    for (const target of targets) {
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      const path = resolve(top, dirname(page), target.split('#')[0]!);
      const inside = relative(top, path);
      if (inside.startsWith('..')) out.push(`${page}: ${target} (outside the repository)`);
      else if (!existsSync(path)) out.push(`${page}: ${target} (no such file)`);
    }
  }
  return out.sort();
}

describe('the links of README.md and docs/', () => {
  it('all resolve inside the repository', () => {
    expect(pages('.').length).toBeGreaterThan(1);
    expect(brokenLinks('.')).toEqual([]);
  });

  it('are checked: a page linking outside the repository or to nothing fails, naming each link', () => {
    expect(brokenLinks('test/fixtures/doc-links-bad')).toEqual([
      'README.md: ../../../shared/DESIGN.md (outside the repository)',
      'README.md: ../shared/reference/facts.md (outside the repository)',
      'README.md: docs/missing.md (no such file)',
    ]);
  });
});

// The Node versions agree: the Docker image's runtime is the Node 24 that CI tests (.ci/run), and package.json's
// `engines` admits both runtimes CI tests, the Node running these tests included.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';

/** Whether `version` (x.y.z) is in `range`, a `||` list of caret ranges (`^x.y.z`): what `engines` uses here. */
function inRange(version: string, range: string): boolean {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  return range.split('||').some((part) => {
    const m = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(part.trim());
    if (!m) throw new Error(`not a caret range: ${part.trim()}`);
    const [lo, loMinor, loPatch] = [Number(m[1]), Number(m[2]), Number(m[3])];
    return major === lo && (minor > loMinor || (minor === loMinor && patch >= loPatch));
  });
}

describe('runtime versions', () => {
  const ciNode = /^NODE24_VERSION=(\d+\.\d+\.\d+)$/m.exec(readFileSync('.ci/run', 'utf8'))?.[1];
  const engines = (JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node;

  it('reads the ranges it checks', () => {
    expect(inRange('24.22.3', '^20.19.0 || ^24.11.0')).toBe(true);
    expect(inRange('20.19.0', '^20.19.0 || ^24.11.0')).toBe(true);
    expect(inRange('20.18.9', '^20.19.0 || ^24.11.0')).toBe(false);
    expect(inRange('22.20.0', '^20.19.0 || ^24.11.0')).toBe(false);
    expect(inRange('24.10.9', '^20.19.0 || ^24.11.0')).toBe(false);
  });

  it('the image runs the Node 24 that CI tests', () => {
    expect(ciNode).toBeDefined();
    const froms = [...readFileSync('Dockerfile', 'utf8').matchAll(/^FROM node:(\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    const [major, minor] = ciNode!.split('.');
    for (const tag of froms) expect(tag).toBe(`${major}.${minor}-bookworm-slim`);
  });

  it('engines admits the runtimes CI tests', () => {
    expect(inRange(ciNode!, engines)).toBe(true);
    expect(inRange(process.versions.node, engines)).toBe(true);
  });
});

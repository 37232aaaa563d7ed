// Where the daemon commands look for the daemon: --url, else the config's daemon.http (an unspecified address
// reached on loopback); the token from --token, else the config's token variable, else (for the config's own daemon
// only) the token file that daemon wrote.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DaemonClient, table } from '../../../../src/app/commands/daemon-client.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-daemon-client-'));

describe('DaemonClient.from', () => {
  it("takes the config's host and port, an unspecified address as loopback; --url wins", () => {
    const cfg = join(dir, 'c.yaml');
    writeFileSync(cfg, 'daemon: { http: { host: 0.0.0.0, port: 9555, tokenEnv: MY_TOKEN } }\n');
    expect(DaemonClient.from({ config: cfg }, {}).baseUrl).toBe('http://127.0.0.1:9555');
    writeFileSync(cfg, 'daemon: { http: { host: "::", port: 9556 } }\n');
    expect(DaemonClient.from({ config: cfg }, {}).baseUrl).toBe('http://[::1]:9556');
    expect(DaemonClient.from({ config: cfg, url: 'http://10.0.0.5:9000/' }, {}).baseUrl).toBe('http://10.0.0.5:9000');
    // With both --url and --token, no config is read at all.
    expect(DaemonClient.from({ config: join(dir, 'missing.yaml'), url: 'http://127.0.0.1:1', token: 't' }, {}).baseUrl).toBe('http://127.0.0.1:1');
  });
});

describe('the token a command sends', () => {
  it("--token, else the variable, else the token file beside the journal: that file only to the config's own daemon", () => {
    const cfg = join(dir, 'd.yaml');
    writeFileSync(cfg, `journal: { path: ${join(dir, 'j', 'journal.sqlite')} }\ndaemon: { http: { port: 9557 } }\n`);
    mkdirSync(join(dir, 'j'), { recursive: true });
    expect(DaemonClient.from({ config: cfg }, {}).credential).toBeUndefined();
    writeFileSync(join(dir, 'j', 'http-9557.token'), 'from-the-file-0123456789\n', { mode: 0o600 });
    expect(DaemonClient.from({ config: cfg }, {}).credential).toBe('from-the-file-0123456789');
    expect(DaemonClient.from({ config: cfg, url: 'http://127.0.0.1:9557/' }, {}).credential).toBe('from-the-file-0123456789');
    expect(DaemonClient.from({ config: cfg }, { SEXTANT_HTTP_TOKEN: 'from-the-env-0123456789' }).credential).toBe('from-the-env-0123456789');
    expect(DaemonClient.from({ config: cfg, token: 'given-0123456789abcdef' }, {}).credential).toBe('given-0123456789abcdef');
    // Another daemon (a typo, a remote one) never gets this one's token file.
    expect(DaemonClient.from({ config: cfg, url: 'http://10.0.0.5:9557' }, {}).credential).toBeUndefined();
    expect(DaemonClient.from({ config: cfg, url: 'http://127.0.0.1:9558' }, {}).credential).toBeUndefined();
  });
});

describe('table', () => {
  it('aligns columns under their headers', () => {
    expect(
      table(
        ['id', 'state'],
        [
          ['mm-btc', 'paused'],
          ['g', 'running'],
        ],
      ),
    ).toBe('id      state\nmm-btc  paused\ng       running');
  });
});

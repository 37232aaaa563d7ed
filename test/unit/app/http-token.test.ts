// The ops server's token: from the environment (the variable, or a file named by <VARIABLE>_FILE; never both), else
// generated at start and written 0600 where the commands find it from the same config; removed only while it is ours.
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { clientToken, daemonToken, httpToken, httpTokenFile, writeTokenFile } from '../../../src/app/http.js';
import { configSchema } from '../../../src/config/schema.js';
import { scrubSecrets } from '../../../src/util/logger.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-http-token-'));

describe('httpToken', () => {
  it('reads the variable, or the file its _FILE variant names (surrounding whitespace dropped), or nothing', () => {
    expect(httpToken({ T: 'tok-from-env-1' }, 'T')).toBe('tok-from-env-1');
    writeFileSync(join(dir, 'token'), '  tok-from-file-2\n');
    expect(httpToken({ T_FILE: join(dir, 'token') }, 'T')).toBe('tok-from-file-2');
    expect(httpToken({}, 'T')).toBeUndefined();
    // Once read, the token is scrubbed from logs and errors.
    expect(scrubSecrets('Bearer? no: tok-from-file-2')).not.toContain('tok-from-file-2');
  });

  it('refuses both set, an empty file and one it cannot read, naming the variable and never the value', () => {
    expect(() => httpToken({ T: 'a-token-3', T_FILE: join(dir, 'token') }, 'T')).toThrow('set either T or T_FILE, not both');
    writeFileSync(join(dir, 'empty'), '\n');
    expect(() => httpToken({ T_FILE: join(dir, 'empty') }, 'T')).toThrow(/^T_FILE .*empty is empty$/);
    expect(() => httpToken({ T_FILE: join(dir, 'missing') }, 'T')).toThrow(/^cannot read T_FILE .*missing: ENOENT$/);
  });
});

describe("the daemon's token and its file", () => {
  it('a configured token is used as given (16 characters at least); none: 256 random bits, new at every start, scrubbed from logs', () => {
    expect(daemonToken({ T: 'configured-token-16' }, 'T', '0.0.0.0')).toEqual({ token: 'configured-token-16', generated: false });
    expect(() => daemonToken({ T: 'short-token' }, 'T', '127.0.0.1')).toThrow(/^T is too short: 16 characters at least/);
    // Bound beyond loopback, one must be configured.
    for (const host of ['0.0.0.0', '::', '10.0.0.5']) expect(() => daemonToken({}, 'T', host)).toThrow(`binding ${host} needs a token in T (or T_FILE)`);
    const a = daemonToken({}, 'T', '127.0.0.1');
    const b = daemonToken({}, 'T', 'localhost');
    expect(a.generated).toBe(true);
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(b.token).not.toBe(a.token);
    expect(scrubSecrets(`link: /login?token=${a.token}`)).not.toContain(a.token);
  });

  it('is written 0600 beside the SQLite journal (or where configured), read back by the commands, and removed only while it holds this token', () => {
    const cfg = (over: Record<string, unknown>) => configSchema.parse({ mode: 'live', sim: { embedded: true }, ...over });
    const beside = cfg({ journal: { path: join(dir, 'j', 'journal.sqlite') } });
    expect(httpTokenFile(beside, 9464)).toBe(join(dir, 'j', 'http-9464.token'));
    expect(httpTokenFile(cfg({ journal: { path: ':memory:' } }), 7000)).toBe(join('data', 'http-7000.token'));
    expect(httpTokenFile(cfg({ journal: { url: 'postgres://u@h/db' } }), 7000)).toBe(join('data', 'http-7000.token'));
    expect(httpTokenFile(cfg({ daemon: { http: { tokenFile: join(dir, 'mine.token') } } }), 1)).toBe(join(dir, 'mine.token'));

    const file = httpTokenFile(beside, beside.daemon.http.port);
    const token = daemonToken({}, 'SEXTANT_HTTP_TOKEN', '127.0.0.1').token;
    const remove = writeTokenFile(file, token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`${token}\n`);
    // The commands: the environment's token first, else the file.
    expect(clientToken({}, beside)).toBe(token);
    expect(clientToken({ SEXTANT_HTTP_TOKEN: 'from-the-environment-1' }, beside)).toBe('from-the-environment-1');
    // A daemon started since on the same port wrote its own: the earlier one's stop leaves it.
    const next = daemonToken({}, 'SEXTANT_HTTP_TOKEN', '127.0.0.1').token;
    const removeNext = writeTokenFile(file, next);
    remove();
    expect(readFileSync(file, 'utf8').trim()).toBe(next);
    removeNext();
    expect(existsSync(file)).toBe(false);
    expect(clientToken({}, beside)).toBeUndefined();
  });
});

// The ops server's bearer token from the environment: the variable, or a file named by <VARIABLE>_FILE; never both.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { httpToken } from '../../../src/app/http.js';
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

// better-sqlite3 for the Node that runs: the 12.x line on Node 20, the 13.x line on Node 22 and later; either one
// opens a database and throws SQLite's errors as its SqliteError.
import { createRequire } from 'node:module';
import { describe, expect, it } from '@jest/globals';
import Database, { sqliteDriverPackage } from '../../../src/journal/sqlite-driver.js';

describe('sqlite driver', () => {
  it('loads the line built for this Node', () => {
    const nodeMajor = Number(process.versions.node.split('.')[0]);
    expect(sqliteDriverPackage).toBe(nodeMajor >= 22 ? 'better-sqlite3-13' : 'better-sqlite3-12');
    const pkg = createRequire(import.meta.url)(`${sqliteDriverPackage}/package.json`) as { name: string; version: string };
    expect(pkg.name).toBe('better-sqlite3');
    expect(pkg.version.split('.')[0]).toBe(nodeMajor >= 22 ? '13' : '12');
  });

  it('opens a database, runs statements and throws SQLite errors as SqliteError', () => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      expect(insert.run('a').changes).toBe(1);
      let thrown: unknown;
      try {
        insert.run('a');
      } catch (err) {
        thrown = err;
      }
      // By name, not instanceof: the native module is loaded once per process and keeps the SqliteError class of the
      // first copy of the library that set it up, while jest gives each test file its own copy.
      expect(thrown).toMatchObject({ name: 'SqliteError', code: 'SQLITE_CONSTRAINT_PRIMARYKEY', message: 'UNIQUE constraint failed: t.k' });
      expect(new Database.SqliteError('m', 'SQLITE_X')).toMatchObject({ name: 'SqliteError', code: 'SQLITE_X' });
      expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });
});

// better-sqlite3 built for the Node that runs: the SQLite journal's only way to the library.
// - Node 22 and later: the 13.x line (package `better-sqlite3-13`), Node-API, with prebuilt binaries inside the
//   package (nothing compiled at install). The 12.x line there is compiled against Node's own C++ API, and a build
//   against Node 24.19's headers or later aborts the process on Node 24.19–24.21 (`Assertion failed: (env) !=
//   nullptr` in node::RemoveEnvironmentCleanupHook, from Statement::~Statement) when a statement is collected by a
//   garbage collection that runs outside JavaScript.
// - Node 20: the 12.x line (package `better-sqlite3-12`, an optional dependency compiled from source at install:
//   python3, make and a C++ compiler); the 13.x line crashes there (segmentation fault on opening a database).
// Both lines have the same API (the types come from @types/better-sqlite3). An install without the line this Node
// needs still imports: opening a database then says what is missing.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** The package this Node loads. */
export const sqliteDriverPackage = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-13' : 'better-sqlite3-12';

function load(): typeof BetterSqlite3 {
  try {
    return createRequire(import.meta.url)(sqliteDriverPackage) as typeof BetterSqlite3;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    const missing = new Error(
      `SQLite is not available: package ${sqliteDriverPackage} (better-sqlite3 for Node ${process.versions.node}) is not installed` +
        (sqliteDriverPackage === 'better-sqlite3-12'
          ? ' (on Node 20 it is compiled at `npm ci`, which needs python3, make and a C++ compiler; an install that could not compile it goes on without it)'
          : ''),
      { cause: err },
    );
    const unavailable = function unavailable(): never {
      throw missing;
    };
    return Object.assign(unavailable, {
      SqliteError: class SqliteError extends Error {
        constructor(
          message: string,
          readonly code: string,
        ) {
          super(message);
        }
      },
    }) as unknown as typeof BetterSqlite3;
  }
}

const Database: typeof BetterSqlite3 = load();
// The library's types under the same name, as `import Database from 'better-sqlite3'` gives them.
declare namespace Database {
  type Database = BetterSqlite3.Database;
  type Statement<BindParameters extends unknown[] | {} = unknown[], Result = unknown> = BetterSqlite3.Statement<BindParameters, Result>;
  type SqliteError = BetterSqlite3.SqliteError;
  type Options = BetterSqlite3.Options;
}
export default Database;

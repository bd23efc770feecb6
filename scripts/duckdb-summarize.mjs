// DuckDB's profile of a CSV file, the baseline of `scripts/bench.sh duckdb`:
// SUMMARIZE SELECT * FROM read_csv(FILE) with 2 threads (this machine's cores),
// printed as one JSON line {seconds, rows, columns}; the time covers the read
// and the summary, as analyst's load + profile stages do.
// DUCKDB_NODE_DIR is the folder @duckdb/node-api was installed into
// (npm install --prefix DIR @duckdb/node-api), outside the repository.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(join(process.env.DUCKDB_NODE_DIR || '/var/tmp/duckdb-node', 'package.json'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const file = process.argv[2];
const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await instance.connect();
const start = process.hrtime.bigint();
const summary = await con.runAndReadAll(`SUMMARIZE SELECT * FROM read_csv('${file.replaceAll("'", "''")}')`);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
const rows = summary.getRows();
console.log(JSON.stringify({ seconds, rows: Number(rows[0][rows[0].length - 2] ?? 0), columns: rows.length }));

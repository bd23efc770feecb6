// The reference reading of the loader corpus: DuckDB's own CSV auto-detection
// (read_csv(FILE) with no options) of each file named on stdin, one per line,
// printed as one JSON object per line: {file, rows, names, types} or {file, error}.
// A test-time tool only (eda's loader corpus, scripts/bench.sh loader-corpus):
// DUCKDB_NODE_DIR is the folder @duckdb/node-api was installed into
// (npm install --prefix DIR @duckdb/node-api), outside the repository.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';

const require = createRequire(join(process.env.DUCKDB_NODE_DIR || '/var/tmp/duckdb-node', 'package.json'));
const { DuckDBInstance } = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await instance.connect();
const quoted = (s) => `'${s.replaceAll("'", "''")}'`;
for await (const file of createInterface({ input: process.stdin })) {
  if (!file) continue;
  const source = `read_csv(${quoted(file)})`;
  try {
    const described = await con.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`);
    const counted = await con.runAndReadAll(`SELECT count(*) FROM ${source}`);
    const cols = described.getRows();
    console.log(JSON.stringify({ file, rows: Number(counted.getRows()[0][0]),
      names: cols.map((c) => c[0]), types: cols.map((c) => c[1]) }));
  } catch (e) {
    console.log(JSON.stringify({ file, error: String(e.message).split('\n')[0] }));
  }
}

// Lints Cypher statements offline with Neo4j's own parser and semantic analysis
// (@neo4j-cypher/language-support). Usage: node lint.mjs [--no-cache] <statements.json>
//
// Input:  {"schema": {labels, relationshipTypes, propertyKeys, graphSchema},
//          "statements": [{"name", "query", "parameters": [names]}]}
// Output: one JSON object on stdout: {"version", "checked", "results": [{name, diagnostics}]}
//         where diagnostics are {severity: "error"|"warning", message, offset, text}.
// Exit:   0 when no statement has an error, 1 when one has, 2 on bad input.
// Cache:  the analysis takes ~0.1 s a statement, so statements that came out clean are
//         remembered in node_modules/.cache/ by a hash of (package version, schema, statement,
//         parameter names); anything with a diagnostic is analysed again every run.
// Procedure and function signatures are the package's recorded Neo4j ones
// (testData.mockSchema), so unknown procedures and functions, wrong YIELD columns and arity
// are errors.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { lintCypherQuery, testData } from '@neo4j-cypher/language-support';

const manifest = new URL('./node_modules/@neo4j-cypher/language-support/package.json', import.meta.url);
const { version } = JSON.parse(readFileSync(manifest, 'utf8'));

const args = process.argv.slice(2);
const useCache = !args.includes('--no-cache');
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: node lint.mjs [--no-cache] <statements.json>');
  process.exit(2);
}
const input = JSON.parse(readFileSync(file, 'utf8'));
const schema = input.schema ?? {};
// Neo4j's built-in procedures and functions for Cypher 5, without plugins (devkb needs none;
// APOC or GDS in a statement is an error). Smaller registries also lint faster: the analysis
// compares them by JSON on every call.
const builtIn = (registry) => ({
  'CYPHER 5': Object.fromEntries(
    Object.entries(registry['CYPHER 5']).filter(([name]) => !/^(apoc|gds)\./.test(name)),
  ),
});
const functions = builtIn(testData.mockSchema.functions);
const procedures = builtIn(testData.mockSchema.procedures);

const cacheDir = new URL('./node_modules/.cache/', import.meta.url);
const cacheFile = new URL('devkb-cypher-lint.json', cacheDir);
let clean = new Set();
if (useCache) {
  try {
    clean = new Set(JSON.parse(readFileSync(cacheFile, 'utf8')));
  } catch {
    // no cache yet
  }
}
const self = readFileSync(new URL(import.meta.url), 'utf8'); // a change here invalidates the cache
const keyOf = (stmt) =>
  createHash('sha256')
    .update(JSON.stringify([self, version, schema, stmt.query, [...(stmt.parameters ?? [])].sort()]))
    .digest('hex');
const stillClean = new Set(); // only this run's clean statements are kept

const results = [];
let errors = 0;
let analysed = 0;
for (const stmt of input.statements) {
  const key = keyOf(stmt);
  if (clean.has(key)) {
    stillClean.add(key);
    results.push({ name: stmt.name, diagnostics: [], cached: true });
    continue;
  }
  analysed += 1;
  const dbSchema = {
    defaultLanguage: schema.defaultLanguage ?? 'CYPHER 5',
    labels: schema.labels ?? [],
    relationshipTypes: schema.relationshipTypes ?? [],
    propertyKeys: schema.propertyKeys ?? [],
    graphSchema: schema.graphSchema ?? [],
    functions,
    procedures,
    // values are never used by the analysis; declaring the names is what matters
    parameters: Object.fromEntries((stmt.parameters ?? []).map((p) => [p, null])),
  };
  const { diagnostics } = lintCypherQuery(stmt.query, dbSchema);
  const found = diagnostics.map((d) => ({
    severity: d.severity === 1 ? 'error' : 'warning',
    message: d.message,
    offset: d.offsets?.start ?? null,
    text: d.offsets ? stmt.query.slice(d.offsets.start, Math.max(d.offsets.end, d.offsets.start + 1)) : '',
  }));
  errors += found.filter((d) => d.severity === 'error').length;
  if (found.length === 0) stillClean.add(key);
  results.push({ name: stmt.name, diagnostics: found });
}
if (useCache && (analysed || stillClean.size !== clean.size)) {
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(cacheFile, JSON.stringify([...stillClean]));
}
process.stdout.write(JSON.stringify({ version, checked: results.length, analysed, results }));
process.exitCode = errors ? 1 : 0; // not process.exit(): it would cut a piped stdout short

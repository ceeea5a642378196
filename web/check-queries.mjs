// Validates the app's GraphQL documents (every exported string of
// src/**/queries.ts that holds an operation) against the schema
// (../schema/*.graphqls): `npm run check`.
import * as esbuild from "esbuild";
import { buildSchema, parse, validate } from "graphql";
import { readFileSync, readdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const here = path.dirname(new URL(import.meta.url).pathname);
const dir = path.join(here, "..", "schema");
const sdl = readdirSync(dir).filter((f) => f.endsWith(".graphqls")).sort().map((f) => readFileSync(path.join(dir, f), "utf8")).join("\n");
const schema = buildSchema(sdl);

const files = process.argv.slice(2).length ? process.argv.slice(2) : ["src/inbox/queries.ts"];
let bad = 0;
for (const f of files) {
  const out = await esbuild.build({ entryPoints: [path.join(here, f)], bundle: true, format: "esm", write: false, platform: "node" });
  const tmp = path.join(mkdtempSync(path.join(tmpdir(), "q-")), "q.mjs");
  writeFileSync(tmp, out.outputFiles[0].text);
  const mod = await import(tmp);
  for (const [name, doc] of Object.entries(mod)) {
    if (typeof doc !== "string" || !/^\s*(query|mutation|subscription)\b/.test(doc)) continue;
    const errors = validate(schema, parse(doc));
    for (const e of errors) { bad++; console.error(`${f} ${name}: ${e.message}`); }
  }
}
if (bad) { console.error(`${bad} problem(s)`); process.exit(1); }
console.log("queries: ok");

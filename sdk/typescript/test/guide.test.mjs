// The "Build a frontend" guide's example is examples/play.ts, word for word: it compiles under
// `tsc --strict` against the built SDK, and the compiled program plays a game to its result.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { URL_UNDER_TEST } from "./support.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GUIDE = `${ROOT}../../docs/guides/build-a-frontend.md`;
// Inside the package, so the compiled example finds "@chaiwala/client" by the package's own name.
const OUT = "examples/.compiled";
const FLAGS = ["--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext",
  "--skipLibCheck", "--types", "node", "--rootDir", "examples"];

test("the guide's TypeScript example is examples/play.ts", () => {
  const example = readFileSync(`${ROOT}examples/play.ts`, "utf8");
  const blocks = [...readFileSync(GUIDE, "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((found) => found[1]);
  assert.equal(blocks[0], example, "the guide's first ts block differs from examples/play.ts");
  assert.ok(example.split("\n").length <= 40);
});

test("the guide's example compiles under --strict and plays a game to its result", { timeout: 330_000 }, () => {
  rmSync(`${ROOT}${OUT}`, { recursive: true, force: true });
  const tsc = spawnSync(`${ROOT}node_modules/.bin/tsc`, [...FLAGS, "--outDir", OUT, "examples/play.ts"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  const run = spawnSync(process.execPath, [`${OUT}/play.js`], {
    cwd: ROOT,
    env: { ...process.env, CHAIWALA_URL: URL_UNDER_TEST },
    encoding: "utf8",
    timeout: 300_000, // a whole game through the stack: minutes on a loaded 2-core machine
  });
  rmSync(`${ROOT}${OUT}`, { recursive: true, force: true });
  assert.equal(run.status, 0, `${run.stderr}\n${run.stdout.slice(-2000)}`);
  assert.match(run.stdout.trim().split("\n").at(-1), /^finished \{/);
});

// The "Build a frontend" guide's example is examples/play.mjs, word for word, and it plays a game.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { URL_UNDER_TEST } from "./support.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const GUIDE = `${ROOT}../../docs/guides/build-a-frontend.md`;

test("the guide's example is examples/play.mjs", () => {
  const example = readFileSync(`${ROOT}examples/play.mjs`, "utf8");
  const blocks = [...readFileSync(GUIDE, "utf8").matchAll(/```js\n([\s\S]*?)```/g)].map((found) => found[1]);
  assert.ok(blocks.includes(example), "the guide's js block differs from examples/play.mjs");
  assert.ok(example.split("\n").length <= 40);
});

test("the guide's example plays a game to its result", { timeout: 100_000 }, () => {
  const run = spawnSync(process.execPath, ["examples/play.mjs"], {
    cwd: ROOT,
    env: { ...process.env, CHAIWALA_URL: URL_UNDER_TEST },
    encoding: "utf8",
    timeout: 90_000,
  });
  assert.equal(run.status, 0, `${run.stderr}\n${run.stdout.slice(-2000)}`);
  assert.match(run.stdout.trim().split("\n").at(-1), /^finished \{/);
});

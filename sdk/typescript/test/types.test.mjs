// Type tests: test/types/*.ts compiled by the pinned tsc with --noEmit against the built SDK.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FLAGS = ["--noEmit", "--strict", "--target", "es2022", "--module", "es2022", "--moduleResolution", "bundler", "--skipLibCheck"];

function compile(file) {
  const tsc = spawnSync(`${ROOT}node_modules/.bin/tsc`, [...FLAGS, `test/types/${file}`], { cwd: ROOT, encoding: "utf8" });
  return { ok: tsc.status === 0, output: tsc.stdout + tsc.stderr };
}

test("the types refuse a move without its @type and an unknown game type", () => {
  const { ok, output } = compile("moves.ts");
  assert.ok(ok, output);
});

// The served document makes each game's move a oneOf of its kinds, so two kinds are a type error.
test("a move with two kinds does not compile", () => {
  const { ok, output } = compile("two-kinds.ts");
  assert.ok(ok, output);
});

// The player stream's notices: `kind` tells which payload `data` is (generated from the AsyncAPI side).
test("a player notice's data is typed by its kind", () => {
  const { ok, output } = compile("player.ts");
  assert.ok(ok, output);
});

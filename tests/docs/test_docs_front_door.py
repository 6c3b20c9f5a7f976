"""The README stays a front door and the docs site stays whole (``make test`` also builds it with --strict).

No server is started: these read files only.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DATE = re.compile(r"20[0-9]{2}-[0-9]{2}-[0-9]{2}")


def test_readme_is_short_and_undated() -> None:
    lines = README.splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail into docs/"
    dated = [line for line in lines if DATE.search(line)]
    assert len(dated) <= 2, f"dated lines belong in docs/lab/: {dated}"


def test_readme_names_the_two_commands() -> None:
    assert "make run" in README and "make test" in README


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [page for item in node for page in _nav_pages(item)]
    if isinstance(node, dict):
        return [page for value in node.values() for page in _nav_pages(value)]
    return []


def test_every_page_is_in_the_nav_and_the_changelog_is_open() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = set(_nav_pages(config["nav"]))
    docs = ROOT / "docs"
    pages = {
        str(path.relative_to(docs)) for path in docs.rglob("*.md") if "generated" not in path.relative_to(docs).parts
    }
    assert pages == nav, f"in docs/ but not the nav: {pages - nav}; in the nav but missing: {nav - pages}"
    assert "## [Unreleased]" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")

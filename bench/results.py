"""Benchmark results: one row per case beside its baseline, written as JSON and Markdown.

A row's ``ratio`` is ``value / baseline_value``; ``better`` says which direction is good
(``higher`` for rates, ``lower`` for latencies and bytes).  ``goal`` is the issue's target for
that ratio, when it has one, and ``met`` whether this run reached it.  ``--compare old.json``
adds, per row, the ratio of the earlier run and the change.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass
class Row:
    """One measured case beside its baseline, measured in the same run."""

    suite: str
    case: str
    unit: str
    value: float
    baseline: str
    baseline_value: float
    better: str = "higher"
    goal: float | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        """``value / baseline_value``; ``None`` when either side measured nothing (``details["failed"]``
        says why for the case: e.g. no event was delivered, so there is no latency to compare)."""
        if not self.baseline_value or self.details.get("failed"):
            return None
        return self.value / self.baseline_value

    @property
    def met(self) -> bool | None:
        """Whether the ratio reaches the goal (``None`` without a goal or a ratio)."""
        ratio = self.ratio
        if self.goal is None or ratio is None:
            return None
        return ratio >= self.goal if self.better == "higher" else ratio <= self.goal

    def to_json(self) -> dict[str, Any]:
        """The row with its ratio and verdict, as written to the JSON file."""
        data = asdict(self)
        ratio = self.ratio
        data.update(ratio=None if ratio is None else round(ratio, 4), met=self.met)
        data["value"], data["baseline_value"] = _round(self.value), _round(self.baseline_value)
        return data


def _round(value: float) -> float:
    return round(value, 3) if abs(value) >= 1 else round(value, 6)


def machine() -> dict[str, Any]:
    """Where the run happened: host, CPU model and count, Python, load, git commit."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    return {
        "host": platform.node(),
        "cpu": model,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "commit": commit.stdout.strip(),
    }


def document(rows: list[Row], settings: dict[str, Any]) -> dict[str, Any]:
    """The JSON document of a run."""
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "settings": settings,
        "rows": [row.to_json() for row in rows],
    }


def _key(row: dict[str, Any]) -> tuple[str, str]:
    return str(row["suite"]), str(row["case"])


def compare(current: dict[str, Any], earlier: dict[str, Any]) -> None:
    """Add ``earlier_ratio`` and ``change`` (current / earlier ratio) to each row found in both runs."""
    old = {_key(row): row for row in earlier.get("rows", [])}
    current["compared_with"] = earlier.get("date", "")
    for row in current["rows"]:
        before = old.get(_key(row))
        if before is None or not before.get("ratio") or row.get("ratio") is None:
            continue
        row["earlier_ratio"] = before["ratio"]
        row["change"] = round(row["ratio"] / before["ratio"], 4)


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def _goal(row: dict[str, Any]) -> str:
    """The row's goal for its ratio (``≥ 0.8``, ``≤ 2``), printed whether or not the run measured a ratio."""
    if row.get("goal") is None:
        return ""
    return f"{'≥' if row['better'] == 'higher' else '≤'} {row['goal']:g}"


def _verdict(row: dict[str, Any]) -> str:
    if row.get("met") is None:
        return "NO (not measured)" if row.get("goal") is not None else ""  # e.g. nothing delivered, no step held
    return "yes" if row["met"] else "NO"


def _notes(row: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_fmt(v)}" for k, v in row.get("details", {}).items())


COLUMNS = ("suite", "case", "value", "unit", "baseline", "baseline value", "ratio", "goal", "met", "earlier", "notes")


def _cells(row: dict[str, Any]) -> list[str]:
    return [
        row["suite"],
        row["case"],
        _fmt(row["value"]),
        row["unit"],
        row["baseline"],
        _fmt(row["baseline_value"]),
        _fmt(row["ratio"]),
        _goal(row),
        _verdict(row),
        _fmt(row.get("earlier_ratio")),
        _notes(row),
    ]


def markdown(doc: dict[str, Any]) -> str:
    """The run as a Markdown table (ratio = value / baseline value, both from this run)."""
    info = doc["machine"]
    lines = [
        f"# Benchmarks {doc['date']}",
        "",
        f"{info['cpu']} × {info['cores']} cores, Python {info['python']}, commit {info['commit']}, "
        f"load average before {info['load_average']}; settings {doc['settings']}",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    lines += ["| " + " | ".join(cell.replace("|", "/") for cell in _cells(row)) + " |" for row in doc["rows"]]
    return "\n".join(lines) + "\n"


def print_table(doc: dict[str, Any], console: Console | None = None) -> None:
    """The run as a rich table on the terminal."""
    table = Table(title=f"chaiwala benchmarks {doc['date']} (ratio = value / baseline, same run; details in the .md)")
    for column in COLUMNS[:-1]:
        table.add_column(column, overflow="fold")
    for row in doc["rows"]:
        table.add_row(*_cells(row)[:-1])
    (console or Console(width=200)).print(table)


def write(doc: dict[str, Any], directory: Path = RESULTS_DIR) -> tuple[Path, Path]:
    """Write ``<date>.json`` and ``<date>.md`` under ``directory``; return both paths."""
    directory.mkdir(parents=True, exist_ok=True)
    stamp = doc["date"].replace(":", "").replace("+0000", "Z")
    json_path = directory / f"bench-{stamp}.json"
    md_path = json_path.with_suffix(".md")
    json_path.write_text(json.dumps(doc, indent=2) + "\n")
    md_path.write_text(markdown(doc))
    return json_path, md_path

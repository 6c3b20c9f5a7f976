"""The Grafana dashboard: valid JSON, the required panels, and PromQL that names only exported metrics."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy.deploy_contract import METRICS, ROOT, exposed_series_names

DASHBOARD_PATH = ROOT / "deploy" / "grafana" / "dashboards" / "chaiwala.json"
DATASOURCES_PATH = ROOT / "deploy" / "grafana" / "provisioning" / "datasources" / "prometheus.yml"
METRICS_MODULE = ROOT / "services" / "common" / "metrics.py"
SOURCE_DIRS = (ROOT / "services", ROOT / "gateway")

SERIES_RE = re.compile(r"\b(chaiwala_[a-z0-9_]+)\b")
BY_RE = re.compile(r"\b(?:by|without|on|ignoring)\s*\(([^)]*)\)")
SELECTOR_RE = re.compile(r"\{([^{}]*)\}")
MATCHER_RE = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*\"")
# Grafana variables and PromQL keywords, never metric names.
GRAFANA_VARIABLE_RE = re.compile(r"\$(?:__[a-z_]+|\{[a-z_]+\}|[a-z_]+)")


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    """The dashboard document."""
    data: dict[str, Any] = json.loads(DASHBOARD_PATH.read_text(encoding="utf-8"))
    return data


def all_panels(dashboard: dict[str, Any]) -> list[dict[str, Any]]:
    """Every panel, including those nested in collapsed rows."""
    found = []
    for panel in dashboard["panels"]:
        found.append(panel)
        found.extend(panel.get("panels", []))
    return found


def all_queries(dashboard: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, PromQL) for every panel target and every query variable."""
    queries = []
    for panel in all_panels(dashboard):
        for target in panel.get("targets", []):
            queries.append((f"panel {panel['title']!r} {target.get('refId')}", target["expr"]))
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") == "query":
            query = variable["query"]
            queries.append((f"variable {variable['name']}", query["query"] if isinstance(query, dict) else query))
    return queries


def test_dashboard_loads(dashboard: dict[str, Any]) -> None:
    """Valid JSON with a uid, a title, unique panel ids, and a query on every graph panel."""
    assert dashboard["uid"] and dashboard["title"]
    panels = all_panels(dashboard)
    ids = [panel["id"] for panel in panels]
    assert len(ids) == len(set(ids))
    builtin = {"row", "timeseries", "stat", "bargauge", "heatmap", "table", "gauge", "piechart", "text", "barchart"}
    for panel in panels:
        assert panel["type"] in builtin, f"{panel['title']}: not a built-in panel type: {panel['type']}"
        if panel["type"] == "row":
            continue
        assert panel.get("targets"), panel["title"]
        assert all(target.get("expr") for target in panel["targets"]), panel["title"]
        assert {"x", "y", "w", "h"} <= set(panel["gridPos"]), panel["title"]
        assert panel["gridPos"]["x"] >= 0 and panel["gridPos"]["x"] + panel["gridPos"]["w"] <= 24


def test_datasource_variable_defaults_to_the_provisioned_prometheus(dashboard: dict[str, Any]) -> None:
    """Panels use the ${datasource} variable, whose default is the provisioned datasource's uid."""
    provisioned = yaml.safe_load(DATASOURCES_PATH.read_text(encoding="utf-8"))["datasources"]
    uids = {source["uid"] for source in provisioned}
    (variable,) = [v for v in dashboard["templating"]["list"] if v["type"] == "datasource"]
    assert variable["query"] == "prometheus"
    assert variable["current"]["value"] in uids
    for panel in all_panels(dashboard):
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == "${" + variable["name"] + "}"


def test_queries_are_well_formed(dashboard: dict[str, Any]) -> None:
    """Balanced brackets and quotes in every query (a cheap guard against broken PromQL)."""
    pairs = {")": "(", "]": "[", "}": "{"}
    for where, expr in all_queries(dashboard):
        stack: list[str] = []
        in_string = False
        for char in expr:
            if char == '"':
                in_string = not in_string
            elif in_string:
                continue
            elif char in "([{":
                stack.append(char)
            elif char in pairs:
                assert stack and stack.pop() == pairs[char], f"{where}: {expr}"
        assert not stack and not in_string, f"{where}: {expr}"


def test_queries_name_only_contract_metrics_and_labels(dashboard: dict[str, Any]) -> None:
    """Every series a query names is exported per the contract; grouping/matching labels exist on it."""
    series = exposed_series_names()
    for where, expr in all_queries(dashboard):
        names = set(SERIES_RE.findall(expr))
        assert names, f"{where} names no chaiwala metric: {expr}"
        unknown = names - set(series)
        assert not unknown, f"{where} uses metrics outside the contract: {sorted(unknown)}"
        labels: set[str] = set()
        for name in names:
            metric = series[name]
            labels |= METRICS[metric][1]
            if METRICS[metric][0] == "histogram" and name.endswith("_bucket"):
                labels.add("le")
        cleaned = GRAFANA_VARIABLE_RE.sub("", expr)
        used = {label.strip() for group in BY_RE.findall(cleaned) for label in group.split(",") if label.strip()}
        for selector in SELECTOR_RE.findall(cleaned):
            used |= set(MATCHER_RE.findall(selector))
        assert used <= labels, f"{where}: labels {sorted(used - labels)} are not on {sorted(names)}"


def test_required_panels_are_present(dashboard: dict[str, Any]) -> None:
    """Moves/s by game, accept ratio and error codes, SubmitMoves p50/p99, games, lengths and scores."""
    exprs = "\n".join(expr for _, expr in all_queries(dashboard))
    titles = " ".join(panel["title"].lower() for panel in all_panels(dashboard))
    assert re.search(r"sum by \(game_type\) \(rate\(chaiwala_moves_accepted_total", exprs)
    assert "chaiwala_moves_rejected_total" in exprs and "topk(" in exprs
    assert re.search(r"sum by \([^)]*\bcode\b[^)]*\) \([a-z]+\(chaiwala_moves_rejected_total", exprs)
    for quantile in ("0.5", "0.99"):
        assert re.search(
            rf"histogram_quantile\({quantile}, sum by \([^)]*\ble\b[^)]*\) \(rate\(chaiwala_rpc_duration_seconds_bucket"
            r'\{method="SubmitMoves"',
            exprs,
        ), quantile
    for metric in (
        "chaiwala_games_active",
        "chaiwala_games_finished_total",
        "chaiwala_game_length_moves_bucket",
        "chaiwala_final_score_bucket",
    ):
        assert metric in exprs, metric
    # Each instance reports the shared Redis count of active games: combine instances with max, never sum.
    assert re.search(r"max by \(game_type\) \(chaiwala_games_active", exprs)
    assert not re.search(r"sum[^(]*\(chaiwala_games_active", exprs)
    for words in ("moves per second", "accept ratio", "error code", "p50 / p99", "active games", "game length",
                  "score"):
        assert words in titles, words


def metric_names_in_source() -> str:
    """All Python source under services/ and gateway/, concatenated."""
    texts: list[str] = []
    for directory in SOURCE_DIRS:
        if directory.is_dir():
            texts.extend(path.read_text(encoding="utf-8") for path in sorted(directory.rglob("*.py")))
    return "\n".join(texts)


def registered_name(metric: str) -> str:
    """The name as passed to prometheus_client (which appends ``_total`` to counters itself)."""
    kind = METRICS[metric][0]
    return metric.removesuffix("_total") if kind == "counter" else metric


def test_every_dashboard_metric_is_exported_by_the_code(dashboard: dict[str, Any]) -> None:
    """Each metric the dashboard queries is registered somewhere in services/ or gateway/."""
    if not METRICS_MODULE.exists():
        pytest.skip("services/common/metrics.py does not exist yet; the lead creates it with the contract's names")
    source = metric_names_in_source()
    series = exposed_series_names()
    used = {series[name] for _, expr in all_queries(dashboard) for name in SERIES_RE.findall(expr)}
    missing = [
        metric for metric in sorted(used) if not re.search(rf"[\"']{registered_name(metric)}(_total)?[\"']", source)
    ]
    assert not missing, f"the dashboard queries metrics no code registers: {missing}"


def test_registered_metric_types_match_the_contract() -> None:
    """Where the code registers a contract metric, it uses the contract's type (Counter/Gauge/Histogram)."""
    if not METRICS_MODULE.exists():
        pytest.skip("services/common/metrics.py does not exist yet; the lead creates it with the contract's names")
    source = metric_names_in_source()
    constructors = {"counter": "Counter", "gauge": "Gauge", "histogram": "Histogram"}
    for metric, (kind, _labels) in METRICS.items():
        pattern = rf"\b(Counter|Gauge|Histogram|Summary)\(\s*[\"']{registered_name(metric)}(?:_total)?[\"']"
        for constructor in re.findall(pattern, source):
            assert constructor == constructors[kind], f"{metric} registered as {constructor}"


def test_source_dirs_exist_for_the_grep() -> None:
    """Guard: the grep above looks where the code lives (so it cannot pass vacuously once code exists)."""
    if not METRICS_MODULE.exists():
        pytest.skip("services/common/metrics.py does not exist yet")
    assert any(Path(d).is_dir() for d in SOURCE_DIRS)
    assert "chaiwala_" in METRICS_MODULE.read_text(encoding="utf-8")


def test_rules_service_registry_matches_the_contract() -> None:
    """Import the rules services', the conductor's and the webhook dispatcher's metrics modules: every contract
    metric is registered, typed, labelled."""
    if not METRICS_MODULE.exists():
        pytest.skip("services/common/metrics.py does not exist yet")
    from prometheus_client.metrics import MetricWrapperBase

    from services.common import metrics as rules_metrics
    from services.conductor import game_facts
    from services.conductor import metrics as conductor_metrics
    from services.matchmaking import metrics as matchmaking_metrics
    from services.notify import metrics as notify_metrics
    from services.retention import metrics as retention_metrics
    from services.tournament import metrics as director_metrics
    from services.webhook import metrics as webhook_metrics

    registered: dict[str, tuple[str, frozenset[str]]] = {}
    modules = (rules_metrics, conductor_metrics, game_facts, retention_metrics, webhook_metrics, director_metrics,
               matchmaking_metrics, notify_metrics)  # fmt: skip
    for value in [value for module in modules for value in vars(module).values()]:
        if isinstance(value, MetricWrapperBase):
            kind = str(value._type)
            name = value._name + ("_total" if kind == "counter" else "")
            registered[name] = (kind, frozenset(value._labelnames))
    expected = {name: spec for name, spec in METRICS.items() if not name.startswith("chaiwala_http_")}
    for name, spec in expected.items():
        assert registered.get(name) == spec, f"{name}: code has {registered.get(name)}, contract says {spec}"

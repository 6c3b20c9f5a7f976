"""Prometheus's own parser on our files: the rules, the compose config and every dashboard query.

``promtool`` comes with Prometheus (Debian package ``prometheus``).  The test finds it on the
PATH (or at ``$CHAIWALA_PROMTOOL``); missing, it installs the Debian package when it runs as root
with apt-get, and otherwise fails saying how to get it: a check that cannot run must not pass.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.deploy.deploy_contract import ROOT
from tests.deploy.test_deploy_dashboard import DASHBOARD_PATH, all_panels

RULES_PATH = ROOT / "deploy" / "prometheus" / "rules.yml"
CONFIG_PATH = ROOT / "deploy" / "prometheus" / "prometheus.yml"
INSTALL_SECONDS = 600
# Grafana's variables, as a dashboard query would see them (any valid value parses the same).
GRAFANA_VALUES = {"$__rate_interval": "5m", "$__interval": "1m", "$__range": "1h", "$game_type": ".*"}


def _install_promtool() -> None:
    """apt-get install the ``prometheus`` package (only as root, where apt-get exists)."""
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    command = ["apt-get", "install", "-y", "--no-install-recommends", "prometheus"]
    subprocess.run(command, env=env, capture_output=True, timeout=INSTALL_SECONDS, check=False)


@pytest.fixture(scope="module")
def promtool() -> str:
    """The promtool executable (installed if need be); the test fails clearly without one."""
    configured = os.environ.get("CHAIWALA_PROMTOOL")
    if configured:
        assert Path(configured).is_file(), f"CHAIWALA_PROMTOOL={configured} is not a file"
        return configured
    found = shutil.which("promtool")
    if found is None:
        _install_promtool()
        found = shutil.which("promtool")
    if found is None:
        pytest.fail(
            "promtool not found and could not be installed: `apt-get install -y prometheus` (Debian), or "
            "download Prometheus and set CHAIWALA_PROMTOOL to its promtool"
        )
    return found


def _check(promtool: str, *args: str) -> str:
    done = subprocess.run([promtool, "check", *args], capture_output=True, text=True, timeout=120, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


def test_the_rules_parse_and_name_only_series_we_export(promtool: str) -> None:
    output = _check(promtool, "rules", str(RULES_PATH))
    assert "SUCCESS" in output
    groups = yaml.safe_load(RULES_PATH.read_text(encoding="utf-8"))["groups"]
    rules = [rule for group in groups for rule in group["rules"]]
    assert any("chaiwala_games_ended_total" in rule["expr"] for rule in rules)
    assert any(rule.get("alert") == "ChaiwalaWebhookDeadLetters" for rule in rules)


def test_the_compose_config_and_the_rule_files_it_loads_parse(promtool: str) -> None:
    output = _check(promtool, "config", str(CONFIG_PATH))
    assert "1 rule files found" in output


def test_every_dashboard_query_parses(promtool: str, tmp_path: Path) -> None:
    """Each panel query, its Grafana variables filled in, as a recording rule for promtool to parse."""
    dashboard = json.loads(DASHBOARD_PATH.read_text(encoding="utf-8"))
    rules, where = [], {}
    for panel in all_panels(dashboard):
        for target in panel.get("targets", []):
            expr = target["expr"]
            for variable, value in GRAFANA_VALUES.items():
                expr = expr.replace(variable, value)
            assert "$" not in expr, f"panel {panel['title']!r}: a Grafana variable this test does not know: {expr}"
            record = f"dashboard:panel_{panel['id']}_{target['refId']}"
            where[record] = panel["title"]
            rules.append({"record": record, "expr": expr})
    assert len(rules) > 40  # every panel, not a few
    path = tmp_path / "dashboard-queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}), encoding="utf-8")
    done = subprocess.run([promtool, "check", "rules", str(path)], capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    named = sorted({where[r] for r in re.findall(r"dashboard:panel_\w+", output) if r in where})
    assert done.returncode == 0, f"queries that do not parse (panels {named}):\n{output}"

"""The ``chaiwala`` console script: its help, and each subcommand's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def test_the_console_script_is_installed_and_lists_every_subcommand() -> None:
    script = Path(sys.executable).with_name("chaiwala")
    assert script.exists(), "make setup installs the chaiwala console script"
    answer = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)
    assert answer.returncode == 0, answer.stderr
    for command in ("verify", "replay", "games", "bench"):
        assert command in answer.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["verify", "--help"], "first bad entry"),
        (["replay", "export", "--help"], "transcript"),
        (["games", "list", "--help"], "newest first"),
        (["games", "show", "--help"], "JSON"),
        (["games", "abort", "--help"], "operator key"),
        (["bench", "--help"], "baseline"),
    ],
)
def test_each_subcommand_explains_itself(args: list[str], says: str) -> None:
    answer = runner.invoke(app, args)
    assert answer.exit_code == 0, answer.output
    assert says in answer.output


def test_verify_without_anything_to_verify_is_a_usage_error() -> None:
    answer = runner.invoke(app, ["verify"])
    assert answer.exit_code == 2

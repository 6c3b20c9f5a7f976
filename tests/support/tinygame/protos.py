"""Compile Pile's proto for a test run (its generated code is nowhere in the repository)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from grpc_tools import protoc

HERE = Path(__file__).resolve().parent


def compile_into(directory: Path) -> Path:
    """Generate ``tinygame_pb2.py`` into ``directory``, put it on this process's path; answer it."""
    directory.mkdir(parents=True, exist_ok=True)
    status = protoc.main(["protoc", f"-I{HERE}", f"--python_out={directory}", str(HERE / "tinygame.proto")])
    if status != 0:
        raise RuntimeError(f"protoc failed on tinygame.proto ({status})")
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))
    importlib.invalidate_caches()
    return directory

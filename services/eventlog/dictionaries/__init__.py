"""The frozen DEFLATE dictionaries of log entries, one file per game type and version.

``<game type>-<version>.dict`` holds sample entries of that game as the codec writes them
(JSON ``[seat, bot, kind, move, events]``, random bot games with fixed seeds, spread over whole
games), at most :data:`SIZE` bytes.  Priming DEFLATE with them makes the keys and values every
entry repeats nearly free.  A dictionary is part of the stored format: a shipped file is never
edited or removed, or the entries written with it could not be read.  To improve one, build the
next version (``python -m services.eventlog.dictionaries darjeeling``: it writes
``darjeeling-<latest + 1>.dict``); new entries use the newest version, old ones name theirs.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

HERE = Path(__file__).parent
SIZE = 4096
_NAME = re.compile(r"^(?P<game>[a-z_]+)-(?P<version>[1-9][0-9]*)\.dict$")


@functools.cache
def _versions() -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for path in HERE.glob("*.dict"):
        named = _NAME.match(path.name)
        if named:
            found.setdefault(named["game"], []).append(int(named["version"]))
    return {game: sorted(versions) for game, versions in found.items()}


def latest(game_type: str) -> int:
    """The newest dictionary version of ``game_type`` (0 when it has none)."""
    return max(_versions().get(game_type, [0]))


@functools.cache
def dictionary(game_type: str, version: int) -> bytes:
    """The bytes of one dictionary; ``ValueError`` when it does not exist (an entry that cannot be read)."""
    path = HERE / f"{game_type}-{version}.dict"
    if version not in _versions().get(game_type, []):
        raise ValueError(f"no log dictionary {path.name}: cannot read entries written with it")
    return path.read_bytes()

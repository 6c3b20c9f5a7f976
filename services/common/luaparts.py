"""Atomic Redis scripts assembled from named parts.

A script that several concerns write in (the commit: log and snapshot, outbox, legal-moves
answers, the game's filing in listings and indexes) is built from :class:`Part`\\ s, each naming
the keys it uses and reading its own arguments in turn, so no part needs to know where another's
arguments end. In Lua a part refers to its keys as ``K.<name>`` and takes its next argument with
``take()``, which walks ARGV from the first; the arguments are therefore laid out in the parts'
order, and callers pass keys and arguments by name (:meth:`Script.keys`, :meth:`Script.args`).

Parts may share a key by naming it alike (the game's metadata hash, say); the key is passed once.
A part may end the script early with ``return``; the parts after it then read nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

_NAME = re.compile(r"[a-z][a-z0-9_]*")

# ARGV is read by one cursor: a part takes what it needs and leaves the rest to the next part.
_PRELUDE = """
local argv_at = 0
local function take()
  argv_at = argv_at + 1
  return ARGV[argv_at]
end
"""


@dataclass(frozen=True)
class Part:
    """One concern's share of an atomic script: the keys it names and its Lua.

    ``lua`` reads keys as ``K.<name>`` and its arguments with ``take()``, in the order the caller
    lists them under this part's ``name``.
    """

    name: str
    keys: tuple[str, ...] = ()
    lua: str = ""


class Script:
    """A script made of parts: its Lua source and how its keys and arguments are laid out."""

    def __init__(self, parts: Sequence[Part]) -> None:
        names = [part.name for part in parts]
        if len(set(names)) != len(names):
            raise ValueError(f"two parts share a name: {names}")
        key_names: list[str] = []
        for name in (*names, *(key for part in parts for key in part.keys)):
            if not _NAME.fullmatch(name):
                raise ValueError(f"not a Lua-friendly name: {name!r}")
        for part in parts:
            key_names += [key for key in part.keys if key not in key_names]
        self.part_names = tuple(names)
        self.key_names = tuple(key_names)
        table = ", ".join(f"{key} = KEYS[{index}]" for index, key in enumerate(key_names, start=1))
        body = "".join(f"\n-- ---- {part.name} ----\n{part.lua.strip()}\n" for part in parts)
        self.source = f"{_PRELUDE}local K = {{{table}}}\n{body}"

    def keys(self, named: Mapping[str, str]) -> list[str]:
        """The KEYS list from every key's name; a missing or unknown name is a programming error."""
        unknown = set(named) - set(self.key_names)
        missing = set(self.key_names) - set(named)
        if unknown or missing:
            raise ValueError(f"keys not as the parts name them: unknown {sorted(unknown)}, missing {sorted(missing)}")
        return [named[key] for key in self.key_names]

    def args(self, named: Mapping[str, Sequence[Any]]) -> list[Any]:
        """The ARGV list from each part's arguments, in the parts' order (a part left out takes none)."""
        unknown = set(named) - set(self.part_names)
        if unknown:
            raise ValueError(f"arguments for parts the script does not have: {sorted(unknown)}")
        return [value for part in self.part_names for value in named.get(part, ())]

"""Tea & Rum content, read once from ``seeds/tea_rum/`` at import.

Effects are stored in the seeds as lists of single-key maps (``{coins: 3}``,
``{choice: [[...], [...]]}``) and normalised here into the proto ``Gain`` shape
(``{"kind": ..., "amount": ..., "options": [{"gains": [...]}]}``) so that views can
copy them straight out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

SEEDS = Path(__file__).resolve().parents[2] / "seeds" / "tea_rum"

Gain = dict[str, Any]
Effects = list[Gain]

RESOURCES = ("wheat", "wood", "ore", "barrel", "tobacco", "cannon")
CUBES = ("wheat", "wood", "ore")
ACTION_KINDS = ("trade", "build", "contract", "captain")
GAIN_KINDS = (
    "coins", "stars", "any_cube", "blue", "red", "population", "choice", *RESOURCES, *ACTION_KINDS,
)
WISH_SYMBOLS = ("hygiene", "security", "entertainment")


def normalise(effects: list[dict[str, Any]] | None) -> Effects:
    """Turn the seeds' shorthand effect list into proto ``Gain`` dicts."""
    out: Effects = []
    for item in effects or []:
        if len(item) != 1:
            raise ValueError(f"an effect must have exactly one key: {item!r}")
        ((kind, value),) = item.items()
        if kind not in GAIN_KINDS:
            raise ValueError(f"unknown effect kind {kind!r}")
        if kind == "choice":
            out.append({"kind": "choice", "amount": 0, "options": [{"gains": normalise(opt)} for opt in value]})
        else:
            out.append({"kind": kind, "amount": int(value), "options": []})
    return out


def _load(name: str) -> Any:
    with (SEEDS / name).open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@dataclass(frozen=True)
class Content:
    """Every table and card of the game, indexed by id."""

    rules: dict[str, Any]
    captains: dict[int, dict[str, Any]]
    buildings: dict[str, dict[str, Any]]
    building_order: list[str]
    contracts: dict[int, dict[str, Any]]
    allegiances: dict[int, dict[str, Any]]
    endowments: dict[int, dict[str, Any]]
    ships: dict[int, dict[str, Any]]
    wishes: dict[int, dict[str, Any]]
    wish_rewards: dict[int, dict[str, Any]]
    boards: list[dict[str, Any]]
    tiles: dict[str, dict[str, Any]]
    reputation: dict[int, Effects]
    prices: dict[str, int]
    supply: dict[str, int]

    @property
    def reputation_max(self) -> int:
        """The last step of the reputation track."""
        return max(self.reputation)


def _build() -> Content:
    rules = _load("rules.yaml")
    cards = _load("cards.yaml")
    captains = {}
    for c in cards["captains"]:
        captains[c["id"]] = {**c, "instant": normalise(c["instant"]), "reward": normalise(c["reward"])}
    buildings = {}
    for b in cards["buildings"]:
        buildings[b["id"]] = {**b, "instant": normalise(b["instant"]), "vp": normalise(b["vp"])}
    boards = []
    tiles: dict[str, dict[str, Any]] = {}
    for board in cards["action_boards"]:
        entry = {**board, "alternative": normalise(board["alternative"])}
        entry_tiles = []
        for tile in board["tiles"]:
            norm = {
                "id": tile["id"],
                "four": [normalise(opt) for opt in tile["four"]],
                "two_three": None if tile["two_three"] is None else [normalise(opt) for opt in tile["two_three"]],
            }
            tiles[tile["id"]] = norm
            entry_tiles.append(tile["id"])
        entry["tiles"] = entry_tiles
        boards.append(entry)
    rules["contract_spaces"] = {k: [normalise(v) for v in rules["contract_spaces"][k]] for k in ("4", "23")}
    return Content(
        rules=rules,
        captains=captains,
        buildings=buildings,
        building_order=[b["id"] for b in cards["buildings"]],
        contracts={c["id"]: c for c in cards["contracts"]},
        allegiances={a["id"]: a for a in cards["allegiances"]},
        endowments={e["id"]: {**e, "gains": normalise(e["gains"])} for e in cards["endowments"]},
        ships={s["id"]: {**s, "rows": [normalise(r) for r in s["rows"]]} for s in cards["ships"]},
        wishes={w["id"]: w for w in cards["wishes"]},
        wish_rewards={w["round"]: w for w in cards["wish_rewards"]},
        boards=boards,
        tiles=tiles,
        reputation={int(k): normalise(v) for k, v in rules["reputation_track"]["steps"].items()},
        prices={r["id"]: r["base_price"] for r in rules["resources"]},
        supply={r["id"]: r["supply"] for r in rules["resources"]},
    )


CONTENT = _build()
BOARD_IDS = [b["id"] for b in CONTENT.boards]

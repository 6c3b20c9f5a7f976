"""Re-record ``data/recorded_games.json``, the replays ``test_india_rails_speedups.py`` holds the engine to.

Run it only when the rules or the content change on purpose (e.g. the demand deck), never to make a
failing replay pass after a change meant to keep behaviour.  On the committed deck it gives back the
heuristic games of the committed file move for move and digest for digest (checked 2026-12-04).
Re-recorded for issue 31 (2026-12-06): the rules state lost its ``game_key`` and the heuristic bot its
notes between moves.  Before re-recording, the committed file replayed on the new engine with every
legal-move digest equal and every snapshot digest equal once the old ``game_key`` was put back; the
random game's moves and legal digests are unchanged, the heuristic games' moves are the new bot's.
Run it as:

    PYTHONPATH=.:gen:tests/india_rails .venv/bin/python tests/india_rails/record_games.py
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import orjson
from india_rails_fixtures import ENGINE, new_match

from services.bots.roster import bots_for
from services.common.engine import Bot, RandomBot
from tests.support.seeds import seed_hex

OUT = Path(__file__).parent / "data" / "recorded_games.json"
STATE_EVERY = 25  # moves between two snapshot digests
# (players, bot, seed, options, moves): a short and a fast game with the heuristic, a long random one.
GAMES: list[tuple[int, str, int, dict[str, bool], int]] = [
    (2, "heuristic", 22, {"fast_game": True, "fast_trains": True}, 500),
    (4, "heuristic", 7, {"fast_game": True}, 300),
    (6, "random", 9, {"mercy_borrowing": True, "track_trading": False}, 400),
]
ABOUT = (
    "Recorded with record_games.py: moves, sha256[:12] of every legal-move list before each move (orjson) and of "
    "the snapshot after every 25th move and the last."
)


def _digest(value: Any) -> str:
    return hashlib.sha256(orjson.dumps(value)).hexdigest()[:12]


def record(players: int, bot_name: str, seed: int, options: dict[str, bool], length: int) -> dict[str, Any]:
    """One game of ``length`` moves (or to its end) by ``bot_name`` in every seat."""
    match = new_match(players, seed=seed, **options)
    bot: Bot = bots_for(ENGINE)["heuristic"] if bot_name == "heuristic" else RandomBot()
    moves: list[list[Any]] = []
    legal_digests: list[str] = []
    state_digests: dict[str, str] = {}
    for i in range(length):
        if ENGINE.is_over(match.state):
            break
        seat = match.to_act()[0]
        legal_digests.append(_digest(ENGINE.legal_moves(match.state, seat)))
        move = match.bot_move(bot, seat, i)
        match.play(seat, move)
        moves.append([seat, move])
        if i % STATE_EVERY == 0 or i == length - 1:
            state_digests[str(i)] = hashlib.sha256(match.snapshot.to_json()).hexdigest()[:12]
    return {
        "players": players,
        "bot": bot_name,
        "seed_hex": seed_hex(seed),
        "options": options,
        "moves": moves,
        "legal_digests": legal_digests,
        "state_digests": state_digests,
    }


def main() -> None:
    """Record every game of ``GAMES`` and write the file."""
    games = [record(*game) for game in GAMES]
    OUT.write_text(json.dumps({"about": ABOUT, "games": games}, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()

"""The 2-player automa: a third worker colour moved by drawn tokens, inside ``apply``.

It is not a seat.  On its turns (from the action order board) the engine draws an
automa token; the token names an action board where the automa places (even round)
or removes (odd round) one of its workers.  If it cannot, another token is drawn.
If every token of the round is spent without success, the eight tokens are shuffled
again (a designed fallback; see the seeds README).  The automa never takes actions.
"""

from __future__ import annotations

from services.common.rng import Rng
from services.tea_rum.actions import AUTOMA, board_open, move_worker
from services.tea_rum.content import BOARD_IDS, CONTENT
from services.tea_rum.effects import Events, State


def fresh_tokens(rng: Rng) -> list[str]:
    """The eight automa tokens, face down and shuffled."""
    tokens = list(CONTENT.rules["automa"]["tokens"])
    rng.shuffle(tokens)
    return tokens


def automa_turn(state: State, rng: Rng, events: Events) -> None:
    """Draw tokens until one names a board the automa can use, then move its worker there."""
    automa = state["automa"]
    while True:
        if not automa["bag"]:
            automa["bag"] = fresh_tokens(rng)
            automa["drawn"] = []
            events.append({"automa_reshuffled": {}})
        token = automa["bag"].pop(0)
        automa["drawn"].append(token)
        board = BOARD_IDS.index(token)
        usable = board_open(state, AUTOMA, board)
        events.append({"automa_token_drawn": {"board": token, "usable": usable}})
        if usable:
            move_worker(state, AUTOMA, board, events)
            return


def action_order(state: State) -> list[int]:
    """Who acts, turn by turn, in this round's action phase (``-1`` = the automa)."""
    n = state["n"]
    per = CONTENT.rules["workers_per_player"]
    if n != 2:
        return [(state["first"] + i) % n for i in range(n)] * per
    side = "order_side_a" if state["round"] % 2 == 1 else "order_side_b"
    labels = {"A": state["label_a"], "B": 1 - state["label_a"], "automa": AUTOMA}
    return [labels[x] for x in CONTENT.rules["automa"][side]]

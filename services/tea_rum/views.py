"""What a seat may see: the ``State`` view and redacted events.

Hidden: VP in a closed chest (owner only), the secret end-game exchange (owner only,
until the game is over), the captain and contract decks, the undrawn automa tokens,
face-down victory type cards.  Their counts are public.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from services.tea_rum import actions, trade
from services.tea_rum.content import BOARD_IDS, CONTENT, WISH_SYMBOLS
from services.tea_rum.effects import State, Task
from services.tea_rum.players import Player, capacity, expansion_cost, overflowing, wish_totals
from services.tea_rum.trade import counts

View = dict[str, Any]


def _cost(cost: dict[str, int]) -> dict[str, int]:
    return {"coins": int(cost.get("coins", 0)), **counts(cost)}


def _options(options: list[Any]) -> list[dict[str, Any]]:
    return [{"gains": opt} for opt in options]


def _player(state: State, p: Player, seat: int | None) -> dict[str, Any]:
    over = state["phase"] == "over"
    own = seat == p["seat"]
    hidden = p["chest"] and not own and not over
    secret_exchange = state["phase"] == "exchange" and not own
    # Others see money and VP as they stood before the secret exchange.
    rate = CONTENT.rules["end_game_exchange"]
    swapped = p["exchanged"] if secret_exchange else {"blue": 0, "red": 0}
    workers = sum(b["workers"].count(p["seat"]) for b in state["boards"])
    label = ""
    if state["n"] == 2:
        label = "A" if p["seat"] == state["label_a"] else "B"
    return {
        "seat": p["seat"],
        "label": label,
        "money": p["money"] + rate["coins"] * (swapped["blue"] + swapped["red"]),
        "population": p["population"],
        "reputation": p["reputation"],
        "chest": p["chest"],
        "vp_hidden": hidden,
        "blue_vp": 0 if hidden else p["blue"] - rate["vp"] * swapped["blue"],
        "red_vp": 0 if hidden else p["red"] - rate["vp"] * swapped["red"],
        "warehouse": counts(p["res"]),
        "warehouse_capacity": capacity(p),
        "expansion_tokens": [
            {"token": i, "cost": expansion_cost(i), "bought": bought} for i, bought in enumerate(p["expansions"])
        ],
        "buildings": list(p["buildings"]),
        "captains": [{"captain": c["id"], "face_up": c["face_up"]} for c in p["captains"]],
        "contracts": list(p["contracts"]),
        "allegiance": p["allegiance"],
        "allegiance_fulfilled": p["allegiance_done"],
        "workers_on_boards": workers,
        "endowment": p["endowment"],
        "ships_passed": p["ships_passed"],
        "final_done": p["final_done"],
        "exchange_done": p["exchange_done"] if (own or over) else False,
        "exchanged_blue": p["exchanged"]["blue"] if (own or over) else 0,
        "exchanged_red": p["exchanged"]["red"] if (own or over) else 0,
        "wishes": wish_totals(p),
        "queue": [_queued(task) for task in p["pending"]] if (own or over) else [],
    }


def _queued(task: Task) -> dict[str, Any]:
    """A queue entry as the ``QueuedTask`` message (every field, as the proto round trip fills them)."""
    out: dict[str, Any] = {
        "kind": task["task"],
        "options": list(task.get("options", [])),
        "discount": int(task.get("discount", 0)),
        "sell": counts(task.get("sell", {})),
        "buy": counts(task.get("buy", {})),
        "sell_plate": task.get("sell_plate", ""),
        "buy_plate": task.get("buy_plate", ""),
        "from_row": bool(task.get("from_row", False)),
    }
    if "gain" in task:
        out["gain"] = task["gain"]
    return out


def _boards(state: State) -> list[dict[str, Any]]:
    out = []
    for b, board_id in enumerate(BOARD_IDS):
        board = state["boards"][b]
        rows = []
        for row in range(1, len(board["tiles"]) + 1):
            options = actions.row_options(state, b, row)
            rows.append({"row": row, "tile": board["tiles"][row - 1], "options": _options(options),
                         "blank": not options})
        out.append({
            "board": board_id,
            "fountain": CONTENT.boards[b]["fountain"],
            "rows": rows,
            "alternative": CONTENT.boards[b]["alternative"],
            "workers": list(board["workers"]),
            "capacity": actions.capacity(state),
            "current_row": actions.worker_row(state, b),
        })
    return out


# Card faces never change: each is shaped once and shared by every view (like the effect lists in them).
@cache
def _captain_card(cid: int) -> dict[str, Any]:
    card = CONTENT.captains[cid]
    return {
        "captain": cid,
        "round": card["round"],
        "cost": _cost(card["cost"]),
        "instant": card["instant"],
        "cannons": card["cannons"],
        "reward": card["reward"],
        "wishes": _wishes(card["wish"]),
    }


def _wishes(wish: dict[str, int]) -> dict[str, int]:
    return {s: int(wish.get(s, 0)) for s in WISH_SYMBOLS}


def _building(bid: str, copies: int) -> dict[str, Any]:
    return {**_building_card(bid), "copies": copies}


@cache
def _building_card(bid: str) -> dict[str, Any]:
    card = CONTENT.buildings[bid]
    return {
        "building": bid,
        "name": card["name"],
        "colour": card["colour"],
        "cost": _cost(card["cost"]),
        "vp": card["vp"],
        "instant": card["instant"],
        "continuous": dict(card["continuous"]),
        "wishes": _wishes(card["wish"]),
    }


def _contracts(state: State) -> list[dict[str, Any]]:
    bonuses = CONTENT.rules["contract_spaces"][actions.board_key(state)]
    out = []
    for space, cid in enumerate(state["contracts"]):
        card = CONTENT.contracts.get(cid, {"cost": {}, "blue": 0, "red": 0})
        out.append({"space": space, "contract": cid, "cost": _cost(card["cost"]), "blue": card["blue"],
                    "red": card["red"], "bonus": bonuses[space]})
    return out


def _allegiances(state: State) -> list[dict[str, Any]]:
    out = []
    for slot in state["allegiances"]:
        card = CONTENT.allegiances[slot["id"]]
        cond = card["condition"]
        out.append({
            "allegiance": slot["id"],
            "taken_by": slot["taken_by"],
            "red": card["red"],
            "requirements": {k: int(v) for k, v in cond.items() if k != "pay"},
            "payment": _cost(cond.get("pay", {})),
        })
    return out


def _rounds(state: State) -> list[dict[str, Any]]:
    out = []
    for i, rnd in enumerate(state["rounds"]):
        reward = CONTENT.wish_rewards[i + 1]
        revealed = i < len(state["victory_cards"])
        out.append({
            "round": i + 1,
            "wish": rnd["wish"],
            "symbols": list(CONTENT.wishes[rnd["wish"]]["symbols"]),
            "reward_colour": rnd["side"],
            "first_reward": reward["first"],
            "second_reward": reward["second"],
            "victory_type": state["victory_cards"][i] if revealed else "",
        })
    return out


def _decision(state: State, seat: int | None) -> dict[str, Any] | None:
    """The decision awaited now, as ``seat`` may see it (None when nobody decides)."""
    if state["phase"] == "over":
        return None
    if state["phase"] == "exchange":
        return _exchange_decision(state, seat)
    actor = state["actor"]
    if actor < 0:
        return None
    p = state["players"][actor]
    out: dict[str, Any] = {"seat": actor, "queued": len(p["pending"])}
    if overflowing(p):
        return {**out, "kind": "overflow"}
    if p["pending"]:
        return _task_decision(out, p["pending"][0])
    out["kind"] = _phase_decision_kind(state)
    return out


def _exchange_decision(state: State, seat: int | None) -> dict[str, Any] | None:
    """The secret end-game exchange, shown only to a seat still exchanging."""
    # Everyone exchanges at once and in secret, so a seat sees only its own decision.
    if seat is None or state["players"][seat]["exchange_done"]:
        return None
    return {"seat": seat, "kind": "exchange"}


def _task_decision(out: dict[str, Any], task: Task) -> dict[str, Any]:
    """The task at the head of the actor's queue: options, discount or the trade scale."""
    kind = task["task"]
    out["kind"] = kind
    if kind == "choose":
        out["options"] = task["options"]
    if kind in ("build", "captain"):
        out["discount"] = task["discount"]
    if kind == "trade":
        out["trade"] = _trade_scale(task)
    return out


def _trade_scale(task: Task) -> dict[str, Any]:
    """Both sides of the trade scale, their plates and values, and the coins to balance them."""
    return {
        "sell": counts(task["sell"]),
        "buy": counts(task["buy"]),
        "sell_plate": task["sell_plate"],
        "buy_plate": task["buy_plate"],
        "sell_value": trade.sell_value(task),
        "buy_value": trade.buy_value(task),
        "balance": trade.balance(task),
        "from_row": bool(task.get("from_row", False)),
    }


def _phase_decision_kind(state: State) -> str:
    """What the actor decides when no task is queued: set by the phase and the action stage."""
    phase = state["phase"]
    if phase == "actions":
        return "worker" if state["stage"] == "choose" else "after_action"
    if phase == "ships":
        return "ship"
    return "final_captains" if state["stage"] == "captains" else "final_allegiance"


def view(state: State, seat: int | None, to_act: list[int]) -> View:
    """The proto-JSON ``State`` as ``seat`` (None = spectator) may see it."""
    out: View = {
        "round": state["round"],
        "phase": state["phase"],
        "num_players": state["n"],
        "first_player": state["first"],
        "actor": state["actor"],
        "to_act": to_act,
        "players": [_player(state, p, seat) for p in state["players"]],
        "action_boards": _boards(state),
        "ships": [
            {"ship": s["id"], "cost": CONTENT.ships[s["id"]]["cost"],
             "rows": _options(CONTENT.ships[s["id"]]["rows"]), "taken": s["taken"]}
            for s in state["ships"]
        ],
        "contracts": _contracts(state),
        "contract_deck_count": len(state["contract_deck"]),
        "allegiances": _allegiances(state),
        "captains": [_captain_card(c) for c in state["captains"]],
        "captain_deck_count": len(state["captain_deck"]),
        "buildings": [_building(b, n) for b, n in state["buildings"].items()],
        "removed_buildings": [b for b in CONTENT.building_order if b not in state["buildings"]],
        "rounds": _rounds(state),
        "supply": counts(state["supply"]),
        "action_order": list(state["order"]),
        "action_turn": state["turn"],
        "stage": state["stage"],
        "ship_turn": state["ship_turn"],
    }
    if state["n"] == 2:
        out["automa"] = {
            "tokens_left": len(state["automa"]["bag"]),
            "drawn": list(state["automa"]["drawn"]),
            "victory_cards_face_down": len(state["victory_hidden"]),
        }
    decision = _decision(state, seat)
    if decision is not None:
        out["decision"] = decision
    if state["final"] is not None:
        out["final"] = state["final"]
    return out


def event_view(event: dict[str, Any], seat: int | None) -> dict[str, Any] | None:
    """``event`` as ``seat`` may see it (None hides it)."""
    kind = next(iter(event))
    body = event[kind]
    owner = body.get("seat") if isinstance(body, dict) else None
    if seat is not None and seat == owner:
        return event
    if kind == "vp_exchanged":
        return None
    if kind in ("vp_gained", "option_chosen", "contract_fulfilled") and body.get("secret"):
        if kind == "option_chosen":
            return None
        redacted = dict(body)
        if kind == "vp_gained":
            redacted["amount"] = 0
        redacted["colour"] = ""
        return {kind: redacted}
    return event


__all__ = ["event_view", "view"]

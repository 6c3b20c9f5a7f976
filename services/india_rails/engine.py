"""India Rails rules engine: turn order, building, operations, events and the end of the game."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from services.common.engine import (
    BadConfig,
    Bot,
    Engine,
    Event,
    GameConfig,
    IllegalMove,
    Move,
    Result,
    Seen,
    State,
    View,
)
from services.common.rng import Rng
from services.india_rails import cards as deck
from services.india_rails import facts as india_rails_facts
from services.india_rails import hidden
from services.india_rails import operations as ops
from services.india_rails import track as tracks
from services.india_rails.content import (
    BOARD,
    COSTS,
    DEMAND_CARDS,
    EVENT_CARDS,
    LOADS,
    LOCO_CARDS,
    LOCOS,
    MAJOR_MILEPOSTS,
    demand_card_json,
    event_card_json,
)

OPTION_DEFAULTS: dict[str, Any] = {
    "fast_trains": False,
    "fast_game": False,
    "fast_game_start": False,
    "fast_game_discard_initial_events": False,
    "fast_game_no_tax": False,
    "fast_game_five_cards": False,
    "mercy_borrowing": False,
    "mercy_late_fees": False,
    "mercy_backtracking": False,
    "crossgrading": False,
    "open_contracts": False,
    "field_warehousing": False,
    "cost_to_move": False,
    "cost_to_load": False,
    "reshuffle_on_tax": False,
    "track_trading": False,
    "additional_trains": False,
    "four_card_hands": False,
    "time_limit_rounds": 0,
    "stall_rounds": 25,
    "round_limit": 400,
    "stall_ending": "time_limit",
}
STALL_ENDINGS = ("time_limit", "no_winner")
# Moves that change the position for good: money earned, track laid, a better train.  A track purchase or
# swap only moves track and cash between players, so on its own it is no progress (seeds README).
PROGRESS_KINDS = frozenset({"deliver", "build_track", "upgrade_train", "crossgrade_train"})
FAST_GAME_PARTS = ("fast_game_start", "fast_game_discard_initial_events", "fast_game_no_tax", "fast_game_five_cards")
UPGRADE_COST = int(LOCOS["upgrade_cost"])
CROSSGRADE_COST = int(LOCOS["crossgrade_cost"])
LOAN_LIMIT = int(COSTS["loan_limit"])
MAX_OFFERS_PER_TURN = 3
WAREHOUSE_TURNS = 4
MAP_ID = "india-rails-lattice-v1"


def loan_room(player: dict[str, Any]) -> int:
    """How much more a player may borrow: 20M outstanding at most (the debt is twice the loans)."""
    return LOAN_LIMIT - int(player["debt"]) // 2


def fresh_turn() -> dict[str, Any]:
    """An untouched record of what the current turn has done."""
    return {"spent": 0, "major_segments": 0, "upgraded": False, "crossgraded": False, "acted": False,
            "fees_paid": [], "moved_own": False, "dropped": [], "bought": False, "offers": 0}


def _train(loco: str) -> dict[str, Any]:
    return {"loco": loco, "at": -1, "prev": -1, "loads": [], "left": 0}


def _kind(move: Move) -> str:
    return next(iter(move)) if isinstance(move, dict) and len(move) == 1 else ""


# ---- backtracking (mercy rule) ---------------------------------------------------------------


def _backtrack_fee_owner(owner: dict[int, int], seat: int, train: dict[str, Any]) -> int | None:
    """The opponent whose segment the train stands on (the one it last ran over), owed a use fee."""
    holder = owner.get(BOARD.edge_between(train["prev"], train["at"]))
    return holder if holder is not None and holder != seat else None


def _may_backtrack(ctx: ops.OperationsContext, train: dict[str, Any]) -> bool:
    """Backtracking on an opponent's segment needs the cash for the fee, as any use of their track does."""
    if _backtrack_fee_owner(ctx.owner, ctx.seat, train) is None:
        return True
    return ctx.player["cash"] >= ops.TRACK_FEE or bool(ctx.options["mercy_late_fees"])


# ---- loco cards --------------------------------------------------------------------------------


def loco_cards_left(state: State) -> dict[str, int]:
    """Loco cards of each type still with the bank (the 12 cards less those on the players' trains).

    The additional-trains variant deals second trains even beyond the cards, so a count may be
    below zero; an upgrade needs a card of the new type in the bank either way.
    """
    left = dict(LOCO_CARDS)
    for player in state["players"]:
        for train in player["trains"]:
            left[train["loco"]] -= 1
    return left


# ---- track trading (challenge game) ----------------------------------------------------------


def _may_offer_track(state: State) -> bool:
    """Offers are a turn's alternative to building or upgrading, and limited to three a turn."""
    turn = state["turn"]
    if not state["options"]["track_trading"] or turn["spent"] or turn["upgraded"] or turn["crossgraded"]:
        return False
    return turn["offers"] < MAX_OFFERS_PER_TURN


def _segments_by_milepost(track: list[int]) -> dict[int, list[int]]:
    """Own segments at each milepost: what a swap may give for a segment touching it."""
    by_node: dict[int, list[int]] = {}
    for eid in track:
        for m in BOARD.edges[eid]:
            by_node.setdefault(m, []).append(eid)
    return by_node


def _purchase_offers(seller: int, eid: int, cash: int) -> list[Move]:
    """Cash offers for a segment: the buyer names any whole number of millions he holds."""
    a, b = BOARD.edges[eid]
    return [{"offer_track": {"seller": seller, "a": a, "b": b, "price": amount, "give_a": -1, "give_b": -1}}
            for amount in range(1, cash + 1)]


def _swap_offers(seller: int, eid: int, own_by_node: dict[int, list[int]]) -> list[Move]:
    """Even swaps: any own segment sharing a milepost with the wanted one."""
    a, b = BOARD.edges[eid]
    moves: list[Move] = []
    for give in sorted(set(own_by_node.get(a, []) + own_by_node.get(b, []))):
        ga, gb = BOARD.edges[give]
        moves.append({"offer_track": {"seller": seller, "a": a, "b": b, "price": 0, "give_a": ga, "give_b": gb}})
    return moves


# ---- explaining refusals -------------------------------------------------------------------

_BUILD_PHASES = ("build", "initial_build")
_MOVE_PHASES: dict[str, tuple[str, ...]] = {
    "build_track": _BUILD_PHASES, "upgrade_train": _BUILD_PHASES, "crossgrade_train": _BUILD_PHASES,
    "end_turn": _BUILD_PHASES, "offer_track": _BUILD_PHASES, "move_train": ("operations",),
    "place_train": ("operations",), "pick_up": ("operations",), "drop_load": ("operations",),
    "deliver": ("operations",), "discard_hand": ("operations",), "end_operations": ("operations",),
    "backtrack": ("operations",), "discard_demand": ("initial_discard",), "answer_offer": ("offer",),
    "borrow": ("operations", *_BUILD_PHASES), "repay_loan": ("operations", *_BUILD_PHASES),
}


def _check_option_type(key: str, default: Any, value: Any) -> None:
    """An option keeps the type of its default (flags, counts, names)."""
    if isinstance(default, bool) and not isinstance(value, bool):
        raise BadConfig(f"option {key} must be true or false", code="bad_option_type")
    if isinstance(default, str) and not isinstance(value, str):
        raise BadConfig(f"option {key} must be a string", code="bad_option_type")
    is_count = isinstance(default, int) and not isinstance(default, bool)
    if is_count and (isinstance(value, bool) or not isinstance(value, int)):
        raise BadConfig(f"option {key} must be an integer", code="bad_option_type")


def _unplaced(player: dict[str, Any]) -> bool:
    """Whether a train of the player has not been put on the board yet (his first turn to run)."""
    return any(train["at"] < 0 for train in player["trains"])


def _timing_refusal(state: State, kind: str) -> IllegalMove | None:
    """A derailment's load choice comes before anything else, and each kind of move has its phases."""
    if state["pending"] and kind != "choose_lost_load":
        return IllegalMove("choose which load the derailment costs first", code="choice_pending")
    if kind in _MOVE_PHASES and state["phase"] not in _MOVE_PHASES[kind]:
        return IllegalMove(f"{kind} is not allowed in the {state['phase']} phase", code="wrong_phase")
    return _placement_refusal(state, kind)


def _placement_refusal(state: State, kind: str) -> IllegalMove | None:
    """Trains are placed at the start of the first turn they run, and never again."""
    if state["phase"] != "operations":
        return None
    unplaced = _unplaced(state["players"][state["current"]])
    if kind == "place_train" and not unplaced:
        return IllegalMove("a train is placed only at the start of the game", code="train_placed")
    if unplaced and kind not in ("place_train", "discard_hand"):
        return IllegalMove("place the train in a city first", code="place_train_first")
    return None


def _rule_refusal(state: State, seat: int, kind: str, body: dict[str, Any]) -> IllegalMove | None:
    """The rule a move of this kind breaks, if one can be named; bad fields make the move malformed."""
    explain = _RULE_REFUSALS.get(kind)
    if explain is None:
        return None
    try:
        return explain(state, seat, body)
    except (KeyError, TypeError, ValueError, IndexError):
        return IllegalMove("the move's fields are missing or invalid", code="malformed_move")


def _build_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """Building is the turn's alternative to an upgrade or a track purchase, then the building rules apply."""
    if state["turn"]["upgraded"]:
        return IllegalMove("an upgrade uses the whole building budget", code="over_budget")
    if state["turn"]["bought"]:
        return IllegalMove("a track purchase replaces building this turn", code="bought_track")
    ctx = tracks.BuildContext(state, seat)
    problem = tracks.build_problem(ctx, int(body["from_milepost"]), int(body["to_milepost"]))
    return IllegalMove(problem[1], code=problem[0]) if problem else None


def _move_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """The movement rules for one step of a train."""
    ctx = ops.OperationsContext(state, seat)
    train = state["players"][seat]["trains"][int(body["train"])]
    problem = ops.step_problem(ctx, train, int(body["to_milepost"]))
    return IllegalMove(problem[1], code=problem[0]) if problem else None


def _upgrade_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """An upgrade is paid in cash and replaces the turn's building."""
    if state["players"][seat]["cash"] < UPGRADE_COST:
        return IllegalMove("an upgrade costs 20M and there is no credit", code="no_credit")
    if state["turn"]["spent"]:
        return IllegalMove("upgrade instead of building, not after it", code="upgrade_after_build")
    return _loco_card_refusal(state, body)


def _loco_card_refusal(state: State, body: dict[str, Any]) -> IllegalMove | None:
    """Only 12 loco cards exist: a new type needs one of its cards with the bank."""
    if loco_cards_left(state).get(str(body["loco"]), 0) <= 0:
        return IllegalMove(f"no {body['loco']} loco card is left with the bank", code="no_loco_card")
    return None


def _discard_hand_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """Discarding the hand takes the whole turn."""
    if state["turn"]["acted"]:
        return IllegalMove("the hand may only be discarded instead of a turn", code="turn_started")
    return None


def _delivery_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """Deliveries match a carried load to a demand in this city; one reason covers every mismatch."""
    return IllegalMove("no matching demand for that load in this city", code="no_demand_here")


def _pickup_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """Pick-ups depend on the city's goods, the tray, room on the train and strikes; one reason covers them all."""
    return IllegalMove("that load cannot be picked up here now", code="load_unavailable")


def _loan_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """Loans (mercy rule) stay within 20M outstanding and are offered only when cash is short for an action."""
    if not state["options"]["mercy_borrowing"]:
        return IllegalMove("borrowing is a mercy rule not used in this game", code="no_borrowing")
    if not 1 <= int(body["amount"]) <= loan_room(state["players"][seat]):
        return IllegalMove("loans are whole millions, at most 20M outstanding", code="loan_limit")
    return IllegalMove("a loan is taken only when the cash is short for a move", code="loan_not_needed")


_RULE_REFUSALS: dict[str, Callable[[State, int, dict[str, Any]], IllegalMove | None]] = {
    "borrow": _loan_refusal,
    "build_track": _build_refusal,
    "move_train": _move_refusal,
    "upgrade_train": _upgrade_refusal,
    "crossgrade_train": lambda state, seat, body: _loco_card_refusal(state, body),
    "discard_hand": _discard_hand_refusal,
    "deliver": _delivery_refusal,
    "pick_up": _pickup_refusal,
}


class IndiaRailsEngine(Engine):
    """The complete India Rails game (Empire Builder rules on a generated map of the subcontinent)."""

    game_type: ClassVar[str] = "india_rails"
    name: ClassVar[str] = "India Rails"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 6

    # ---- configuration ------------------------------------------------------

    def default_options(self) -> dict[str, Any]:
        """Every variant off, no time limit."""
        return dict(OPTION_DEFAULTS)

    def validate_options(self, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Check types and ranges; ``fast_game`` switches on its four parts."""
        merged = super().validate_options(players, options)
        for key, default in OPTION_DEFAULTS.items():
            _check_option_type(key, default, merged[key])
        if not 0 <= merged["time_limit_rounds"] <= 1000:
            raise BadConfig("time_limit_rounds must be between 0 and 1000", code="bad_time_limit")
        for key in ("stall_rounds", "round_limit"):
            if not 0 <= merged[key] <= 1000:
                raise BadConfig(f"{key} must be between 0 and 1000", code=f"bad_{key}")
        if merged["stall_ending"] not in STALL_ENDINGS:
            raise BadConfig(f"stall_ending must be one of {', '.join(STALL_ENDINGS)}", code="bad_stall_ending")
        if merged["fast_game"]:
            for part in FAST_GAME_PARTS:
                merged[part] = True
        return merged

    def heuristic_bot(self) -> Bot:
        """A fresh heuristic bot (services.bots.roster adds the random bot and the search levels)."""
        from services.india_rails.bots import HeuristicBot

        return HeuristicBot()

    # ---- setup ----------------------------------------------------------------

    def setup(self, config: GameConfig, rng: Rng) -> State:
        """Shuffle the deck, deal demand cards (setting events aside) and pick the first player."""
        options = dict(OPTION_DEFAULTS)
        options.update(config.options)
        n = config.players
        tax_cards = [c for c, spec in EVENT_CARDS.items() if spec["kind"] == "tax"]
        removed = tax_cards if options["fast_game_no_tax"] else []
        events = [c for c in EVENT_CARDS if c not in removed]
        deck_cards = sorted(DEMAND_CARDS) + sorted(events)
        rng.shuffle(deck_cards)
        start_cash = int(COSTS["fast_game_cash"] if options["fast_game_start"] else COSTS["starting_cash"])
        locos = ["freight", "fast_freight"] if options["additional_trains"] else ["freight"]
        players = [
            {"cash": start_cash, "debt": 0, "owed": [], "trains": [_train(loco) for loco in locos],
             "hand": [], "track": [], "turns": 0, "lost": 0, "declared": False}
            for _ in range(n)
        ]
        state: State = {
            "options": options, "players": players, "deck": deck_cards, "discard": [], "removed": list(removed),
            "tray": dict(LOADS), "active": [], "reserved": [], "pending": [], "abort_turn": False,
            "open_contracts": [], "warehouse": [], "offer": None, "cash_public": False,
            "win_cash": int(COSTS["winning_cash"]), "over": False, "winners": [], "finish_reason": "",
            "ranking": [], "round": 0, "building_round": 0, "last_progress": 0,
            "initial_rounds": 3 if options["fast_game_start"] else 2, "turn": fresh_turn(),
        }
        self._deal(state, rng)
        first = self._first_player(state)
        state["first"] = first
        state["order"] = [(first + i) % n for i in range(n)]
        state["pos"] = 0
        state["current"] = first
        state["phase"] = "initial_build"
        # Lets a bot shared between games keep its notes apart; drawn last so the deal is unaffected.
        state["game_key"] = rng.randbelow(1 << 30)
        return state

    def _deal(self, state: State, rng: Rng) -> None:
        options = state["options"]
        size = 5 if options["fast_game_five_cards"] else deck.hand_size(state)
        set_aside: list[int] = []
        for player in state["players"]:
            while len(player["hand"]) < size:
                card = int(state["deck"].pop())
                if deck.is_event(card):
                    set_aside.append(card)
                else:
                    player["hand"].append(card)
        if options["fast_game_discard_initial_events"]:
            state["removed"].extend(set_aside)
        else:
            state["deck"].extend(set_aside)
            rng.shuffle(state["deck"])

    @staticmethod
    def _first_player(state: State) -> int:
        """Largest single payout goes first; ties look at the next largest, then the lower seat."""

        def key(seat: int) -> tuple[list[int], int]:
            payouts = sorted((d["payout"] for c in state["players"][seat]["hand"]
                              for d in DEMAND_CARDS[c]["demands"]), reverse=True)
            return payouts, -seat

        return max(range(len(state["players"])), key=key)

    # ---- whose decision -----------------------------------------------------------

    def to_act(self, state: State) -> list[int]:
        """The current player, or the seat owing a choice (lost load, track offer)."""
        if state["over"]:
            return []
        if state["pending"]:
            return [state["pending"][0]["seat"]]
        if state["phase"] == "offer":
            return [state["offer"]["seller"]]
        return [state["current"]]

    # ---- legal moves ------------------------------------------------------------

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every atomic decision ``seat`` may take now."""
        if seat not in self.to_act(state):
            return []
        if state["pending"]:
            choice = state["pending"][0]
            train = state["players"][seat]["trains"][choice["train"]]
            return [{"choose_lost_load": {"train": choice["train"], "slot": s}} for s in ops.distinct_slots(train)]
        phase = state["phase"]
        if phase == "offer":
            return [{"answer_offer": {"accept": True}}, {"answer_offer": {"accept": False}}]
        if phase == "initial_discard":
            return [{"discard_demand": {"card": c}} for c in state["players"][seat]["hand"]]
        if phase == "operations":
            return self._operation_moves(state, seat)
        return self._build_moves(state, seat)

    def _operation_moves(self, state: State, seat: int) -> list[Move]:
        ctx = ops.OperationsContext(state, seat)
        moves: list[Move] = []
        if _unplaced(ctx.player):
            # A train starts the game in a city of the player's choice: placing it opens his first turn.
            for t, train in enumerate(ctx.player["trains"]):
                moves += ops.placement_moves(ctx, t, train)
            return moves if state["turn"]["acted"] else [*moves, {"discard_hand": {}}]
        for t, train in enumerate(ctx.player["trains"]):
            moves += ops.delivery_moves(ctx, t, train)
            moves += ops.pickup_moves(ctx, t, train)
            moves += ops.drop_moves(ctx, t, train)
            moves += ops.movement_moves(ctx, t, train)
        turn = state["turn"]
        if not turn["acted"]:
            moves.append({"discard_hand": {}})
            if state["options"]["mercy_backtracking"]:
                moves += [{"backtrack": {"train": t}} for t, train in enumerate(ctx.player["trains"])
                          if train["at"] >= 0 and train["prev"] >= 0 and _may_backtrack(ctx, train)]
        moves += self._loan_moves(state, seat)
        moves.append({"end_operations": {}})
        return moves

    def _build_moves(self, state: State, seat: int) -> list[Move]:
        turn = state["turn"]
        moves: list[Move] = []
        if not turn["upgraded"] and not turn["bought"]:
            ctx = tracks.BuildContext(state, seat)
            moves += [{"build_track": {"from_milepost": a, "to_milepost": b}} for a, b in tracks.build_options(ctx)]
        moves += self._upgrade_moves(state, seat)
        moves += self._offer_moves(state, seat)
        moves += self._loan_moves(state, seat)
        moves.append({"end_turn": {}})
        return moves

    def _upgrade_moves(self, state: State, seat: int) -> list[Move]:
        turn = state["turn"]
        player = state["players"][seat]
        moves: list[Move] = []
        can_upgrade = turn["spent"] == 0 and not turn["crossgraded"] and not turn["bought"]
        can_cross = (state["options"]["crossgrading"] and not turn["upgraded"] and not turn["crossgraded"]
                     and not turn["bought"] and turn["spent"] <= tracks.BUDGET - CROSSGRADE_COST)
        bank = loco_cards_left(state)
        for t, train in enumerate(player["trains"]):
            if can_upgrade and player["cash"] >= UPGRADE_COST:
                for loco in LOCOS["upgrades"].get(train["loco"], []):
                    if bank[loco] > 0:
                        moves.append({"upgrade_train": {"train": t, "loco": loco}})
            if can_cross and player["cash"] >= CROSSGRADE_COST:
                for loco in LOCOS["crossgrades"].get(train["loco"], []):
                    if bank[loco] > 0:
                        moves.append({"crossgrade_train": {"train": t, "loco": loco}})
        return moves

    def _loan_moves(self, state: State, seat: int) -> list[Move]:
        """Borrowing (mercy rule): a loan when the cash is short for a step, a segment or an upgrade; repaying."""
        if not state["options"]["mercy_borrowing"]:
            return []
        player = state["players"][seat]
        moves: list[Move] = []
        if player["debt"] and player["cash"] >= player["debt"]:
            moves.append({"repay_loan": {}})
        room = loan_room(player)
        if room > 0 and self._loan_needed(state, seat, room):
            moves += [{"borrow": {"amount": a}} for a in range(1, room + 1)]
        return moves

    def _loan_needed(self, state: State, seat: int, room: int) -> bool:
        """Whether the largest loan would make a step, a segment or an upgrade legal that is not legal now."""
        player = state["players"][seat]
        before = self._cash_options(state, seat)
        player["cash"] += room
        try:
            after = self._cash_options(state, seat)
        finally:
            player["cash"] -= room
        return after > before

    def _cash_options(self, state: State, seat: int) -> int:
        """How many moves of this phase that cost money are legal (track purchases aside: the buyer prices them)."""
        if state["phase"] == "operations":
            ctx = ops.OperationsContext(state, seat)
            return sum(len(ops.movement_moves(ctx, t, train)) for t, train in enumerate(ctx.player["trains"]))
        turn = state["turn"]
        count = len(self._upgrade_moves(state, seat))
        if not turn["upgraded"] and not turn["bought"]:
            count += len(tracks.build_options(tracks.BuildContext(state, seat)))
        return count

    def _offer_moves(self, state: State, seat: int) -> list[Move]:
        """Track purchases and swaps (challenge game): segments of others touching the buyer's reach."""
        if not _may_offer_track(state):
            return []
        player = state["players"][seat]
        reach = tracks.network(player["track"]) | MAJOR_MILEPOSTS
        own_by_node = _segments_by_milepost(player["track"])
        moves: list[Move] = []
        for seller, other in enumerate(state["players"]):
            if seller == seat:
                continue
            for eid in sorted(other["track"]):
                a, b = BOARD.edges[eid]
                if a in reach or b in reach:
                    moves += _purchase_offers(seller, eid, player["cash"])
                    moves += _swap_offers(seller, eid, own_by_node)
        return moves

    # ---- applying moves ---------------------------------------------------------------

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Apply one legal atomic move."""
        events: list[Event] = []
        kind = _kind(move)
        body = move[kind]
        handler = getattr(self, f"_do_{kind}")
        if kind in PROGRESS_KINDS:
            state["last_progress"] = state["round"]
        cash = [p["cash"] for p in state["players"]]
        handler(state, seat, body, rng, events)
        self._settle(state, rng, events, [s for s, p in enumerate(state["players"])
                                          if p["cash"] > cash[s] and not (kind == "borrow" and s == seat)])
        return state, events

    def _settle(self, state: State, rng: Rng, events: list[Event], earned: list[int]) -> None:
        """After a step: repay the loans of those who earned money, then end a turn an event cut short.

        A loan is repaid (double) as soon as income — a payoff, a fee, a sale — brings the cash to the
        debt; the loan's own money never repays it.
        """
        for seat in earned:
            self._repay(state, seat, state["players"][seat], events)
        if state["pending"] or state["over"]:
            return
        if state["abort_turn"]:
            state["abort_turn"] = False
            self._finish_turn(state, rng, events)

    # operations ----------------------------------------------------------------

    def _do_place_train(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        train = state["players"][seat]["trains"][body["train"]]
        train["at"] = body["milepost"]
        train["prev"] = -1
        state["turn"]["acted"] = True
        events.append({"train_placed": {"seat": seat, "train": body["train"], "milepost": body["milepost"]}})

    def _do_move_train(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        player = state["players"][seat]
        train = player["trains"][body["train"]]
        turn = state["turn"]
        start, to = train["at"], body["to_milepost"]
        eid = BOARD.edge_between(start, to)
        owner = None if eid in BOARD.red_area else tracks.owners(state).get(eid)
        if owner is not None and owner != seat:
            if owner not in turn["fees_paid"]:
                self._pay_fee(state, seat, owner, events)
                turn["fees_paid"].append(owner)
        elif state["options"]["cost_to_move"] and not turn["moved_own"]:
            player["cash"] -= ops.MOVE_FEE
            turn["moved_own"] = True
            events.append({"fee_paid": {"payer": seat, "payee": -1, "amount": ops.MOVE_FEE, "deferred": False,
                                        "reason": "cost_to_move"}})
        train["prev"], train["at"] = start, to
        train["left"] -= 1
        turn["acted"] = True
        events.append({"train_moved": {"seat": seat, "train": body["train"], "from_milepost": start,
                                       "to_milepost": to, "movement_left": train["left"]}})

    def _pay_fee(self, state: State, payer: int, payee: int, events: list[Event]) -> None:
        player = state["players"][payer]
        if player["cash"] >= ops.TRACK_FEE:
            player["cash"] -= ops.TRACK_FEE
            state["players"][payee]["cash"] += ops.TRACK_FEE
            events.append({"fee_paid": {"payer": payer, "payee": payee, "amount": ops.TRACK_FEE, "deferred": False,
                                        "reason": "track_use"}})
            return
        player["owed"].append([payee, ops.TRACK_FEE])
        events.append({"fee_paid": {"payer": payer, "payee": payee, "amount": ops.TRACK_FEE, "deferred": True,
                                    "reason": "track_use"}})

    def _use_load_movement(self, state: State, train: dict[str, Any]) -> None:
        if state["options"]["cost_to_load"]:
            train["left"] -= 1

    def _do_pick_up(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        train = state["players"][seat]["trains"][body["train"]]
        at = train["at"]
        load = body["load"]
        if body["from_warehouse"]:
            stored = next(w for w in state["warehouse"] if w["at"] == at and w["load"] == load)
            state["warehouse"].remove(stored)
            carried = [load, stored["origin"]]
        else:
            state["tray"][load] -= 1
            origin = BOARD.cities[BOARD.city_at[at]].region if load == "Pilgrims" else ""
            carried = [load, origin]
        train["loads"].append(carried)
        self._use_load_movement(state, train)
        state["turn"]["acted"] = True
        events.append({"load_picked": {"seat": seat, "train": body["train"], "load": deck.load_json(carried),
                                       "milepost": at}})

    def _do_drop_load(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        player = state["players"][seat]
        train = player["trains"][body["train"]]
        load = train["loads"].pop(body["slot"])
        at = train["at"]
        warehoused = bool(state["options"]["field_warehousing"])
        if warehoused:
            state["warehouse"].append({"at": at, "load": load[0], "origin": load[1], "by": seat,
                                       "expires": player["turns"] + WAREHOUSE_TURNS + 1})
        else:
            deck.return_load(state, load)
        state["turn"]["dropped"].append([at, load[0]])
        self._use_load_movement(state, train)
        state["turn"]["acted"] = True
        events.append({"load_dropped": {"seat": seat, "train": body["train"], "load": deck.load_json(load),
                                        "milepost": at, "warehoused": warehoused}})

    def _do_deliver(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        player = state["players"][seat]
        train = player["trains"][body["train"]]
        load = train["loads"].pop(body["slot"])
        deck.return_load(state, load)
        card = body["card"]
        payout = int(DEMAND_CARDS[card]["demands"][body["demand"]]["payout"])
        player["cash"] += payout
        self._use_load_movement(state, train)
        state["turn"]["acted"] = True
        events.append({"load_delivered": {"seat": seat, "train": body["train"], "load": deck.load_json(load),
                                          "city": BOARD.city_at[train["at"]], "payout": payout, "card": card,
                                          "open_contract": body["open_contract"]}})
        self._pay_owed(state, seat, train["at"], events)
        if body["open_contract"]:
            state["open_contracts"].remove(card)
            state["discard"].append(card)
            return
        player["hand"].remove(card)
        state["discard"].append(card)
        deck.fill_hand(state, seat, rng, events)

    def _pay_owed(self, state: State, seat: int, at: int, events: list[Event]) -> None:
        """Late track fees (mercy rule) come out of a payoff earned on the creditor's track.

        The delivering train stands at ``at``; fees owed to an owner of a segment meeting that
        milepost are paid now, the others wait for a payoff on their owners' track.
        """
        player = state["players"][seat]
        owner = tracks.owners(state)
        here = {owner[eid] for _, eid in BOARD.adjacency[at] if eid in owner}
        keep = []
        for payee, amount in player["owed"]:
            if payee not in here or player["cash"] < amount:
                keep.append([payee, amount])
                continue
            player["cash"] -= amount
            state["players"][payee]["cash"] += amount
            events.append({"fee_paid": {"payer": seat, "payee": payee, "amount": amount, "deferred": False,
                                        "reason": "late_track_use"}})
        player["owed"] = keep

    def _do_discard_hand(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        player = state["players"][seat]
        old = list(player["hand"])
        player["hand"] = []
        to_open = bool(state["options"]["open_contracts"])
        for card in old:
            if to_open and len(state["open_contracts"]) < 4:
                state["open_contracts"].append(card)
            else:
                state["discard"].append(card)
        events.append({"hand_discarded": {"seat": seat, "cards": old, "to_open_contracts": to_open}})
        deck.fill_hand(state, seat, rng, events)
        state["abort_turn"] = True

    def _do_backtrack(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        train = state["players"][seat]["trains"][body["train"]]
        owner = _backtrack_fee_owner(tracks.owners(state), seat, train)
        if owner is not None:
            self._pay_fee(state, seat, owner, events)
        train["prev"] = -1
        state["abort_turn"] = True

    def _do_end_operations(self, state: State, seat: int, body: dict[str, Any], rng: Rng,
                           events: list[Event]) -> None:
        state["phase"] = "build"

    def _do_borrow(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        player = state["players"][seat]
        amount = body["amount"]
        player["cash"] += amount
        player["debt"] += 2 * amount
        events.append({"loan_taken": {"seat": seat, "amount": amount, "debt": player["debt"]}})

    def _do_repay_loan(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        self._repay(state, seat, state["players"][seat], events)

    def _repay(self, state: State, seat: int, player: dict[str, Any], events: list[Event]) -> None:
        if player["debt"] and player["cash"] >= player["debt"]:
            events.append({"loan_repaid": {"seat": seat, "amount": player["debt"]}})
            player["cash"] -= player["debt"]
            player["debt"] = 0

    def _do_choose_lost_load(self, state: State, seat: int, body: dict[str, Any], rng: Rng,
                             events: list[Event]) -> None:
        train = state["players"][seat]["trains"][body["train"]]
        lost = train["loads"].pop(body["slot"])
        deck.return_load(state, lost)
        state["pending"].pop(0)
        events.append({"load_lost": {"seat": seat, "train": body["train"], "load": deck.load_json(lost)}})

    # building ------------------------------------------------------------------

    def _do_build_track(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        start, end = body["from_milepost"], body["to_milepost"]
        eid = BOARD.edge_between(start, end)
        cost = BOARD.cost_into(eid, end)
        player = state["players"][seat]
        player["cash"] -= cost
        player["track"].append(eid)
        turn = state["turn"]
        turn["spent"] += cost
        if start in MAJOR_MILEPOSTS:
            turn["major_segments"] += 1
        state["reserved"] = [r for r in state["reserved"] if r["eid"] != eid]
        a, b = BOARD.edges[eid]
        events.append({"track_built": {"seat": seat, "segment": {"a": a, "b": b}, "cost": cost}})

    def _do_upgrade_train(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        player = state["players"][seat]
        player["cash"] -= UPGRADE_COST
        player["trains"][body["train"]]["loco"] = body["loco"]
        state["turn"]["spent"] = tracks.BUDGET
        state["turn"]["upgraded"] = True
        events.append({"train_upgraded": {"seat": seat, "train": body["train"], "loco": body["loco"],
                                          "cost": UPGRADE_COST}})

    def _do_crossgrade_train(self, state: State, seat: int, body: dict[str, Any], rng: Rng,
                             events: list[Event]) -> None:
        player = state["players"][seat]
        player["cash"] -= CROSSGRADE_COST
        player["trains"][body["train"]]["loco"] = body["loco"]
        state["turn"]["spent"] += CROSSGRADE_COST
        state["turn"]["crossgraded"] = True
        events.append({"train_upgraded": {"seat": seat, "train": body["train"], "loco": body["loco"],
                                          "cost": CROSSGRADE_COST}})

    def _do_offer_track(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        state["offer"] = dict(body)
        state["offer_phase"] = state["phase"]
        state["phase"] = "offer"
        state["turn"]["offers"] += 1

    def _do_answer_offer(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        offer = state["offer"]
        buyer = state["current"]  # offers are made in the buyer's own turn
        state["phase"] = state.pop("offer_phase")
        state["offer"] = None
        segment = {"a": offer["a"], "b": offer["b"]}
        given = {"a": offer["give_a"], "b": offer["give_b"]}
        accepted = bool(body["accept"])
        if accepted:
            take = BOARD.edge_between(offer["a"], offer["b"])
            players = state["players"]
            players[offer["seller"]]["track"].remove(take)
            players[buyer]["track"].append(take)
            if offer["give_a"] >= 0:
                give = BOARD.edge_between(offer["give_a"], offer["give_b"])
                players[buyer]["track"].remove(give)
                players[offer["seller"]]["track"].append(give)
            players[buyer]["cash"] -= offer["price"]
            players[offer["seller"]]["cash"] += offer["price"]
            state["turn"]["bought"] = True
        events.append({"track_sold": {"buyer": buyer, "seller": offer["seller"], "segment": segment,
                                      "price": offer["price"], "given": given, "accepted": accepted}})

    def _do_discard_demand(self, state: State, seat: int, body: dict[str, Any], rng: Rng,
                           events: list[Event]) -> None:
        player = state["players"][seat]
        player["hand"].remove(body["card"])
        state["discard"].append(body["card"])
        if len(player["hand"]) <= deck.hand_size(state):
            self._advance(state, rng, events)

    def _do_end_turn(self, state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
        self._finish_turn(state, rng, events)

    # ---- turn order -------------------------------------------------------------------

    def _finish_turn(self, state: State, rng: Rng, events: list[Event]) -> None:
        seat = state["current"]
        player = state["players"][seat]
        normal = state["phase"] in ("operations", "build") and not player["declared"]
        if normal and player["cash"] >= state["win_cash"] and tracks.connected_majors(player["track"]):
            player["declared"] = True
            events.append({"victory_declared": {"seat": seat}})
        events.append({"turn_ended": {"seat": seat}})
        self._close_turn(state, seat, events)
        self._advance(state, rng, events)

    def _close_turn(self, state: State, seat: int, events: list[Event]) -> None:
        """Bookkeeping at the end of any turn of ``seat`` (played or lost)."""
        player = state["players"][seat]
        player["turns"] += 1
        deck.end_events_of(state, seat, events)
        keep = []
        for stored in state["warehouse"]:
            if stored["by"] == seat and player["turns"] >= stored["expires"]:
                state["tray"][stored["load"]] += 1
            else:
                keep.append(stored)
        state["warehouse"] = keep
        state["reserved"] = [r for r in state["reserved"] if not (r["owner"] == seat and r["armed"])]

    def _advance(self, state: State, rng: Rng, events: list[Event]) -> None:
        n = len(state["players"])
        while not state["over"]:
            state["pos"] += 1
            if state["phase"] in ("initial_build", "initial_discard"):
                if state["pos"] >= n and not self._next_building_round(state, events):
                    return
            elif state["pos"] >= n:
                state["pos"] = 0
                state["round"] += 1
                if self._round_end(state, events):
                    return
            state["current"] = state["order"][state["pos"]]
            if self._begin_turn(state, events):
                return

    def _next_building_round(self, state: State, events: list[Event]) -> bool:
        """Switch to the next building round, the five-card discard, or the first normal round.

        The five-card discard comes after the first two building rounds (a third fast-game building
        round, if any, follows it).
        """
        state["pos"] = 0
        if state["phase"] == "initial_discard":
            self._after_building_round(state)
            return True
        state["building_round"] += 1
        if state["options"]["fast_game_five_cards"] and state["building_round"] == 2:
            state["phase"] = "initial_discard"
            state["order"] = self._forward(state)
            state["current"] = state["order"][0]
            return self._discard_needed(state, events)
        self._after_building_round(state)
        return True

    @staticmethod
    def _forward(state: State) -> list[int]:
        n = len(state["players"])
        return [(state["first"] + i) % n for i in range(n)]

    def _after_building_round(self, state: State) -> None:
        """Set up the next building round (switchback order) or the first normal round."""
        forward = self._forward(state)
        if state["building_round"] < state["initial_rounds"]:
            state["phase"] = "initial_build"
            state["order"] = forward if state["building_round"] % 2 == 0 else forward[::-1]
            return
        state["phase"] = "operations"
        state["order"] = forward

    def _discard_needed(self, state: State, events: list[Event]) -> bool:
        """Skip players already holding a normal hand in the five-card discard."""
        size = deck.hand_size(state)
        n = len(state["players"])
        while state["pos"] < n and len(state["players"][state["order"][state["pos"]]]["hand"]) <= size:
            state["pos"] += 1
        if state["pos"] >= n:
            state["pos"] = 0
            self._after_building_round(state)
            return True
        state["current"] = state["order"][state["pos"]]
        events.append({"turn_started": {"seat": state["current"], "phase": "initial_discard", "round": 0}})
        return False

    def _begin_turn(self, state: State, events: list[Event]) -> bool:
        """Start the current seat's turn; ``False`` if the turn is lost to an event."""
        seat = state["current"]
        player = state["players"][seat]
        state["turn"] = fresh_turn()
        if state["phase"] == "initial_discard":
            if len(player["hand"]) <= deck.hand_size(state):
                return False
            events.append({"turn_started": {"seat": seat, "phase": "initial_discard", "round": 0}})
            return True
        if state["phase"] not in ("initial_build",):
            state["phase"] = "operations"
            if player["lost"] > 0:
                player["lost"] -= 1
                events.append({"turn_lost": {"seat": seat}})
                self._close_turn(state, seat, events)
                return False
        for reserved in state["reserved"]:
            if reserved["owner"] == seat and reserved["open"]:
                reserved["armed"] = True
        ops.start_trains(state, seat)
        events.append({"turn_started": {"seat": seat, "phase": state["phase"], "round": state["round"]}})
        return True

    def _round_end(self, state: State, events: list[Event]) -> bool:
        """Settle victory claims and the tournament time limit; ``True`` if the game ended."""
        players = state["players"]
        declared = [s for s, p in enumerate(players) if p["declared"]]
        for p in players:
            p["declared"] = False
        eligible = [s for s in declared
                    if players[s]["cash"] >= state["win_cash"] and tracks.connected_majors(players[s]["track"])]
        if eligible:
            best = max(players[s]["cash"] for s in eligible)
            top = [s for s in eligible if players[s]["cash"] == best]
            if len(top) == 1:
                self._game_over(state, top, "victory", events)
                return True
            state["win_cash"] += int(COSTS["tie_raise"])
            events.append({"threshold_raised": {"win_cash": state["win_cash"]}})
        limit = state["options"]["time_limit_rounds"]
        if limit and state["round"] >= limit:
            self._game_over(state, self._time_limit_winners(state), "time_limit", events)
            return True
        cap = state["options"].get("round_limit", 0)
        if cap and state["round"] >= cap:
            self._game_over(state, self._time_limit_winners(state), "round_limit", events)
            return True
        return self._stall_end(state, events)

    @staticmethod
    def _time_limit_winners(state: State) -> list[int]:
        """The tournament rule's winners: a connected network first, then the most cash."""
        keys = [(1 if tracks.connected_majors(p["track"]) else 0, p["cash"]) for p in state["players"]]
        best_key = max(keys)
        return [s for s, k in enumerate(keys) if k == best_key]

    def _stall_end(self, state: State, events: list[Event]) -> bool:
        """End a table where no seat has delivered, built or upgraded for ``stall_rounds`` rounds."""
        options = state["options"]
        limit = options.get("stall_rounds", 0)
        if not limit or state["round"] - state.get("last_progress", 0) < limit:
            return False
        winners = self._time_limit_winners(state) if options.get("stall_ending") == "time_limit" else []
        self._game_over(state, winners, "stalled", events)
        return True

    def _game_over(self, state: State, winners: list[int], reason: str, events: list[Event]) -> None:
        players = state["players"]
        if reason == "victory":
            keys = [(1 if s in winners else 0, p["cash"]) for s, p in enumerate(players)]
        elif not winners:
            keys = [(0, 0) for _ in players]  # a stalled table ended without a winner: everyone shares the place
        else:
            keys = [(1 if tracks.connected_majors(p["track"]) else 0, p["cash"]) for p in players]
        state["ranking"] = [1 + sum(1 for other in keys if other > keys[s]) for s in range(len(keys))]
        state["over"] = True
        state["phase"] = "over"
        state["winners"] = sorted(winners)
        state["finish_reason"] = reason
        state["cash_public"] = True
        events.append({"game_over": {"winners": sorted(winners), "reason": reason}})

    # ---- views and results --------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> View:
        """The public board plus the viewer's own cash (others' cash only after a tax card)."""
        players = []
        for s, p in enumerate(state["players"]):
            hidden = not state["cash_public"] and s != seat
            players.append({
                "seat": s, "cash": 0 if hidden else p["cash"], "cash_hidden": hidden,
                "trains": [self._train_view(state, t) for t in p["trains"]],
                "hand": [demand_card_json(c) for c in p["hand"]],
                "track": [{"a": BOARD.edges[e][0], "b": BOARD.edges[e][1]} for e in p["track"]],
                "turns_taken": p["turns"], "lost_turns": p["lost"], "debt": p["debt"], "borrowed": p["debt"] // 2,
                "connected": tracks.connected_majors(p["track"]), "declared": p["declared"],
                "fees_owed_to": [payee for payee, _ in p["owed"]],
            })
        turn = state["turn"]
        view: View = {
            "phase": state["phase"], "current": state["current"], "first_player": state["first"],
            "building_round": state["building_round"], "round": state["round"], "players": players,
            "deck_count": len(state["deck"]), "discard_count": len(state["discard"]),
            "active_events": [{"card": event_card_json(a["card"]), "drawn_by": a["drawer"], "expires": a["expires"]}
                              for a in state["active"]],
            "tray": [{"load": load, "available": count} for load, count in sorted(state["tray"].items())],
            "loco_cards": [{"loco": loco, "available": max(0, count)}
                           for loco, count in loco_cards_left(state).items()],
            "open_contracts": [demand_card_json(c) for c in state["open_contracts"]],
            "warehouse": [{"milepost": w["at"], "load": {"load": w["load"], "origin_region": w["origin"]},
                           "dropped_by": w["by"], "expires": w["expires"]} for w in state["warehouse"]],
            "cash_public": state["cash_public"],
            "turn": {"spent": turn["spent"], "major_segments": turn["major_segments"], "upgraded": turn["upgraded"],
                     "crossgraded": turn["crossgraded"], "acted": turn["acted"],
                     "fees_paid_to": list(turn["fees_paid"]), "bought_track": turn["bought"],
                     "moved_own": turn["moved_own"], "offers": turn["offers"],
                     "dropped": [{"milepost": at, "load": load} for at, load in turn["dropped"]]},
            "win_cash": state["win_cash"], "winners": list(state["winners"]), "options": dict(state["options"]),
            "pending": [dict(c) for c in state["pending"]],
            "reserved": [{"segment": {"a": BOARD.edges[r["eid"]][0], "b": BOARD.edges[r["eid"]][1]},
                          "owner": r["owner"], "card": r["card"], "open": r["open"], "armed": r["armed"]}
                         for r in state["reserved"]],
            "finish_reason": state["finish_reason"], "map_id": MAP_ID,
            "last_progress": state.get("last_progress", 0), "turn_aborted": state["abort_turn"],
            "removed_count": len(state["removed"]),
        }
        if state["offer"]:
            view["offer"] = dict(state["offer"])
            view["offer_buyer"] = state["current"]
        return view

    def determinize(self, seen: Seen, rng: Rng) -> State:
        """A state the seat cannot tell from the real one: hidden cash and unseen card order sampled."""
        return hidden.determinize(seen, rng)

    def _train_view(self, state: State, train: dict[str, Any]) -> dict[str, Any]:
        return {"loco": train["loco"], "milepost": train["at"], "previous": train["prev"],
                "loads": [deck.load_json(load) for load in train["loads"]], "movement_left": train["left"],
                "speed": ops.speed(state, train["loco"]), "capacity": ops.capacity(train["loco"])}

    def result(self, state: State) -> Result | None:
        """Cash as the score; the ranking follows the ending's precedence (victory or time limit)."""
        if not state["over"]:
            return None
        return Result(scores=[float(p["cash"]) for p in state["players"]], ranking=list(state["ranking"]),
                      winners=list(state["winners"]))

    def content_facts(self, state: State) -> list[list[str]] | None:
        """Per seat, the content ids the arena correlates with winning (see :mod:`services.india_rails.facts`)."""
        return india_rails_facts.content_facts(state)

    # ---- explaining refusals ---------------------------------------------------------------

    def move_costs(self, state: State, seat: int, move: Move) -> list[dict[str, Any]]:
        """The price of a legal move: a segment's build cost, an upgrade's or a crossgrade's
        (millions); a backtrack's turn."""
        return building_costs(move)

    def explain_illegal(self, state: State, seat: int, move: Move) -> IllegalMove:
        """A specific, stable reason for refusing ``move``."""
        if state["over"]:
            return IllegalMove("the game is over", code="game_over")
        if seat not in self.to_act(state):
            return IllegalMove("it is not this seat's turn", code="not_your_turn")
        kind = _kind(move)
        body = move.get(kind) if kind else None
        if not kind or not isinstance(body, dict):
            return IllegalMove("a move is an object with exactly one kind", code="malformed_move")
        refusal = _timing_refusal(state, kind) or _rule_refusal(state, seat, kind, body)
        return refusal or IllegalMove("that move is not legal now", code="illegal_move")


def building_costs(move: Move) -> list[dict[str, Any]]:
    """What a build, upgrade, crossgrade or backtrack move costs (:meth:`Engine.move_costs`); else nothing."""
    if "build_track" in move:
        body = move["build_track"]
        end = body["to_milepost"]
        cost = BOARD.cost_into(BOARD.edge_between(body["from_milepost"], end), end)
        return [{"what": "money", "amount": cost}]
    if "upgrade_train" in move:
        return [{"what": "money", "amount": UPGRADE_COST}]
    if "crossgrade_train" in move:
        return [{"what": "money", "amount": CROSSGRADE_COST}]
    if "backtrack" in move:  # mercy backtracking is the turn's first act and ends it
        return [{"what": "turn", "amount": 1}]
    return []

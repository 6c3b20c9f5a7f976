"""The engine protocol every game implements.

An engine is pure: no I/O, no clock, no global random state.  All chance comes
from the :class:`~services.common.rng.Rng` handed to ``setup`` and ``apply``; the
framework keeps that generator's state next to the game state, so ``seed + moves``
replays a game exactly.

Data shapes (all JSON-compatible, so snapshots are plain JSON):

* **State** – a ``dict`` owned by the engine.  Only the engine reads it.
* **Move** – a ``dict`` in the proto3 JSON form (proto field names) of the game's
  ``Move`` message, e.g. ``{"travel": {"rotation": "LEFT", "distance": 3}}``.
* **Event** – a ``dict`` in the proto3 JSON form of the game's ``Event`` message.
* **View** – what ``view`` returns: the proto3 JSON form of the game's ``State``
  message, redacted for one seat (or a spectator, ``seat=None``).

Seats are numbered from 0 in turn order of the ``players`` list at creation.

Options travel as the game's ``Options`` proto, and proto3 drops fields left at
their zero value, so an option is read as "absent, take the default" when it is
zero.  Give options zero defaults (false, 0, "") or declare them ``optional`` in
the proto so an explicit zero survives.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from services.common.rng import Rng

State = dict[str, Any]
Move = dict[str, Any]
Event = dict[str, Any]
View = dict[str, Any]


class RulesError(Exception):
    """A request the rules refuse.  ``code`` is stable and machine-readable."""

    code: str = "rules_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message


class IllegalMove(RulesError):
    """The move is well-formed but not legal now (HTTP 422 / FAILED_PRECONDITION)."""

    code = "illegal_move"


class BadConfig(RulesError):
    """Player count or options the game does not support (HTTP 400 / INVALID_ARGUMENT)."""

    code = "bad_config"


def turn_refusal(over: bool, seat: int, to_act: list[int]) -> IllegalMove | None:
    """The refusals every game checks first, with the same words and codes everywhere: the game
    is over, or ``seat`` is not among the seats ``to_act``; ``None`` when neither applies."""
    if over:
        return IllegalMove("the game is over", code="game_over")
    if seat not in to_act:
        return IllegalMove("it is not this seat's turn", code="not_your_turn")
    return None


@dataclass(frozen=True)
class GameConfig:
    """What ``setup`` needs: the number of seats and the validated options."""

    players: int
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Result:
    """The outcome of a finished game.

    ``ranking[s]`` is seat ``s``'s place (1 = first; tied seats share a place).
    ``winners`` may hold several seats (shared wins, Tea & Rum's two winners) or
    none (a 2-player Tea & Rum game nobody wins).
    """

    scores: list[float]
    ranking: list[int]
    winners: list[int]

    @staticmethod
    def from_scores(scores: list[float], tiebreak: list[float] | None = None) -> Result:
        """Rank by score (then by ``tiebreak``), highest first; the top group wins."""
        keys = [(scores[s], tiebreak[s] if tiebreak else 0.0) for s in range(len(scores))]
        ranking = [1 + sum(1 for other in keys if other > keys[s]) for s in range(len(keys))]
        winners = [s for s in range(len(keys)) if ranking[s] == 1]
        return Result(scores=list(scores), ranking=ranking, winners=winners)


@dataclass(frozen=True)
class Seen:
    """Everything one seat may know when it must decide.

    A bot gets this, never the state: ``view`` is ``engine.view(state, seat)`` and
    ``legal`` is ``engine.legal_moves(state, seat)``.  Hidden information a bot needs
    for look-ahead it samples with :meth:`Engine.determinize`.
    """

    seat: int
    view: View
    legal: list[Move]


class Bot(Protocol):
    """A server-side player.  It decides from what its seat may know, nothing else."""

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        """Pick one of ``seen.legal``."""
        ...


# A bot's notes about its own seat, carried from one of its moves to the next (JSON: it is stored
# with the game), or None.  OpenSpiel keeps such bot state outside the game state; so do we.
BotMemory = Any


class RememberingBot(Protocol):
    """A bot whose decision may rest on its earlier ones (a plan it committed to).

    Its memory is explicit: given in and handed back, never kept in the bot object or the
    process, so whichever process asks for a seat's next move gets the same move.
    """

    def choose_remembering(self, engine: Engine, seen: Seen, rng: Rng, memory: BotMemory) -> tuple[Move, BotMemory]:
        """Pick one of ``seen.legal`` from ``memory`` (``None``: nothing remembered); answer the memory after it."""
        ...


class MovesRules(Protocol):
    """What a game's moves module offers :class:`ModularEngine` (functions, so a module satisfies it)."""

    def to_act(self, state: State) -> list[int]: ...  # the game's module documents it

    def legal_moves(self, state: State, seat: int) -> list[Move]: ...

    def apply_move(self, state: State, seat: int, move: Move, rng: Rng) -> list[Event]: ...


class HiddenRules(Protocol):
    """A game's module that samples what a seat cannot see (``determinize``)."""

    def determinize(self, seen: Seen, rng: Rng) -> State: ...


class FactsRules(Protocol):
    """A game's module that lists the content ids the arena correlates with winning."""

    def content_facts(self, state: State) -> list[list[str]]: ...


class RefusalRules(Protocol):
    """A game's module that says why a move is refused."""

    def explain_illegal(self, state: State, seat: int, move: Move) -> IllegalMove: ...


class RandomBot:
    """Plays a uniformly random legal move.  Every game offers it."""

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        """A uniformly random legal move."""
        return rng.choice(seen.legal)


class Engine(abc.ABC):
    """Base class of every game's rules engine.  See the module docstring for data shapes."""

    game_type: ClassVar[str]
    """Stable id, also the proto package segment: ``chaiwala.<game_type>.v1``."""
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]

    # ---- configuration -------------------------------------------------------

    @abc.abstractmethod
    def default_options(self) -> dict[str, Any]:
        """Every option with its default value (the JSON form of the game's ``Options``)."""

    def validate_options(self, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Merge ``options`` over the defaults; raise :class:`BadConfig` for anything unsupported.

        Engines override this to check values that depend on the player count.
        """
        if not self.min_players <= players <= self.max_players:
            raise BadConfig(
                f"{self.name} takes {self.min_players}-{self.max_players} players, not {players}",
                code="bad_player_count",
            )
        merged = self.default_options()
        unknown = sorted(set(options) - set(merged))
        if unknown:
            raise BadConfig(f"unknown option(s): {', '.join(unknown)}", code="unknown_option")
        merged.update(options)
        return merged

    def heuristic_bot(self) -> Bot | None:
        """A fresh instance of the game's heuristic bot, or ``None`` for a game without one.

        Which bots a seat may use is the bots domain's (:func:`services.bots.roster.bots_for`).
        """
        return None

    # ---- the rules -------------------------------------------------------------

    @abc.abstractmethod
    def setup(self, config: GameConfig, rng: Rng) -> State:
        """The initial state (options already validated)."""

    @abc.abstractmethod
    def to_act(self, state: State) -> list[int]:
        """Seats that must decide now (empty once the game is over)."""

    @abc.abstractmethod
    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every legal atomic decision for ``seat`` now (empty if it is not to act)."""

    @abc.abstractmethod
    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Apply a move already known to be legal.

        The framework only calls this with an element of ``legal_moves(state, seat)``
        and hands over a private copy of ``state``, so the engine may mutate it.
        """

    def move_costs(self, state: State, seat: int, move: Move) -> list[dict[str, Any]]:
        """What making the legal ``move`` costs ``seat``, said before the click: a list of
        ``{"what": "points" | "money" | "turn" | "worker", "amount": n}`` (``turn``: the move ends
        or wastes the turn; ``worker``: a worker placed where it could not act now).  Default:
        nothing; engines override for the moves whose price they know.
        """
        return []

    def explain_illegal(self, state: State, seat: int, move: Move) -> IllegalMove:
        """Why ``move`` is not legal: engines override for specific codes and messages."""
        return turn_refusal(False, seat, self.to_act(state)) or IllegalMove("that move is not legal now")

    @abc.abstractmethod
    def view(self, state: State, seat: int | None) -> View:
        """The state as ``seat`` may see it (``None`` = spectator): the game's ``State`` proto JSON."""

    def event_view(self, event: Event, seat: int | None) -> Event | None:
        """``event`` as ``seat`` may see it, or ``None`` to hide it.  Default: public."""
        return event

    @abc.abstractmethod
    def result(self, state: State) -> Result | None:
        """Scores, ranking and winners once the game is over, else ``None``."""

    def seen(self, state: State, seat: int) -> Seen:
        """What ``seat`` may know of ``state``: its view and its legal moves."""
        return Seen(seat=seat, view=self.view(state, seat), legal=self.legal_moves(state, seat))

    @abc.abstractmethod
    def determinize(self, seen: Seen, rng: Rng) -> State:
        """A full state the seat cannot tell from the real one; hidden parts sampled with ``rng``.

        ``view(result, seen.seat) == seen.view`` and ``legal_moves(result, seen.seat)`` equals
        ``seen.legal``; what the seat cannot see (other seats' hidden holdings, unseen deck
        orders) is drawn from what it cannot rule out, never copied from the real state.
        Every engine must say how its hidden information is sampled (a game with none returns
        the state its view describes): the search bot plays out from this, so a default that
        reused the real state would let it cheat.
        """

    def is_over(self, state: State) -> bool:
        """Whether the game has ended."""
        return self.result(state) is not None

    # ---- content statistics (the arena) -----------------------------------------

    def content_facts(self, state: State) -> list[list[str]] | None:
        """Per seat, ids of the content that seat used or owned by the end (``None``: not exposed).

        The arena correlates each id with winning to find dominant cards, tiles or
        strategies in designed content.  Ids read ``"kind:name"`` (``"estate:Makaibari"``);
        engines override this; it is read only, and only of a finished state.
        """
        return None


@dataclass(frozen=True)
class GameParts:
    """What a :class:`ModularEngine` declares in one place: its game's identity (``game_type``,
    ``name``), the seat range ``players`` (fewest, most), its modules, and ``defaults``, which makes
    a fresh dict of every option at its default (the engine's ``default_options``)."""

    game_type: str
    name: str
    players: tuple[int, int]
    moves: MovesRules
    hidden: HiddenRules
    facts: FactsRules
    refusals: RefusalRules | None = None
    defaults: Callable[[], dict[str, Any]] = dict


class ModularEngine(Engine):
    """An engine that is a facade over its game's modules, as every shipped game is.

    A subclass declares its game with one :class:`GameParts` in :attr:`parts`; the identity
    (``game_type``, ``name``, seat range) and the modules below are taken from it when the class is
    made.  Whose decision it is, the legal moves and applying one come from :attr:`moves_module`;
    why a move is refused from :attr:`refusals_module` (when the game has one); sampling what a seat
    cannot see from :attr:`hidden_module`; the arena's facts from :attr:`facts_module`.  The
    game's modules document what its versions do; the subclass keeps setup, options checks, view
    and result, which differ in shape from game to game.
    """

    parts: ClassVar[GameParts]
    # Plain annotations, not ClassVar: mypy will not let a subclass's module assignment
    # override a ClassVar; they are set from ``parts`` when a subclass is made.
    moves_module: MovesRules
    hidden_module: HiddenRules
    facts_module: FactsRules
    refusals_module: RefusalRules | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        parts = cls.__dict__.get("parts")
        if parts is None:  # a subclass of a declared engine inherits its parent's
            return
        cls.game_type, cls.name = parts.game_type, parts.name
        cls.min_players, cls.max_players = parts.players
        cls.moves_module, cls.hidden_module, cls.facts_module = parts.moves, parts.hidden, parts.facts
        cls.refusals_module = parts.refusals

    def default_options(self) -> dict[str, Any]:
        """Every option with its default value: a fresh dict from ``parts.defaults``."""
        return self.parts.defaults()

    def to_act(self, state: State) -> list[int]:
        """Seats that must decide now: the moves module's ``to_act``."""
        return self.moves_module.to_act(state)

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every atomic decision open to ``seat``: the moves module's ``legal_moves``."""
        return self.moves_module.legal_moves(state, seat)

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Apply one legal move and what follows automatically; the module mutates ``state`` in place."""
        return state, self.moves_module.apply_move(state, seat, move, rng)

    def explain_illegal(self, state: State, seat: int, move: Move) -> IllegalMove:
        """The refusals module's specific reason, or the generic one for a game without one."""
        if self.refusals_module is None:
            return super().explain_illegal(state, seat, move)
        return self.refusals_module.explain_illegal(state, seat, move)

    def determinize(self, seen: Seen, rng: Rng) -> State:
        """A state ``seen.seat`` cannot tell from the real one: the hidden module's sampling."""
        return self.hidden_module.determinize(seen, rng)

    def content_facts(self, state: State) -> list[list[str]] | None:
        """Per seat, the content ids the arena correlates with winning: the facts module's."""
        return self.facts_module.content_facts(state)


def current_seat(state: State, over: bool) -> list[int]:
    """``to_act`` of a game where one seat decides at a time: the seat in ``state["current"]``, and
    nobody once the game is ``over``."""
    return [] if over else [state["current"]]

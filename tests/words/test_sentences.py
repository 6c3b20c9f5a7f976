"""Every event and legal move of every game has a sentence, per viewer, in English and Spanish.

Random games of every game type and player count are played in-process; every event is
rendered for every viewer (each seat and a spectator) from the event as that viewer may
see it, and every legal move of the seat to act is rendered for that seat.  A sentence
must exist in both languages, leave no template syntax, raw ids or Python values behind,
and never carry a value that the engine's redaction hid from that viewer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from services.bots.roster import bots_for
from services.common import protojson
from services.common.engine import Engine, Event
from services.common.registry import available_game_types, engine_for
from services.common.rng import Rng
from services.common.runner import Match, json_key
from services.common.sentences import LANGUAGES, Pack, Sentences, TextError, pick_language, sentences_for
from services.rules.narrator import Narrator

PLAYER_NAMES = ["Asha", "Bikram", "Chitra", "Devika", "Eshan", "Farida"]
# Moves per game before the test stops a game that random play has not finished.
MOVE_CAP = {"india_rails": 350}
DEFAULT_CAP = 2_500
SEEDS_PER_CASE = 1
# Games whose events hide something from some viewers in every game (so the leak check has work).
REDACTING = {"darjeeling", "tea_rum"}
# Left-over template syntax, Python values or raw identifiers: never part of a sentence.
LEFTOVER = re.compile(r"[{}\[\]<>_]|\bNone\b|\bTrue\b|\bFalse\b|Undefined|\s[,.;:]|^\s|\s$")
# Code names: snake_case tokens and raw ALL_CAPS enum names (two or more capitals in a row, such as
# ACT or POST_OFFICE); a number's "M" (12M) and a lone capital letter (position "A") are words.
CODE_NAME = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b|\b[A-Z]{2,}[A-Z0-9_]*\b")


def _cases() -> list[tuple[str, int]]:
    cases = []
    for game in available_game_types():
        engine = engine_for(game)
        cases += [(game, n) for n in range(engine.min_players, engine.max_players + 1)]
    return cases


def _oneof_kinds(game: str, message: str) -> list[str]:
    descriptor = protojson.message_class(game, message).DESCRIPTOR
    return [f.name for f in descriptor.oneofs_by_name["kind"].fields]


# ---- hidden values ---------------------------------------------------------------------


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    else:
        yield path, value


def _words_for(value: Any, pack: Pack) -> set[str]:
    """How a value could show up in a sentence: itself, its term and content names."""
    if isinstance(value, bool) or value in ("", None):
        return set()
    key = str(value)
    words = {key}
    words |= {terms[key] for terms in pack.terms.values() if key in terms}
    words |= {names[key] for names in pack.names.values() if key in names}
    return words


def hidden_words(raw: Event, seen: Event, pack: Pack, players: list[str]) -> set[str]:
    """Words of values ``raw`` has and ``seen`` (the viewer's redacted copy) does not."""
    visible = dict(_leaves(seen))
    allowed = set(players)
    for value in visible.values():
        allowed |= _words_for(value, pack)
    hidden: set[str] = set()
    for path, value in _leaves(raw):
        if path not in visible or visible[path] != value:
            hidden |= _words_for(value, pack)
    return {word for word in hidden - allowed if not word.isdigit() or int(word) > 1}


def leaked(text: str, words: set[str]) -> list[str]:
    """The hidden words that appear in ``text`` as whole words."""
    return sorted(w for w in words if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text, re.IGNORECASE))


def check_sentence(text: str, where: str) -> None:
    """A finished sentence: non-empty, nothing left over."""
    assert text, f"{where}: empty sentence"
    assert not LEFTOVER.search(text), f"{where}: left-over placeholder or raw value in {text!r}"
    assert not CODE_NAME.search(text), f"{where}: code name {CODE_NAME.search(text)} in {text!r}"


# ---- one played game -------------------------------------------------------------------


class Reader:
    """Renders what every viewer sees of one game, checking each sentence."""

    def __init__(self, engine: Engine, players: int) -> None:
        self.engine = engine
        self.sentences = sentences_for(engine.game_type)
        self.names = PLAYER_NAMES[:players]
        self.viewers: list[int | None] = [None, *range(players)]
        self.events_seen: set[str] = set()
        self.moves_seen: set[str] = set()
        self.moves_read: set[tuple[bytes, int]] = set()
        self.redacted = 0  # (event, viewer) pairs where the viewer's copy differs from the original
        self.costed = 0  # move sentences read with a price

    def event(self, raw: Event, actor: int) -> None:
        """Render ``raw`` for every viewer in every language."""
        kind = next(iter(raw))
        for viewer in self.viewers:
            seen = self.engine.event_view(raw, viewer)
            self.redacted += seen != raw
            if seen is None:
                continue
            self.events_seen.add(kind)
            for language in LANGUAGES:
                where = f"{self.engine.game_type}/{language}/events/{kind} for viewer {viewer}"
                text = self.sentences.event_text(seen, viewer, self.names, actor, language)
                check_sentence(text, where)
                secret = hidden_words(raw, seen, self.sentences.packs[language], self.names)
                assert not leaked(text, secret), f"{where}: {text!r} shows hidden {leaked(text, secret)}"

    def moves(self, match: Match, seat: int) -> None:
        """Render every legal move of ``seat`` in every language."""
        for move in self.engine.legal_moves(match.state, seat):
            key = (json_key(move), seat)
            if key in self.moves_read:
                continue  # the same move for the same seat reads the same
            self.moves_read.add(key)
            self.read_move(move, seat, self.engine.move_costs(match.state, seat, move))

    def read_move(self, move: dict[str, Any], seat: int, costs: list[dict[str, Any]] | None = None) -> None:
        """Render one move for ``seat`` in every language, with what it costs."""
        kind = next(iter(move))
        self.moves_seen.add(kind)
        for language in LANGUAGES:
            text = self.sentences.move_text(move, seat, self.names, language)
            check_sentence(text, f"{self.engine.game_type}/{language}/moves/{kind}")
            if costs:
                self.costed += 1
                price = self.sentences.cost_text(costs, language)
                check_sentence(price, f"{self.engine.game_type}/{language}/costs of {kind}")
                assert all(str(c["amount"]) in price for c in costs if c["what"] in ("points", "money")), price


def play_and_read(game: str, players: int, seed: int, plan: dict[str, Any] | None = None) -> Reader:
    """Play one game (random moves, or the plan's mix with the heuristic bot) and read all of it."""
    plan = plan or {}
    engine = engine_for(game)
    reader = Reader(engine, players)
    match = Match.start(engine, players, seed, plan.get("options"))
    rng = Rng(seed)
    heuristic, share = bots_for(engine).get("heuristic"), plan.get("heuristic", 0.0)
    for number in range(plan.get("cap") or MOVE_CAP.get(game, DEFAULT_CAP)):
        if engine.is_over(match.state):
            break
        seat = rng.choice(match.to_act())
        reader.moves(match, seat)
        if heuristic is not None and rng.random() < share:
            move = match.bot_move(heuristic, seat, number)
        else:
            move = rng.choice(engine.legal_moves(match.state, seat))
        for raw in match.play(seat, move):
            reader.event(raw, seat)
    return reader


# ---- kinds that one game might not reach --------------------------------------------------

# One game per type that reaches (nearly) every kind: India Rails needs its variants and a
# mostly heuristic player to deliver loads, borrow and finish.
INDIA_VARIANTS = ["mercy_borrowing", "mercy_late_fees", "mercy_backtracking", "crossgrading", "open_contracts"]
INDIA_VARIANTS += ["field_warehousing", "cost_to_move", "cost_to_load", "track_trading", "fast_game"]
COVERAGE_PLANS: dict[str, dict[str, Any]] = {
    "alubari": {"players": 2},
    "darjeeling": {"players": 3},
    "tea_rum": {"players": 2, "heuristic": 0.8},
    "india_rails": {
        "players": 3,
        "heuristic": 0.8,
        "cap": 3_000,
        "options": {**dict.fromkeys(INDIA_VARIANTS, True), "time_limit_rounds": 40},
    },
}
# Kinds the coverage game does not reach (rare positions): hand-made originals, read like any other.
SAMPLE_EVENTS: dict[str, list[Event]] = {
    "darjeeling": [
        {"collector_stayed": {"seat": 1}},
        {"ship_sailed": {"seat": 1, "returned": [2, 0, 1], "loaded": 1, "to_borrow": 2}},
        {"ship_sailed": {"seat": 2, "returned": [0, 0, 0], "loaded": 0, "to_borrow": 3}},
        {"crate_borrowed": {"seat": 1, "ship": 0, "to_borrow": 1}},
        {"crate_borrowed": {"seat": 1, "ship": 2, "to_borrow": 0}},
    ],
    "tea_rum": [
        {"automa_reshuffled": {}},
        {"allegiance_fulfilled": {"seat": 1, "allegiance": 3}},
        {"action_skipped": {"seat": 0, "action": "trade"}},
        {"vp_capped": {"seat": 0, "lost_blue": 2, "lost_red": 0}},
        {
            "game_over": {
                "governors": [0],
                "pirate_kings": [1],
                "winners": [0],
                "victory_colour": "blue",
                "blue": [14, 9],
                "red": [6, 11],
                "allegiance_proven": [True, False],
                "decided_early": True,
            }
        },
    ],
    "india_rails": [
        {"threshold_raised": {"win_cash": 300}},
        {"victory_declared": {"seat": 2}},
        {"cash_revealed": {"cash": [120, 85, 240]}},
        {"tax_paid": {"seat": 1, "amount": 15}},
        {"load_lost": {"seat": 1, "train": 0, "load": {"load": "Coal", "origin_region": ""}}},
        {"train_upgraded": {"seat": 0, "train": 0, "loco": "heavy_freight", "cost": 20}},
        {
            "track_sold": {
                "buyer": 0,
                "seller": 1,
                "segment": {"a": 450, "b": 451},
                "price": 0,
                "given": {"a": 762, "b": 763},
                "accepted": True,
            }
        },
        {
            "track_sold": {
                "buyer": 2,
                "seller": 0,
                "segment": {"a": 450, "b": 451},
                "price": 7,
                "given": {"a": -1, "b": -1},
                "accepted": False,
            }
        },
    ],
}
SAMPLE_MOVES: dict[str, list[dict[str, Any]]] = {
    "tea_rum": [{"prove_allegiance": {}}, {"finish_final": {}}],
    "darjeeling": [{"stay_put": {}}, {"borrow_crate": {"ship": 0}}, {"borrow_crate": {"ship": 3}}],
    "india_rails": [
        {"answer_offer": {"accept": True}},
        {"answer_offer": {"accept": False}},
        {"choose_lost_load": {"train": 0, "slot": 1}},
        {"crossgrade_train": {"train": 1, "loco": "fast_freight"}},
    ],
}


# ---- tests ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", available_game_types())
def test_every_event_and_move_kind_has_a_template_in_every_language(game: str) -> None:
    sentences = sentences_for(game)
    sentences.compile_all()
    missing = sentences.missing("events", _oneof_kinds(game, "Event"))
    missing += sentences.missing("moves", _oneof_kinds(game, "Move"))
    assert not missing, "missing templates:\n" + "\n".join(missing)


@pytest.mark.parametrize(("game", "players"), _cases())
def test_random_games_read_in_both_languages_without_leaks(game: str, players: int) -> None:
    for seed in range(SEEDS_PER_CASE):
        reader = play_and_read(game, players, seed=100 * players + seed)
        assert reader.events_seen and reader.moves_seen
        if game in REDACTING:
            assert reader.redacted, f"no hidden information came up in {game} with {players} players"


def test_the_leak_check_catches_a_sentence_made_from_the_unredacted_event() -> None:
    engine = engine_for("darjeeling")
    reader = Reader(engine, 2)
    match = Match.start(engine, 2, 5)
    taken = None
    while taken is None:
        seat = match.to_act()[0]
        events = match.play(seat, engine.legal_moves(match.state, seat)[0])
        taken = next((e for e in events if "tile_taken" in e), None)
    owner = taken["tile_taken"]["seat"]
    other = 1 - owner
    pack = reader.sentences.packs["en"]
    # Rendering the owner's copy for the other seat would reveal the tile: the check says so.
    wrong = reader.sentences.event_text(taken, other, reader.names, owner, "en")
    secret = hidden_words(taken, engine.event_view(taken, other) or {}, pack, reader.names)
    assert leaked(wrong, secret)
    right = reader.sentences.event_text(engine.event_view(taken, other) or {}, other, reader.names, owner, "en")
    assert not leaked(right, secret)
    variety = pack.terms["variety"][taken["tile_taken"]["tile"]["variety"]]
    mine = reader.sentences.event_text(taken, owner, reader.names, owner, "en")
    assert mine.startswith(f"You took a {variety} tile with ")
    assert right.startswith(f"{reader.names[owner]} took a tile from the board")


def test_a_missing_template_is_an_error_naming_game_language_and_kind(tmp_path: Any) -> None:
    (tmp_path / "platform" / "text").mkdir(parents=True)
    (tmp_path / "mini" / "text").mkdir(parents=True)
    (tmp_path / "mini" / "text" / "en.yaml").write_text("events:\n  rolled: '{{ Who(e.seat) }} rolled {{ e.pips }}.'\n")
    sentences = Sentences("mini", seeds=tmp_path)
    assert sentences.missing("events", ["rolled", "passed"]) == [
        "mini/en/events/passed",
        "mini/es/events/rolled",
        "mini/es/events/passed",
    ]
    with pytest.raises(TextError, match="mini/es: no template for event 'rolled'"):
        sentences.event_text({"rolled": {"seat": 0}}, None, ["Asha"], 0, "es")
    with pytest.raises(TextError, match="pips"):
        sentences.event_text({"rolled": {"seat": 0}}, None, ["Asha"], 0, "en")


@pytest.mark.parametrize("game", available_game_types())
def test_platform_entries_read_in_every_game_and_language(game: str) -> None:
    sentences = sentences_for(game)
    kinds = set(sentences_for(game).packs["en"].events) - set(_oneof_kinds(game, "Event"))
    assert {"resign", "timeout", "start"} <= kinds
    for kind in sorted(kinds - {"start"}):
        for viewer in (None, 0, 1):
            for language in LANGUAGES:
                text = sentences.event_text({kind: {"seat": 1}}, viewer, ["Asha", "Bikram"], 1, language)
                check_sentence(text, f"platform/{language}/events/{kind}")
                assert ("Bikram" in text) == (viewer != 1), text
    for language in LANGUAGES:
        check_sentence(
            sentences.event_text({"start": {}}, None, ["Asha"], None, language), f"platform/{language}/start"
        )


def test_the_viewer_is_you_and_others_are_named_in_both_languages() -> None:
    sentences = sentences_for("darjeeling")
    event = {"action_played": {"seat": 1, "action": "DOUBLE_DEMAND"}}
    assert sentences.event_text(event, 1, ["Asha", "Bikram"], 1, "en") == "You played an action tile for double demand."
    assert sentences.event_text(event, 0, ["Asha", "Bikram"], 1, "en").startswith("Bikram played")
    assert sentences.event_text(event, None, ["Asha", "Bikram"], 1, "es").startswith("Bikram jugó una ficha")
    assert sentences.event_text(event, 1, ["Asha", "Bikram"], 1, "es").startswith("Tú jugaste una ficha")


@pytest.mark.parametrize(
    ("header", "language"),
    [
        (None, "en"),
        ("", "en"),
        ("es", "es"),
        ("es-MX,es;q=0.9,en;q=0.8", "es"),
        ("en-GB,en;q=0.9,es;q=0.8", "en"),
        ("fr-FR,es;q=0.5,en;q=0.4", "es"),
        ("de, fr;q=0.9", "en"),
        ("en;q=0.2, es;q=0.7", "es"),
        ("es;q=0, en;q=0.1", "en"),
        ("es;q=bogus", "en"),
        ("*", "en"),
    ],
)
def test_accept_language_picks_spanish_or_english(header: str | None, language: str) -> None:
    assert pick_language(header) == language


@pytest.mark.parametrize("game", available_game_types())
def test_every_kind_is_read_in_a_covering_game_or_a_sample(game: str) -> None:
    plan = COVERAGE_PLANS.get(game, {})
    players = plan.get("players", engine_for(game).max_players)
    reader = play_and_read(game, players, seed=31, plan=plan)
    for raw in SAMPLE_EVENTS.get(game, []):
        reader.event(raw, actor=0)
    for move in SAMPLE_MOVES.get(game, []):
        for seat in range(players):
            reader.read_move(move, seat)
    never = [f"{game}/events/{k}" for k in _oneof_kinds(game, "Event") if k not in reader.events_seen]
    never += [f"{game}/moves/{k}" for k in _oneof_kinds(game, "Move") if k not in reader.moves_seen]
    assert not never, "never read (add a sample or widen the covering game):\n" + "\n".join(never)


def test_the_service_sends_an_empty_text_and_logs_once_when_a_template_is_missing(tmp_path: Any) -> None:
    narrator = Narrator(engine_for("darjeeling"))
    (tmp_path / "darjeeling" / "text").mkdir(parents=True)
    (tmp_path / "darjeeling" / "text" / "en.yaml").write_text("events:\n  turn_ended: '{{ Who(e.seat) }} is done.'\n")
    narrator.sentences = Sentences("darjeeling", seeds=tmp_path)
    events: list[dict[str, Any]] = [{"turn_ended": {"seat": 0, "next": 1}},
                                    {"action_played": {"seat": 0, "action": "NO_ROTTING"}}] * 2  # fmt: skip
    messages = [
        narrator.event_message(f) for f in narrator.event_fields(3, 0, events, None, words=(["Asha", "Bikram"], "en"))
    ]
    assert [m.text for m in messages] == ["Asha is done.", "", "Asha is done.", ""]
    assert narrator.text_errors == {"darjeeling/en: no template for event 'action_played'"}

"""Sentence templates as Python print what Jinja's sandbox prints, byte for byte.

``services.common.sentence_code`` turns each seed template it understands into a function; the
renderer uses it instead of Jinja.  Here both are run side by side: for every template of every
game and language, on the events and legal moves of played games (every viewer), and on payloads
made from those by Hypothesis (values swapped for other types, keys dropped, players named like
the pronoun); and for hand-written templates that use every construct the compiler accepts.  The
two agree when both print the same text, or both fail.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jinja2 import Template

from services.bots.roster import bots_for
from services.common import sentence_code
from services.common.registry import available_game_types, engine_for
from services.common.rng import Rng
from services.common.runner import Match
from services.common.sentences import _ENV, HELPERS, LANGUAGES, Pack, Speaker, _kind, _render, sentences_for
from services.rules.narrator import Narrator
from tests.words.test_sentences import COVERAGE_PLANS, PLAYER_NAMES, SAMPLE_EVENTS, SAMPLE_MOVES

# (section, message, viewer, actor): one sentence to render.
Said = tuple[str, dict[str, Any], int | None, int | None]
MOVE_CAP = 400  # moves per played game: enough to reach the kinds, quick enough for every example


def _outcome(call: Any) -> str | tuple[str]:
    try:
        return str(call())
    except Exception:  # what matters is that both fail
        return ("failed",)


def both(template: Template, function: Any, pack: Pack, said: Said, players: list[str]) -> tuple[Any, Any]:
    """What Jinja and the function print for one sentence (``("failed",)`` for an error)."""
    _, message, viewer, actor = said
    _, payload = _kind(message)
    speaker = Speaker(pack, viewer, players)
    jinja = _outcome(lambda: _render(template, speaker, payload, actor))
    fast = _outcome(lambda: " ".join(function(payload, actor, viewer, speaker).split()))
    return jinja, fast


@cache
def played(game: str) -> tuple[list[str], tuple[Said, ...]]:
    """Every event (as each viewer sees it) and legal move of one covering game, plus the samples."""
    plan = COVERAGE_PLANS.get(game, {})
    engine = engine_for(game)
    players = plan.get("players", engine.max_players)
    match, rng = Match.start(engine, players, 31, plan.get("options")), Rng(31)
    heuristic, share = bots_for(engine).get("heuristic"), plan.get("heuristic", 0.0)
    found: list[Said] = []
    viewers = [None, *range(players)]
    for number in range(MOVE_CAP):
        if engine.is_over(match.state):
            break
        seat = rng.choice(match.to_act())
        found += [("moves", move, seat, seat) for move in engine.legal_moves(match.state, seat)]
        if heuristic is not None and rng.random() < share:
            move = match.bot_move(heuristic, seat, number)
        else:
            move = rng.choice(engine.legal_moves(match.state, seat))
        for raw in match.play(seat, move):
            found += [("events", seen, v, seat) for v in viewers if (seen := engine.event_view(raw, v)) is not None]
    found += [("events", raw, viewer, 0) for raw in SAMPLE_EVENTS.get(game, []) for viewer in viewers]
    found += [("moves", move, seat, seat) for move in SAMPLE_MOVES.get(game, []) for seat in range(players)]
    return PLAYER_NAMES[:players], tuple(found)


@cache
def kinds_played(game: str) -> dict[tuple[str, str], list[Said]]:
    """:func:`played`'s sentences by section and kind."""
    by_kind: dict[tuple[str, str], list[Said]] = {}
    for said in played(game)[1]:
        by_kind.setdefault((said[0], _kind(said[1])[0]), []).append(said)
    return by_kind


def _templates(game: str) -> Iterator[tuple[str, str, str]]:
    for language, pack in sentences_for(game).packs.items():
        for section, sources in (("events", pack.events), ("moves", pack.moves)):
            yield from ((language, section, kind) for kind in sources)


@pytest.mark.parametrize("game", available_game_types())
def test_nearly_every_seed_template_has_a_function(game: str) -> None:
    sentences = sentences_for(game)
    kept = []
    for language, section, kind in _templates(game):
        pack = sentences.packs[language]
        if pack.template(section, kind) is not None and pack.function(section, kind) is None:
            kept.append(f"{language}/{section}/{kind}")
    # Jinja keeps what the compiler does not know (a pass-context filter such as ``reject``): a few at most.
    assert len(kept) <= 2, kept


@pytest.mark.parametrize("game", available_game_types())
def test_every_template_prints_what_jinja_prints_on_played_games(game: str) -> None:
    players, found = played(game)
    sentences = sentences_for(game)
    compared = 0
    for said in found:
        kind, _ = _kind(said[1])
        for language in LANGUAGES:
            pack = sentences.packs[language]
            template, function = pack.template(said[0], kind), pack.function(said[0], kind)
            if template is None or function is None:
                continue
            jinja, fast = both(template, function, pack, said, players)
            assert fast == jinja, f"{game}/{language}/{said[0]}/{kind} for {said[2]}: {said[1]}"
            compared += 1
    assert compared > len(found)


# ---- generated payloads ---------------------------------------------------------------------

LEAVES = st.one_of(
    st.integers(-3, 14),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(["BLACK", "GREEN", "NORTH", "LEFT", "points", "money", "items", "keys", "12", "0"]),
    st.lists(st.integers(0, 5), max_size=4),
    st.dictionaries(st.sampled_from(["seat", "n", "items", "values"]), st.integers(0, 3), max_size=3),
)


@st.composite
def mutated(draw: st.DrawFn, value: Any, depth: int = 0) -> Any:
    """``value`` with some parts swapped for values of other types, dropped or added."""
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            action = draw(st.sampled_from(["keep", "keep", "keep", "change", "drop"]))
            if action != "drop":
                out[key] = draw(mutated(item, depth + 1)) if action == "change" else item
        if draw(st.booleans()):
            out[draw(st.sampled_from(["items", "get", "extra", "seat"]))] = draw(LEAVES)
        return out
    if isinstance(value, list) and depth < 4:
        items = [draw(mutated(item, depth + 1)) if draw(st.booleans()) else item for item in value]
        return items[: draw(st.integers(0, len(items)))] if draw(st.booleans()) else items
    return draw(st.one_of(st.just(value), LEAVES))


PLAYERS = st.lists(st.sampled_from(["Asha", "Bikram", "you", "Tú", " You ", "Chitra"]), min_size=1, max_size=4)
VIEWERS = st.one_of(st.none(), st.integers(-1, 4))


@pytest.mark.parametrize("game", available_game_types())
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_template_prints_what_jinja_prints_on_generated_payloads(game: str, data: st.DataObject) -> None:
    by_kind = kinds_played(game)
    section, kind = data.draw(st.sampled_from(sorted(by_kind)))  # every kind alike, rare or common
    _, payload = _kind(data.draw(st.sampled_from(by_kind[section, kind]))[1])
    changed: Said = (section, {kind: data.draw(mutated(payload))}, data.draw(VIEWERS), data.draw(VIEWERS))
    players = data.draw(PLAYERS)
    for language in LANGUAGES:
        pack = sentences_for(game).packs[language]
        template, function = pack.template(section, kind), pack.function(section, kind)
        if template is not None and function is not None:
            jinja, fast = both(template, function, pack, changed, players)
            assert fast == jinja, f"{game}/{language}/{section}/{kind}: {changed}"


# ---- every construct the compiler accepts, on made-up payloads -------------------------------

CONSTRUCTS = [
    "{{ Who(e.seat) }} took {{ count(e.n, 'tile', 'tiles') }}{% if e.flag %}, and more{% endif %}.",
    "{{ e.a + 1 }} {{ e.a - e.b }} {{ e.a * 2 }} {{ e.a / 2 }} {{ e.a // 2 }} {{ e.a % 3 }} {{ e.a ** 2 }} {{ -e.a }}",
    "{{ e.a ~ '-' ~ e.b }} {{ 'x' if e.flag else 'y' }} {{ not e.flag }} {{ e.a and e.b }} {{ e.a or e.b }}",
    "{{ e.a < e.b }} {{ e.a <= 2 < e.b }} {{ e.a == 1 }} {{ e.a != 1 }} {{ e.a in e.list }} {{ 3 not in e.list }}",
    "{% if e.a > 2 %}big{% elif e.a > 0 %}small{% else %}none{% endif %} {{ e.missing is defined }}",
    "{{ e['a'] }} {{ e.list[0] }} {{ e.list[e.a] }} {{ e.items }} {{ e.get('a') }} {{ e.values }}",
    "{% for x in e.list %}{{ loop.index0 }}:{{ x }}{{ '' if loop.last else ', ' }}{% endfor %}|{{ x is defined }}",
    "{% for k, v in e.pairs %}{{ loop.index }}/{{ loop.length }} {{ k }}={{ v }} {{ loop.first }}"
    " {{ loop.revindex }} {{ loop.revindex0 }}{% for y in e.list %}[{{ loop.index0 }}{{ y }}]{% endfor %}{% endfor %}",
    "{% set acc = [] %}{% for n in e.list %}{% if n %}{% set _ = acc.append(n ~ ' to ' ~ who(loop.index0)) %}"
    "{% endif %}{% endfor %}{{ join(acc) }} {{ acc | length }}",
    "{% set total = e.a + e.b %}{{ total }} {{ total * 2 }} {{ people(e.list) | capital }}"
    " {{ verb(actor, 'do', 'does') }}",
    "{{ {'one': e.a, 'two': e.b} }} {{ [e.a, e.b] }} {{ (e.a, e.b) }} {{ (e.a,) }} {{ 1.5 }} {{ none }} {{ true }}",
    "{{ viewer }} {{ actor }} {{ me(actor) }} {{ nobody is defined }} {{ e.a.b is defined }}"
    " {{ e.list | length }} {{ e | length }}",
    "{{ term('variety', e.v) }} {{ qty('halves', e.h, e.a) }} {{ join(tally('halves', {'one': e.a, 'two': e.b})) }}",
    "{{ join(terms('variety', e.list)) }} {{ name('ships', e.a, 'a ship') }} {{ e.text | capital }}",
    "{% set acc = [] %}{% for x in e.list %}{% set _ = acc.append(x) %}{{ loop.index }}{% endfor %}{{ acc }}",
    "{{ '{} and {}'.format(e.a, e.b) }} {{ 'abc'.upper() }} {{ e.text.split() | length }} {{ e.list | default(3) }}",
    "line one\n   {% if e.flag %}\n  kept  {{ e.a }}\n{% endif %}\n  {{- e.b -}}  end\n",
]
NUMBERS = st.one_of(st.integers(-2, 5), st.integers(-2, 5), LEAVES)  # mostly numbers: the sums print
PAYLOADS = st.fixed_dictionaries(
    {},
    optional={
        "seat": st.one_of(st.integers(-1, 3), st.none(), st.text(max_size=2)),
        "n": NUMBERS,
        "flag": LEAVES,
        "a": NUMBERS,
        "b": NUMBERS,
        "v": st.sampled_from(["BLACK", "GREEN", "PINK", 3]),
        "h": st.sampled_from(["one", "two", "four"]),
        "list": st.lists(
            st.one_of(st.integers(-1, 3), st.text(max_size=2), st.sampled_from(["BLACK", "RED"])), max_size=4
        ),
        "pairs": st.lists(st.one_of(st.tuples(st.integers(0, 3), LEAVES), LEAVES), max_size=3),
        "items": LEAVES,
        "text": st.text(max_size=4),
    },
)


@pytest.mark.parametrize("source", CONSTRUCTS)
@settings(max_examples=250, deadline=None)
@given(payload=PAYLOADS, viewer=VIEWERS, actor=VIEWERS, players=PLAYERS)
def test_every_construct_prints_what_jinja_prints(
    source: str, payload: dict[str, Any], viewer: int | None, actor: int | None, players: list[str]
) -> None:
    pack = sentences_for("darjeeling").packs["en"]
    function = sentence_code.compile_sentence(_ENV, source, HELPERS)
    jinja, fast = both(_ENV.from_string(source), function, pack, ("events", {"k": payload}, viewer, actor), players)
    assert fast == jinja


@pytest.mark.parametrize(
    "source",
    [
        "{{ range(3) | list }}",  # a global
        "{{ e.list | reject('none') | join }}",  # a filter that wants the context
        "{% for x in e.list %}{% else %}empty{% endfor %}",
        "{% for x in e.list if x %}{{ x }}{% endfor %}",
        "{% macro m() %}x{% endmacro %}{{ m() }}",
        "{{ count(n=1, one='a', many='b') }}",
        "{{ e.list[1:] }}",
        "{% if e.a %}{% set x = 1 %}{% endif %}{{ x }}",
        "{{ x }}{% set x = 1 %}",
        "{{ loop }}{% for y in e.list %}{{ loop.cycle('a', 'b') }}{% endfor %}",
        "{% set e = 1 %}{{ e }}",
        "{{ 'yes' if e.a }}",
        "{{ self is defined }}",
        "{% set acc = [1] %}{% for x in acc %}{% if loop.last %}{% set _ = acc.append(x) %}{% endif %}{% endfor %}",
    ],
)
def test_what_the_compiler_does_not_know_stays_on_jinja(source: str) -> None:
    _ENV.from_string(source)  # Jinja takes it
    with pytest.raises(sentence_code.Unsupported):
        sentence_code.compile_sentence(_ENV, source, HELPERS)


def test_a_function_that_fails_hands_the_sentence_to_jinja() -> None:
    pack = sentences_for("darjeeling").packs["en"]
    template = _ENV.from_string("{{ Who(e.seat) }} moved.")
    speaker = Speaker(pack, 0, ["Asha", "Bikram"])
    from services.common.sentences import _render_fast

    def broken(*_: Any) -> str:
        raise RuntimeError("a compiler gap")

    assert _render_fast(broken, lambda: template, speaker, {"seat": 0}, 0) == "You moved."


# ---- words kept per process -------------------------------------------------------------------


def test_kept_prices_tell_one_from_true_as_the_words_do() -> None:
    sentences = sentences_for("darjeeling")
    one = sentences.cost_text([{"what": "points", "amount": 1}], "en")
    assert one == "Costs 1 point."
    assert sentences.cost_text([{"what": "points", "amount": True}], "en") == "Costs True point."
    assert sentences.cost_text([{"what": "points", "amount": 1}], "es") != one
    assert sentences.cost_text([{"what": "points", "amount": 1}], "en") == one


def test_a_kept_priced_move_reads_as_the_move_and_its_price_in_each_language() -> None:
    narrator = Narrator(engine_for("darjeeling"))
    move = {"move_collector": {"turn": "LEFT", "distance": 2}}
    costs = [{"what": "points", "amount": 2}]
    for language in LANGUAGES:
        expected = f"{narrator.move_text(move, 0, ['Asha', 'Bikram'], language)} "
        expected += narrator.sentences.cost_text(costs, language)
        for _ in range(2):  # worked out, then kept
            assert narrator.costed_text(move, 0, costs, ["Asha", "Bikram"], language) == expected
    assert narrator.costed_text(move, 0, [], ["Asha", "Bikram"], "en") == narrator.move_text(
        move, 0, ["Asha", "Bikram"], "en"
    )
    assert narrator.costed_text(move, 0, [{"what": "points", "amount": True}], ["Asha", "Bikram"], "en").endswith(
        "Costs True point."
    )

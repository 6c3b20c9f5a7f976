"""Sentences: every event and legal move in words, for one viewer, in English or Spanish.

Templates are data: ``seeds/<game>/text/<language>.yaml`` holds one Jinja template per
event kind (``events``) and per move kind (``moves``), plus the game's words for enum
values (``terms``) and translations of content names (``names``).  ``seeds/<game>/text/
names.yaml`` says where the names of things live in the game's content files, and
``seeds/platform/text/<language>.yaml`` holds what every game shares: how to say "you",
how to join a list, and templates for platform-level event kinds (a game's own template
wins over a platform one of the same kind).

A sentence is rendered from the event *as the viewer may see it* (the engine's
``event_view``) and the viewer's seat, so it can never say more than the viewer's event
does.  Templates see:

* ``e`` – the kind's payload (the dict under the event's or move's oneof key);
* ``actor`` – the seat whose move caused the event (``None`` for none);
* ``who(seat)`` / ``Who(seat)`` – "you"/"You" for the viewer's own seat, else the
  player's name; ``me(seat)`` – whether ``seat`` is the viewer's;
  ``verb(seat, you_form, other_form)`` – the verb form that agrees with ``who(seat)``;
* ``name(table, key, default?)`` – the name of a thing from the content files (a missing
  key without a default is an error); ``term(group, key)`` – a word for an enum value
  (``terms(group, keys)`` for a list); a term may be written ``one|many``, and
  ``qty(group, key, n)`` says "2 barrels", ``tally(group, counts)`` each non-zero count;
* ``join(items)`` – "a, b and c"; ``people(seats)`` – ``who`` of each, joined;
  ``count(n, one, many)`` – "1 tile" / "3 tiles"; the filter ``capital`` upper-cases
  the first letter.

A missing template or a template that reads something absent raises :class:`TextError`;
the property tests play every game and make that a test failure.  The rules service does
not fail a request over a sentence: it logs ``text_missing`` and sends an empty ``text``.
Templates run as Python functions compiled from them where :mod:`services.common.sentence_code` can.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import orjson
import yaml
from jinja2 import StrictUndefined, Template, TemplateError
from jinja2.sandbox import SandboxedEnvironment
from jinja2.utils import concat

from services.common import sentence_code

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
LANGUAGES = ("en", "es")
DEFAULT_LANGUAGE = "en"
# Sentences kept per game (see Sentences._text): a few thousand short strings.
SAID_CAPACITY = 8192
PRICED_CAPACITY, SPEAKERS_CAPACITY = 1024, 256  # prices and speakers kept per game: few distinct ones

_ENV = SandboxedEnvironment(undefined=StrictUndefined, autoescape=False, trim_blocks=True, lstrip_blocks=True)
_ENV.filters["capital"] = lambda text: str(text)[:1].upper() + str(text)[1:]


class TextError(Exception):
    """A sentence cannot be rendered: no template for the kind, or the template failed."""


# ---- Accept-Language ---------------------------------------------------------------


def _quality(parameters: Sequence[str]) -> float:
    """The q-value among a language range's parameters (1 when absent, 0 when unreadable)."""
    for parameter in parameters:
        key, _, value = parameter.strip().partition("=")
        if key.strip().lower() != "q":
            continue
        try:
            return max(0.0, min(1.0, float(value)))
        except ValueError:
            return 0.0
    return 1.0


def pick_language(header: str | None) -> str:
    """The supported language an ``Accept-Language`` header prefers; English when none fits.

    Ranges are weighed by their q-values (ties keep header order); ``es-MX`` counts as
    ``es``; ``*`` and unknown languages fall back to English.
    """
    best, best_q = DEFAULT_LANGUAGE, 0.0
    for item in (header or "")[:1024].split(","):
        tag, *parameters = item.split(";")
        primary = tag.strip().lower().split("-")[0]
        quality = _quality(parameters)
        if primary in LANGUAGES and quality > best_q:
            best, best_q = primary, quality
    return best


# ---- packs ---------------------------------------------------------------------------


def _read_yaml(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise TextError(f"{path} must hold a mapping")
    return data


def _sources(templates: Mapping[str, Any]) -> dict[str, str]:
    return {str(kind): str(source).strip() for kind, source in templates.items()}


def _content_names(game_dir: Path) -> dict[str, dict[str, str]]:
    """Tables of names from the game's content files, as ``names.yaml`` describes them.

    Each table: ``file`` (YAML or JSON under the game's seeds), ``list`` (a dotted path
    to a list of items, or to a mapping of key to name), ``key`` and ``name`` (fields of
    each item; ``key`` may be a list of fields, each holding a key or a list of keys).
    Keys are compared as strings, so ``12`` and ``"12"`` are the same key.
    """
    tables: dict[str, dict[str, str]] = {}
    for table, spec in _read_yaml(game_dir / "text" / "names.yaml").items():
        path = game_dir / spec["file"]
        data: Any = json.loads(path.read_text()) if path.suffix == ".json" else _read_yaml(path)
        for step in str(spec["list"]).split("."):
            data = data[step]
        if isinstance(data, dict):
            tables[table] = {str(key): str(value) for key, value in data.items()}
            continue
        tables[table] = _table(data, spec)
    return tables


def _table(items: Sequence[Mapping[str, Any]], spec: Mapping[str, Any]) -> dict[str, str]:
    """Key -> name for a list of items; ``key`` may name several fields, each a value or a list."""
    fields = spec["key"] if isinstance(spec["key"], list) else [spec["key"]]
    table = {}
    for item in items:
        for key_field in fields:
            keys = item.get(key_field)
            for key in keys if isinstance(keys, list) else [keys]:
                if key is not None:
                    table[str(key)] = str(item[spec["name"]])
    return table


@dataclass(frozen=True)
class Pack:
    """Everything one game says in one language."""

    language: str
    events: dict[str, str]
    moves: dict[str, str]
    words: dict[str, str]
    terms: dict[str, dict[str, str]]
    names: dict[str, dict[str, str]] = field(default_factory=dict)
    costs: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    compiled: dict[tuple[str, str], Template] = field(default_factory=dict)
    # Each template also as a Python function (services.common.sentence_code), None where it stays on Jinja.
    functions: dict[tuple[str, str], sentence_code.Sentence | None] = field(default_factory=dict)

    def template(self, section: str, kind: str) -> Template | None:
        """The compiled template of ``kind`` in ``section`` ("events" or "moves"), if any."""
        found = self.compiled.get((section, kind))
        if found is not None:
            return found
        source = (self.events if section == "events" else self.moves).get(kind)
        if source is None:
            return None
        try:
            found = self.compiled[(section, kind)] = _ENV.from_string(source)
        except TemplateError as error:
            raise TextError(f"{self.language}/{section}/{kind}: template does not compile: {error}") from None
        return found

    def function(self, section: str, kind: str) -> sentence_code.Sentence | None:
        """The template of ``kind`` (which must exist) as a Python function, or None when it stays
        on Jinja (then Jinja compiles it: :meth:`template`)."""
        key = (section, kind)
        if key in self.functions:
            return self.functions[key]
        source = (self.events if section == "events" else self.moves)[kind]
        try:
            found = sentence_code.compile_sentence(_ENV, source, HELPERS)
        except (sentence_code.Unsupported, TemplateError):  # Jinja's compile says what is wrong
            found = None
        self.functions[key] = found
        return found


def load_pack(game_type: str, language: str, seeds: Path = SEEDS) -> Pack:
    """Read the game's and the platform's texts for ``language``."""
    game_dir = seeds / game_type
    platform = _read_yaml(seeds / "platform" / "text" / f"{language}.yaml")
    game = _read_yaml(game_dir / "text" / f"{language}.yaml")
    names = _content_names(game_dir)
    for table, translated in (game.get("names") or {}).items():
        names.setdefault(table, {}).update({str(k): str(v) for k, v in translated.items()})
    terms = {**(platform.get("terms") or {}), **(game.get("terms") or {})}
    events = {**_sources(platform.get("events") or {}), **_sources(game.get("events") or {})}
    return Pack(
        language=language,
        events=events,
        moves=_sources(game.get("moves") or {}),
        words={**(platform.get("words") or {}), **(game.get("words") or {})},
        terms={group: {str(k): str(v) for k, v in table.items()} for group, table in terms.items()},
        names=names,
        costs={str(k): str(v) for k, v in (platform.get("costs") or {}).items()},
        notes={str(k): str(v) for k, v in (platform.get("notes") or {}).items()},
    )


# ---- rendering -----------------------------------------------------------------------


@dataclass(frozen=True)
class Speaker:
    """The helpers a template calls, bound to one pack, one viewer and the game's players."""

    pack: Pack
    viewer: int | None
    players: Sequence[str]

    def me(self, seat: Any) -> bool:
        """Whether ``seat`` is the viewer's own seat."""
        return self.viewer is not None and seat == self.viewer

    def who(self, seat: Any) -> str:
        """The word "you" for the viewer's seat, else the player's name."""
        if self.me(seat):
            return self.pack.words["you"]
        if not isinstance(seat, int) or not 0 <= seat < len(self.players):
            raise TextError(f"no player in seat {seat!r}")
        name = self.players[seat]
        # Such names are refused (services.lobby.names), but a game stored before that may hold
        # one: quoted, "“You” chose …" cannot pass for the reader's own move.
        pronoun = self.pack.words.get("you", "")
        if pronoun and name.strip().casefold() == pronoun.casefold():
            return f"“{name}”"
        return name

    def Who(self, seat: Any) -> str:
        """``who`` at the start of a sentence."""
        word = self.who(seat)
        return word[:1].upper() + word[1:]

    def verb(self, seat: Any, you_form: str, other_form: str) -> str:
        """The verb form agreeing with ``who(seat)``."""
        return you_form if self.me(seat) else other_form

    def name(self, table: str, key: Any, *default: str) -> str:
        """The name of ``key`` in content table ``table``."""
        found = self.pack.names.get(table, {}).get(str(key))
        if found is not None:
            return found
        if default:
            return default[0]
        raise TextError(f"no name for {key!r} in table {table!r}")

    def _forms(self, group: str, key: Any) -> list[str]:
        found = self.pack.terms.get(group, {}).get(str(key))
        if found is None:
            raise TextError(f"no {self.pack.language} term for {key!r} in {group!r}")
        return found.split("|")

    def term(self, group: str, key: Any) -> str:
        """This language's word for an enum value or code (a term written "one|many" gives "one")."""
        return self._forms(group, key)[0]

    def qty(self, group: str, key: Any, number: Any) -> str:
        """``number`` and the term for ``key`` agreeing with it: "2 barrels" from "barrel|barrels"."""
        forms = self._forms(group, key)
        return f"{number} {forms[0] if number == 1 or len(forms) == 1 else forms[1]}"

    def tally(self, group: str, counts: Mapping[str, Any]) -> list[str]:
        """``qty`` of every non-zero count, in the order given."""
        return [self.qty(group, key, number) for key, number in counts.items() if number]

    def terms(self, group: str, keys: Sequence[Any]) -> list[str]:
        """``term`` of each key."""
        return [self.term(group, key) for key in keys]

    def join(self, items: Sequence[Any]) -> str:
        """``a, b and c`` (with this language's "and"); "nobody"-style word when empty."""
        words = [str(item) for item in items]
        if not words:
            return self.pack.words["none"]
        if len(words) == 1:
            return words[0]
        return f"{', '.join(words[:-1])} {self.pack.words['and']} {words[-1]}"

    def people(self, seats: Sequence[Any]) -> str:
        """``who`` of every seat, joined: "you and Asha"."""
        return self.join([self.who(seat) for seat in seats])

    def count(self, number: Any, one: str, many: str) -> str:
        """``1 tile`` or ``3 tiles``."""
        return f"{number} {one if number == 1 else many}"

    def helpers(self) -> dict[str, Callable[..., Any]]:
        """What templates may call."""
        return {
            "me": self.me,
            "who": self.who,
            "Who": self.Who,
            "verb": self.verb,
            "name": self.name,
            "term": self.term,
            "terms": self.terms,
            "qty": self.qty,
            "tally": self.tally,
            "join": self.join,
            "people": self.people,
            "count": self.count,
        }


HELPERS = frozenset(Speaker(Pack(DEFAULT_LANGUAGE, {}, {}, {}, {}), None, []).helpers())


def _kind(message: Mapping[str, Any]) -> tuple[str, Any]:
    if len(message) != 1:
        raise TextError(f"expected one oneof kind, got {sorted(message)}")
    kind, payload = next(iter(message.items()))
    return kind, payload if isinstance(payload, Mapping) else {}


@lru_cache(maxsize=1024)
def _globals_of(template: Template) -> dict[str, Any]:
    """A template's globals as one dict, made once (``Template.render`` merges their chain again on
    every call: ~10 % of a sentence)."""
    return dict(template.globals)


def _jinja(pack: Pack, section: str, kind: str) -> Template:
    """The Jinja template of a kind the pack has (compiled on first use)."""
    template = pack.template(section, kind)
    if template is None:  # not reached: the caller looked the kind up
        raise TextError(f"{pack.language}: no template for {section[:-1]} {kind!r}")
    return template


def _render_fast(
    function: sentence_code.Sentence,
    template: Callable[[], Template],
    speaker: Speaker,
    payload: Mapping[str, Any],
    actor: int | None,
) -> str:
    """The sentence from the template's Python function; Jinja's when the function fails (Jinja,
    compiled only then, says the sentence or the error in its own words: the function is trusted
    only to print what it prints)."""
    try:
        text = function(payload, actor, speaker.viewer, speaker)
    except Exception:  # any failure: Jinja decides
        return _render(template(), speaker, payload, actor)
    return " ".join(text.split())


def _render(template: Template, speaker: Speaker, payload: Mapping[str, Any], actor: int | None) -> str:
    # What Template.render does, the context built from the globals' copy: same names, same output.
    names = {**_globals_of(template), "e": payload, "actor": actor, "viewer": speaker.viewer, **speaker.helpers()}
    try:
        text = concat(template.root_render_func(template.new_context(names, shared=True)))
    except (TemplateError, TypeError, KeyError, IndexError, ValueError, AttributeError, ArithmeticError) as error:
        raise TextError(str(error)) from None
    return " ".join(text.split())


class Sentences:
    """One game's sentences in every supported language."""

    def __init__(self, game_type: str, seeds: Path = SEEDS) -> None:
        self.game_type = game_type
        self.packs = {language: load_pack(game_type, language, seeds) for language in LANGUAGES}
        # A sentence depends only on what it is rendered from, and a template takes a millisecond
        # or two: the same legal moves and events are listed again and again, so keep the words.
        self._said: OrderedDict[tuple[Any, ...], str] = OrderedDict()
        # Every legal move of every seat is priced again after each commit, from a handful of prices.
        self._priced: dict[tuple[str, bytes], str] = {}
        self._speakers: dict[tuple[str, int | None, tuple[str, ...]], Speaker] = {}

    def _pack(self, language: str) -> Pack:
        return self.packs.get(language) or self.packs[DEFAULT_LANGUAGE]

    def _speaker(self, language: str, viewer: int | None, players: tuple[str, ...]) -> Speaker:
        """The (frozen) speaker for one viewer and one game's players, made once."""
        key = (language, viewer, players)
        speaker = self._speakers.get(key)
        if speaker is None:
            if len(self._speakers) >= SPEAKERS_CAPACITY:
                self._speakers.clear()
            speaker = self._speakers[key] = Speaker(self._pack(language), viewer, players)
        return speaker

    def _text(
        self,
        section: str,
        message: Mapping[str, Any],
        viewer: int | None,
        players: Sequence[str],
        actor: int | None,
        language: str,
    ) -> str:
        seated = tuple(players)
        key = (section, orjson.dumps(message, option=orjson.OPT_SORT_KEYS), viewer, seated, actor, language)
        said = self._said.get(key)
        if said is not None:
            return said
        speaker = self._speaker(language, viewer, seated)
        pack = speaker.pack
        kind, payload = _kind(message)
        if kind not in (pack.events if section == "events" else pack.moves):
            raise TextError(f"{self.game_type}/{pack.language}: no template for {section[:-1]} {kind!r}")
        function = pack.function(section, kind)
        if function is None:
            said = _render(_jinja(pack, section, kind), speaker, payload, actor)
        else:
            said = _render_fast(function, lambda: _jinja(pack, section, kind), speaker, payload, actor)
        self._said[key] = said
        if len(self._said) > SAID_CAPACITY:
            self._said.popitem(last=False)
        return said

    def event_text(
        self,
        event: Mapping[str, Any],
        viewer: int | None,
        players: Sequence[str],
        actor: int | None = None,
        language: str = DEFAULT_LANGUAGE,
    ) -> str:
        """The sentence for ``event`` (already redacted for ``viewer``); ``actor`` made the move."""
        return self._text("events", event, viewer, players, actor, language)

    def move_text(
        self, move: Mapping[str, Any], seat: int, players: Sequence[str], language: str = DEFAULT_LANGUAGE
    ) -> str:
        """The sentence for one of ``seat``'s legal moves, addressed to that seat."""
        return self._text("moves", move, seat, players, seat, language)

    def cost_text(self, costs: Sequence[Mapping[str, Any]], language: str = DEFAULT_LANGUAGE) -> str:
        """What a move costs as a sentence ("Costs 3 points."), then any warning (``notes``: a
        worker that could not act), or "" for a free move."""
        if not costs:
            return ""
        try:  # the JSON tells 1 from True and 1.0, as the words do
            key = (language, orjson.dumps(costs))
        except TypeError:
            return self._price(costs, language)
        price = self._priced.get(key)
        if price is None:
            if len(self._priced) >= PRICED_CAPACITY:
                self._priced.clear()
            price = self._priced[key] = self._price(costs, language)
        return price

    def _price(self, costs: Sequence[Mapping[str, Any]], language: str) -> str:
        pack = self._pack(language)
        phrases, notes = [], []
        for cost in costs:
            what = str(cost["what"])
            if what in pack.notes:
                notes.append(pack.notes[what])
                continue
            form = pack.costs.get(what)
            if form is None:
                raise TextError(f"{pack.language}: no words for a cost in {what!r}")
            one, _, many = form.partition("|")
            phrases.append((one if cost["amount"] == 1 else many or one).format(n=cost["amount"]))
        price = f"{pack.costs.get('intro', '')} {Speaker(pack, None, []).join(phrases)}." if phrases else ""
        return " ".join([price.strip(), *notes]).strip()

    def compile_all(self) -> None:
        """Compile every template now (raises :class:`TextError` naming the first that fails)."""
        for pack in self.packs.values():
            for kind in pack.events:
                pack.template("events", kind)
            for kind in pack.moves:
                pack.template("moves", kind)

    def missing(self, section: str, kinds: Sequence[str]) -> list[str]:
        """``game/language/section/kind`` for every kind without a template."""
        gaps = []
        for language, pack in self.packs.items():
            have = pack.events if section == "events" else pack.moves
            gaps += [f"{self.game_type}/{language}/{section}/{kind}" for kind in kinds if kind not in have]
        return gaps


@cache
def sentences_for(game_type: str) -> Sentences:
    """The (shared, read-only) sentences of ``game_type``."""
    return Sentences(game_type)

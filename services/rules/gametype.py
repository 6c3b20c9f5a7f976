"""What ``GetGameType`` and ``GetRules`` say: the game's name, its options in words, its rules.

The words are data, like sentences (:mod:`services.common.sentences`): ``seeds/<game>/text/
<language>.yaml`` holds ``game`` (the game's name in that language) and ``options`` (per option
field: ``title``, ``description`` and, for options with a fixed set of values, ``values``: each
value printed as its JSON holds it -> its words).  ``terms`` are the sentence packs' words for
codes (a table shows them instead of the code), and the names of content (a building, an area)
in the reader's language.  The rules are Markdown in ``seeds/<game>/rules/<language>.md``:
a title, then two level-2 parts, "Quick start" and "Reference" ("Inicio rápido" and
"Referencia" in Spanish), 800-2,000 words, whose numbers ``tests/words/test_rules_texts.py``
checks against the game's content files.  An option without words is answered with its field name
(the tests that scan for code names catch it), never with an error.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

from chaiwala.v1 import rules_pb2
from services.common import errors, sentences
from services.common.engine import Engine
from services.common.registry import unit_for


@cache
def _words(game_type: str, language: str, seeds: Path = sentences.SEEDS) -> dict[str, Any]:
    path = seeds / game_type / "text" / f"{language}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else None
    return data if isinstance(data, dict) else {}


def _printed(value: Any) -> str:
    """An option value as the words' ``values`` keys hold it: JSON's ``true``/``false``, numbers as digits."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def option_words(game_type: str, defaults: dict[str, Any], language: str) -> list[rules_pb2.OptionWords]:
    """Every option of ``defaults`` in words, in the order the game's words list them (others last)."""
    said = _words(game_type, language).get("options") or {}
    order = [key for key in said if key in defaults] + [key for key in defaults if key not in said]
    out = []
    for key in order:
        spec = said.get(key) or {}
        values = spec.get("values") or {}
        out.append(
            rules_pb2.OptionWords(
                option=key,
                title=str(spec.get("title", key)),
                description=str(spec.get("description", "")),
                values=[rules_pb2.OptionValue(value=_printed(v), title=str(t)) for v, t in values.items()],
            )
        )
    return out


def game_terms(game_type: str, language: str) -> dict[str, rules_pb2.Terms]:
    """The game's ``terms`` (the sentences' words for codes), each in its singular form.

    The names of content (a Tea & Rum building, an Alubari area) come along as groups of their
    own, so a table can name a card its state holds only by code in the reader's language.
    """
    pack = sentences.sentences_for(game_type).packs.get(language) or sentences.sentences_for(game_type).packs["en"]
    return {
        group: rules_pb2.Terms(words={key: word.split("|")[0] for key, word in table.items()})
        for group, table in {**pack.names, **pack.terms}.items()
    }


def game_type_message(engine: Engine, options: Any, bots: list[str], language: str) -> rules_pb2.GameType:
    """``GetGameType``'s answer in ``language``: ids and counts, packed default options, their words."""
    defaults = engine.default_options()
    return rules_pb2.GameType(
        terms=game_terms(engine.game_type, language),
        id=engine.game_type,
        name=engine.name,
        min_players=engine.min_players,
        max_players=engine.max_players,
        options=options,
        bots=bots,
        title=str(_words(engine.game_type, language).get("game", engine.name)),
        option_words=option_words(engine.game_type, defaults, language),
        table=unit_for(engine.game_type).table,
    )


@cache
def _summary(game_type: str, language: str, seeds: Path = sentences.SEEDS) -> str | None:
    path = seeds / game_type / "rules" / f"{language}.md"
    return path.read_text(encoding="utf-8") if path.exists() else None


def rules_summary(game_type: str, language: str) -> rules_pb2.RulesSummary:
    """The game's rules summary in ``language`` (English when that language has none)."""
    for candidate in (language, sentences.DEFAULT_LANGUAGE):
        text = _summary(game_type, candidate)
        if text is not None:
            return rules_pb2.RulesSummary(game_type=game_type, language=candidate, markdown=text)
    raise errors.not_found(f"no rules summary for {game_type!r}")

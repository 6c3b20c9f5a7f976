"""The rules texts a newcomer plays from (issue #42, item 5): every registered game, in every language.

Each ``seeds/<game>/rules/<language>.md`` holds a quick start and a reference (two level-2 headings),
800-2,000 words in all, and the numbers a decision needs are read here from the game's own content
files and compared with the text's tables and sentences, so the text cannot drift from the data:
a changed price, multiplier or threshold fails this test until the rules say it too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.common import registry, sentences
from services.rules import gametype

SEEDS: Path = sentences.SEEDS
LANGUAGES = ("en", "es")
PARTS = {"en": ("Quick start", "Reference"), "es": ("Inicio rápido", "Referencia")}
QUICK_START_MAX_WORDS = 650  # one screen or printed page


def _words(text: str) -> int:
    return len(re.findall(r"[0-9A-Za-zÀ-ÿ½]+(?:[’'.,][0-9A-Za-zÀ-ÿ]+)*", text))


def _parts(text: str, language: str) -> tuple[str, str]:
    """The quick start and the reference of a text (each from its level-2 heading to the next)."""
    quick, reference = (f"## {name}\n" for name in PARTS[language])
    assert text.count(quick) == 1 and text.count(reference) == 1, f"both parts, once each ({language})"
    start, middle = text.index(quick), text.index(reference)
    assert start < middle, "the quick start comes first"
    return text[start:middle], text[middle:]


def _rows(text: str) -> list[list[str]]:
    """Every row of every Markdown table of ``text`` (head rows included, separator rows not)."""
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("|") and not re.fullmatch(r"\|[\s|:-]+\|", line):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _row(text: str, first: str, width: int | None = None) -> list[str]:
    """The table row whose first cell is ``first`` (of ``width`` cells, when two tables share a first cell)."""
    found = [row for row in _rows(text) if row[0] == first and width in (None, len(row))]
    assert len(found) == 1, f"one table row starting {first!r}, found {len(found)}"
    return found[0]


def _yaml(game: str, name: str) -> Any:
    return yaml.safe_load((SEEDS / game / name).read_text(encoding="utf-8"))


def _json(game: str, name: str) -> Any:
    return json.loads((SEEDS / game / name).read_text(encoding="utf-8"))


def _signed(value: int) -> str:
    """A work-rate change as the weather table prints it."""
    return "—" if value == 0 else (f"+{value}" if value > 0 else f"−{-value}")


def _alubari(text: str, language: str) -> None:
    board = _yaml("alubari", "board.yaml")
    order = board["action_areas"]["order"]
    area_rows = [row for row in _rows(text) if re.match(r"^[A-G] \S", row[0])]
    assert [row[0][0] for row in area_rows] == order, "every action area A-G, in order, once"
    spaces = board["action_areas"]["spaces"]
    for label, count in (("1–2", "2"), ("3", "3"), ("4", "4"), ("5", "5")):
        assert _row(text, label, 1 + len(order))[1:] == [str(spaces[count][area]) for area in order], (
            f"spaces at {label} players"
        )
    assert spaces["1"] == spaces["2"]
    names = {
        "en": {"SUN": "Sun", "RAIN": "Rain", "FOG": "Fog"},
        "es": {"SUN": "Sol", "RAIN": "Lluvia", "FOG": "Niebla"},
    }
    for weather, key in ((k, v) for k, v in board["weather_key"].items() if k != "provenance"):
        row = _row(text, names[language][weather])
        assert row[1:4] == [_signed(key[track]) for track in ("excavation", "lay_track", "crop_harvest")], weather
    restock = [str(board["restock_count"][str(n)]) for n in range(1, 6)]
    assert ", ".join(restock[:-1]) + f" {'or' if language == 'en' else 'o'} {restock[-1]}" in text
    trim = board["stockyard_trim"]
    assert f"{trim['iron_ore']} " in text and f"{trim['stone']} " in text
    points = board["chai_track"]["points"]
    assert f"0 {'to' if language == 'en' else 'a'} 10, " in text and ", ".join(map(str, points[11:])) in text
    assert points[:11] == list(range(11))
    scoring = board["scoring"]
    assert f"{scoring['equipment_points']} " in _row(text, "Equipment" if language == "en" else "Equipos", 2)[1]
    assert f"{scoring['very_fine_train_extra']} " in _row(text, "Equipment" if language == "en" else "Equipos", 2)[1]
    rates = board["work_rates"]
    excavation = _row(text, "Excavation" if language == "en" else "Excavación")
    assert f"{rates['excavation']['min']} " in excavation[1] and excavation[2] == str(rates["excavation"]["start"])
    lay = _row(text, "Lay Track" if language == "en" else "Tender vía")
    assert lay[1].endswith(str(rates["lay_track"]["max"])) and lay[2] == str(rates["lay_track"]["start"])
    railway = _yaml("alubari", "railway.yaml")
    track = sum(segment["spaces"] for segment in railway["segments"])
    assert f"**{track} " in _parts(text, language)[0], "the railway's length in the quick start"
    for item in _yaml("alubari", "equipment.yaml")["equipment"]:
        short = item["name"].split(" D Class")[0]
        assert any(row[0] == short for row in _rows(text)), f"equipment {short!r} in the table"


def _darjeeling(text: str, language: str) -> None:
    wharf = _yaml("darjeeling", "wharf.yaml")
    quick = _parts(text, language)[0]
    assert f"**{wharf['goal']['points']}**" in quick, "the end score in the quick start"
    for strip in wharf["strips"]:
        row = _row(text, str(strip["players"]))
        ships = len(strip["multipliers"])
        water = wharf["berths"]["count"] - ships
        assert row[1:] == [str(ships), ", ".join(map(str, strip["multipliers"])), str(water)], strip
        assert water <= wharf["water_tiles"]["count"]
    costs = _yaml("darjeeling", "costs.yaml")
    assert f"**{costs['turn_back']['points']} " in quick and f"**{costs['pass_tile']['points']} " in quick
    assert f"**{costs['quantity_bonus_from']['crates']}**" in text
    assert f"**{costs['half_crate_penalty']['points']} " in quick
    varieties = {"en": ["black", "green", "white", "red"], "es": ["negro", "verde", "blanco", "rojo"]}[language]
    tiles = _yaml("darjeeling", "tiles.yaml")
    for name, variety in zip(varieties, tiles["varieties"], strict=True):
        halves = [variety["one_half"], variety["two_halves"], variety["three_halves"]]
        assert _row(text, name)[1:] == [*map(str, halves), str(sum(halves))], name
    assert f"**{tiles['total']['count']}**" in text
    assert f"**{len(_yaml('darjeeling', 'action_tiles.yaml')['tiles'])}**" in text


def _india_rails(text: str, language: str) -> None:
    costs = _json("india_rails", "costs.json")
    quick = _parts(text, language)[0]
    assert f"**{costs['winning_cash']['cost']}M**" in quick, "the cash to win in the quick start"
    cities = _json("india_rails", "cities.json")["cities"]
    majors = [city["name"] for city in cities if city.get("major")]
    assert f"**{len(majors)} " in quick, "the number of major cities in the quick start"
    if language == "en":
        assert all(name in quick for name in majors)
    assert f"{len(cities)} " in text
    labels = {
        "en": {"clear": "clear", "mountain": "mountain", "desert": "desert", "salt_flat": "salt flat",
               "city": "small or medium city", "alpine": "alpine", "major": "major city"},
        "es": {"clear": "llano", "mountain": "montaña", "desert": "desierto", "salt_flat": "salina",
               "city": "ciudad pequeña o mediana", "alpine": "alta montaña (alpino)", "major": "ciudad principal"},
    }[language]  # fmt: skip
    for terrain, spec in costs["build"].items():
        assert _row(text, labels[terrain])[1] == f"{spec['cost']}M", terrain
    assert f"+{costs['river_surcharge']['cost']}M" in text and f"+{costs['strait_surcharge']['cost']}M" in text
    for key in ("starting_cash", "tie_raise", "turn_budget", "track_fee", "loan_limit", "fast_game_cash"):
        assert f"{costs[key]['cost']}M" in text, key
    locos = _json("india_rails", "locos.json")
    names = {"freight": "Freight", "fast_freight": "Fast Freight", "heavy_freight": "Heavy Freight",
             "super_freight": "Super Freight"}  # fmt: skip
    for kind, spec in locos["types"].items():
        row = next(row for row in _rows(text) if row[0].split(" (")[0] == names[kind])
        assert row[1:3] == [str(spec["speed"]), str(spec["capacity"])], kind
        if kind != "freight":
            assert row[3].endswith(f"{locos['upgrade_cost']}M"), kind
    assert f"{locos['crossgrade_cost']}M" in text
    events = _json("india_rails", "events.json")["events"]
    for kind in ("derailment", "flood", "strike", "sandstorm"):
        count = sum(1 for event in events if event["kind"] == kind)
        assert any(row[1] == str(count) for row in _rows(text)), f"{count} {kind} cards"
    assert f"{costs['derailment_radius']['cost']} " in text
    assert str(costs["city_entry_limit"]["small"]) in text and str(costs["city_entry_limit"]["medium"]) in text


def _tea_rum(text: str, language: str) -> None:
    rules = _yaml("tea_rum", "rules.yaml")
    quick = _parts(text, language)[0]
    assert f"**{rules['vp_gap_cap']['max_gap']}**" in quick, "the 10-point rule in the quick start"
    assert f"**{rules['chest_threshold']['blue']}**" in quick and f"**{rules['rounds']}**" in quick
    goods = {"en": ["wheat", "wood", "ore", "barrel", "tobacco", "cannon"],
             "es": ["trigo", "madera", "mineral", "barril", "tabaco", "cañón"]}[language]  # fmt: skip
    for name, resource in zip(goods, rules["resources"], strict=True):
        assert _row(text, name)[1:] == [f"${resource['base_price']}", str(resource["supply"])], name
    trade = rules["trade"]
    assert f"**+${trade['sell_plate_bonus']}**" in text and f"**−${trade['buy_plate_discount']}**" in text
    warehouse = rules["warehouse"]
    prices = [f"${cost}" for cost in warehouse["expansion_costs"]]
    joined = ", ".join(prices[:-1]) + (" and " if language == "en" else " y ") + prices[-1]
    assert f"**{warehouse['base_spaces']}**" in text and f"**{joined}**" in text
    assert f"**{rules['population']['start']}**" in text and f"{rules['population']['max']})" in text
    assert f"**{len(rules['reputation_track']['steps'])}**" in text
    assert f"**${rules['end_game_exchange']['coins']}**" in text
    cards = _yaml("tea_rum", "cards.yaml")
    rewards = cards["wish_rewards"]
    assert _row(text, "first" if language == "en" else "primero")[1:] == [str(r["first"]) for r in rewards]
    assert _row(text, "second" if language == "en" else "segundo")[1:] == [str(r["second"]) for r in rewards]
    for allegiance in cards["allegiances"]:
        assert _row(text, str(allegiance["id"]), 3)[2] == str(allegiance["red"]), allegiance["id"]
    capacity = rules["board_capacity"]
    assert f"**{capacity['2']}**" in text and f"**{capacity['4']}**" in text
    victory = rules["automa"]["victory_type_cards"]
    assert f"{victory.count('blue')} " in text and f"{victory.count('red')} " in text
    assert f"{len(rules['automa']['tokens']) // 4}" in text and f"{rules['workers_per_player']} " in text


CHECKS: dict[str, Callable[[str, str], None]] = {
    "alubari": _alubari,
    "darjeeling": _darjeeling,
    "india_rails": _india_rails,
    "tea_rum": _tea_rum,
}


def test_every_registered_game_has_its_number_checks() -> None:
    assert sorted(CHECKS) == sorted(registry.game_types())


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", sorted(registry.game_types()))
def test_rules_text_has_both_parts_its_length_and_the_content_numbers(game: str, language: str) -> None:
    answer = gametype.rules_summary(game, language)
    assert answer.language == language, f"{game} has rules in {language}"
    text = answer.markdown
    assert text.startswith("# ")
    quick, reference = _parts(text, language)
    assert 800 <= _words(text) <= 2000, f"{game}/{language}: {_words(text)} words"
    assert _words(quick) <= QUICK_START_MAX_WORDS, f"{game}/{language}: quick start of {_words(quick)} words"
    assert _rows(reference), "the reference has tables"
    for row in _rows(text):
        assert all(row), f"no empty cell: {row}"
    CHECKS[game](text, language)


def test_the_checks_see_a_drifted_number() -> None:
    """A text whose India Rails desert price differs from costs.json fails (the checks are live)."""
    text = gametype.rules_summary("india_rails", "en").markdown.replace("| desert | 2M |", "| desert | 3M |")
    with pytest.raises(AssertionError, match="desert"):
        _india_rails(text, "en")

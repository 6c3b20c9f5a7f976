"""The content matches the rulebook's component counts and keeps the numbers it prints."""

from __future__ import annotations

from collections import Counter

import yaml

from services.tea_rum.content import ACTION_KINDS, CONTENT, SEEDS

RULEBOOK_BUILDINGS = {
    "Church", "Academy", "Architects' Guild", "Warehouse", "Bathhouse", "Washhouse", "City Hall", "Inn",
    "Watchtower", "Fort", "Palace", "Statue", "Tobacco Dryer", "Distillery", "Dispensary", "Public Latrines",
    "Hotel", "Gambling Den", "Foundry", "Barracks", "Town Square", "Workshop", "Well", "Great Hall", "Prison",
}


def test_component_counts() -> None:
    assert Counter(c["round"] for c in CONTENT.captains.values()) == {1: 6, 2: 6, 3: 6, 4: 6, 5: 6}
    assert {b["name"] for b in CONTENT.buildings.values()} == RULEBOOK_BUILDINGS
    assert sorted(Counter(b["colour"] for b in CONTENT.buildings.values()).values()) == [5] * 5
    assert len(CONTENT.contracts) == 18
    assert len(CONTENT.allegiances) == 10
    assert len(CONTENT.endowments) == 6
    assert len(CONTENT.ships) == 9
    assert len(CONTENT.wishes) == 9
    assert sorted(CONTENT.wish_rewards) == [1, 2, 3, 4, 5]
    assert len(CONTENT.boards) == 4 and len(CONTENT.tiles) == 16
    for board in CONTENT.boards:
        blanks = [t for t in board["tiles"] if CONTENT.tiles[t]["two_three"] is None]
        assert len(board["tiles"]) == 4 and len(blanks) == 1
    assert sum(1 for b in CONTENT.boards if b["fountain"]) == 1
    assert CONTENT.rules["warehouse"]["expansion_costs"] == [1, 1, 1, 2, 2, 3]
    assert len(CONTENT.rules["automa"]["tokens"]) == 8
    assert len(CONTENT.rules["automa"]["victory_type_cards"]) == 6


def test_every_item_says_where_it_comes_from() -> None:
    cards = yaml.safe_load((SEEDS / "cards.yaml").read_text(encoding="utf-8"))
    for section in ("captains", "buildings", "contracts", "allegiances", "endowments", "ships", "wishes",
                    "wish_rewards", "action_boards"):
        for item in cards[section]:
            assert item["provenance"] in ("rulebook", "designed"), (section, item)
    rules = yaml.safe_load((SEEDS / "rules.yaml").read_text(encoding="utf-8"))
    for item in rules["resources"]:
        assert item["provenance"] in ("rulebook", "designed")


def test_numbers_printed_in_the_rulebook_are_kept() -> None:
    assert {r: CONTENT.prices[r] for r in ("wheat", "wood", "ore", "cannon")} == {
        "wheat": 2, "wood": 3, "ore": 4, "cannon": 7,
    }
    one, two, three = CONTENT.captains[1], CONTENT.captains[2], CONTENT.captains[3]
    assert one["cost"] == {"coins": 3} and one["cannons"] == 1
    assert one["instant"] == [{"kind": "stars", "amount": 1, "options": []}]
    assert one["reward"] == [{"kind": "blue", "amount": 2, "options": []}]
    assert two["cost"] == {"coins": 3} and two["cannons"] == 0
    assert three["cost"] == {"wood": 2} and [g["kind"] for g in three["instant"]] == ["stars", "wheat"]
    assert three["reward"] == [{"kind": "blue", "amount": 3, "options": []}]
    assert CONTENT.buildings["church"]["continuous"] == {"income_coins": 3}
    assert CONTENT.buildings["statue"]["vp"] == [{"kind": "blue", "amount": 4, "options": []}]
    assert CONTENT.buildings["palace"]["continuous"] == {"governor_blue": 1}
    assert CONTENT.allegiances[2]["condition"] == {"population": 19}
    assert CONTENT.allegiances[4]["condition"] == {"reputation": 20}
    assert CONTENT.allegiances[5]["condition"] == {"buildings": 5, "captains": 4, "contracts": 3}
    assert CONTENT.allegiances[6]["condition"] == {"vp_gap": 5}
    assert CONTENT.reputation_max >= 20


def test_starting_money_never_ties() -> None:
    coins = [e["coins"] for e in CONTENT.endowments.values()]
    assert len(set(coins)) == len(coins)


def test_an_action_on_a_row_is_always_its_first_icon() -> None:
    # A row is offered only if its action can be carried out now: nothing on the row itself could
    # pay for the action, since every icon after it resolves later.
    for tile in CONTENT.tiles.values():
        for face in (tile["four"], tile["two_three"]):
            for option in face or []:
                kinds = [g["kind"] for g in option]
                actions = [i for i, k in enumerate(kinds) if k in ACTION_KINDS]
                assert actions in ([], [0]), (tile, option)

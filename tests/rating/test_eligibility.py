"""Who may be rated, the issuer a rated id shows, and when a rating is provisional (pure)."""

from __future__ import annotations

import pytest

from services.common.errors import ServiceError
from services.rating.eligibility import check_may_be_rated, is_provisional, issuer_of, may_be_rated
from services.rating.model import Rating
from services.rating.settings import RatingSettings

OFF = RatingSettings(rated_guests=False)
ON = RatingSettings(rated_guests=True)


def test_guests_are_rated_only_when_the_operator_allows_it() -> None:
    for external_id in ("acme:42", "bot:heuristic", "platform-7", "guestbook:1"):
        assert may_be_rated(external_id, OFF) and may_be_rated(external_id, ON)
    assert not may_be_rated("guest:3kqQ", OFF) and may_be_rated("guest:3kqQ", ON)
    with pytest.raises(ServiceError) as refused:
        check_may_be_rated("guest:3kqQ", OFF)
    assert refused.value.code == "identity_not_rated"
    check_may_be_rated("", OFF)  # no identity at all is identity_required's question, not this one


def test_the_issuer_is_the_guest_the_bot_the_platforms_alias_or_the_operator() -> None:
    aliases = frozenset({"acme", "globex"})
    cases = {"guest:3kq": "guest", "bot:random": "bot", "acme:42": "acme", "globex:a@b": "globex",
             "initech:9": "operator", "plain-id": "operator"}  # fmt: skip
    assert {external_id: issuer_of(external_id, aliases) for external_id in cases} == cases


def test_a_rating_is_provisional_with_few_games_or_a_wide_sigma() -> None:
    chosen = RatingSettings(provisional_games=10, provisional_sigma=6.5)
    assert is_provisional(Rating("a", "A", 30.0, 5.0, games=9), chosen)  # too few games
    assert is_provisional(Rating("a", "A", 30.0, 7.0, games=40), chosen)  # sigma too wide
    assert not is_provisional(Rating("a", "A", 30.0, 6.5, games=10), chosen)

"""The matching rules on their own (services/matchmaking/matching.py): pure functions, exact answers."""

from __future__ import annotations

import random

from services.matchmaking.matching import Policy, band, fits, form_groups
from services.matchmaking.model import PoolSpec, Ticket

POOL = PoolSpec("darjeeling", None, False, {})
POLICY = Policy(band_base=3, band_per_second=0.5, band_max=40, smaller_after_ms=30_000, rematch_after_ms=60_000)
NOW = 1_000_000


def ticket(n: int, counts: list[int], waited_s: float = 0, rating: float = 25, bots_after: int | None = None,
           player: str = "") -> Ticket:  # fmt: skip
    created = NOW - int(waited_s * 1000)
    return Ticket(f"t{n}", player or f"p{n}", f"P{n}", POOL, counts, bots_after, "random", rating, created,
                  created + 600_000)  # fmt: skip


def test_the_band_widens_with_the_wait_up_to_its_cap() -> None:
    assert band(POLICY, 0) == 3
    assert band(POLICY, 10_000) == 8
    assert band(POLICY, 1_000_000) == 40


def test_two_players_of_two_form_at_once() -> None:
    groups = form_groups([ticket(1, [2]), ticket(2, [2])], NOW, POLICY)
    assert [[t.ticket_id for t in g.tickets] for g in groups] == [["t1", "t2"]]
    assert groups[0].size == 2 and groups[0].bots == 0


def test_the_largest_shared_size_first_and_a_smaller_one_only_after_the_wait() -> None:
    four = [ticket(n, [3, 4]) for n in range(4)]
    assert [g.size for g in form_groups(four, NOW, POLICY)] == [4]
    three = [ticket(n, [3, 4], waited_s=10) for n in range(3)]
    assert form_groups(three, NOW, POLICY) == []
    waited = [ticket(n, [3, 4], waited_s=31) for n in range(3)]
    assert [g.size for g in form_groups(waited, NOW, POLICY)] == [3]


def test_sizes_must_be_shared_by_everyone() -> None:
    groups = form_groups([ticket(1, [4]), ticket(2, [2]), ticket(3, [2])], NOW, POLICY)
    assert [[t.ticket_id for t in g.tickets] for g in groups] == [["t2", "t3"]]


def test_far_ratings_wait_for_both_bands() -> None:
    near, far = ticket(1, [2], rating=25), ticket(2, [2], rating=35)
    assert not fits(near, far, NOW, POLICY, {})
    # band(w) = 3 + 0.5 w: a gap of 10 needs both to have waited 14 s; one long wait is not enough.
    assert not fits(ticket(1, [2], waited_s=60, rating=25), ticket(2, [2], waited_s=10, rating=35), NOW, POLICY, {})
    assert fits(ticket(1, [2], waited_s=14, rating=25), ticket(2, [2], waited_s=14, rating=35), NOW, POLICY, {})


def test_players_who_just_played_wait_for_others_first() -> None:
    recent = {"p1": frozenset({"p2"}), "p2": frozenset({"p1"})}
    pair = [ticket(1, [2], waited_s=5), ticket(2, [2], waited_s=5)]
    assert form_groups(pair, NOW, POLICY, recent) == []
    with_other = [*pair, ticket(3, [2], waited_s=1)]
    assert [[t.ticket_id for t in g.tickets] for g in form_groups(with_other, NOW, POLICY, recent)] == [["t1", "t3"]]
    long_wait = [ticket(1, [2], waited_s=61), ticket(2, [2], waited_s=61)]
    assert len(form_groups(long_wait, NOW, POLICY, recent)) == 1


def test_bots_fill_after_everyone_waited_their_own_wait() -> None:
    assert form_groups([ticket(1, [3], waited_s=5, bots_after=10)], NOW, POLICY) == []
    (group,) = form_groups([ticket(1, [3], waited_s=11, bots_after=10)], NOW, POLICY)
    assert group.size == 3 and group.bots == 2 and group.bot == "random"
    mixed = [ticket(1, [4], waited_s=20, bots_after=10), ticket(2, [4], waited_s=20)]
    assert form_groups(mixed, NOW, POLICY) == []  # the second never allowed bots


def test_no_ticket_is_in_two_groups_and_groups_respect_every_rule() -> None:
    rng = random.Random(7)
    tickets = [ticket(n, sorted(rng.sample([2, 3, 4], rng.randint(1, 3))), waited_s=rng.uniform(0, 90),
                      rating=rng.gauss(25, 8), bots_after=rng.choice([None, 30]), player=f"p{n % 150}")
               for n in range(300)]  # fmt: skip
    tickets.sort(key=lambda t: t.created_ms)
    groups = form_groups(tickets, NOW, POLICY)
    seated = [t.ticket_id for g in groups for t in g.tickets]
    assert groups and len(seated) == len(set(seated))
    for group in groups:
        assert all(group.size in t.player_counts for t in group.tickets)
        assert len({t.player_id for t in group.tickets}) == len(group.tickets)
        for a in group.tickets:
            assert all(a is b or fits(a, b, NOW, POLICY, {}) for b in group.tickets)

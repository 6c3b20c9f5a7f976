"""Forming groups from one pool's searching tickets: pure, no I/O (the matcher loop and the benchmark's
simulation both drive this same code).

The rules, in order of precedence:

* **Oldest first.** Tickets are taken as anchors in the order they were made; an anchor gathers the
  next oldest tickets that fit with it and with everyone already gathered.
* **Sizes.** Every member must accept the group's size; the set of sizes all accept shrinks as members
  join, and a ticket that shares none with the group is passed over.  The largest size all accept is
  formed as soon as there are players for it.
* **Rating band.** Two tickets fit when their ratings (the rating ledger's ``mu`` for the game type,
  25 for a player never rated) differ by at most the *narrower* of their two bands, each ticket's band
  widening with the time it has waited::

      band(w) = min(band_max, band_base + band_per_second * w)      (w in seconds)

  With the defaults (3, 0.25, 50) a new ticket sees players within 3 points, 18 after a minute and
  anyone (50) after 3 minutes 8 seconds.
* **No immediate rematch.** Players seated together within ``recent_window`` are not paired again
  until both have waited ``rematch_after`` (others get the chance first).
* **Bots.** When the humans gathered are fewer than the largest size and every one of them allows
  bots and has waited its own ``bots_after_seconds``, bots fill the table to the largest size.
* **Smaller tables.** Otherwise, once every gathered player has waited ``smaller_after``, the largest
  accepted size that the gathered players can fill forms (its oldest players).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from services.matchmaking.model import Group, Ticket

NO_ONE: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Policy:
    """The matching policy (from :class:`services.matchmaking.settings.MatchmakingSettings`)."""

    band_base: float = 3.0
    band_per_second: float = 0.25
    band_max: float = 50.0
    smaller_after_ms: int = 30_000
    rematch_after_ms: int = 60_000
    # Candidates an anchor examines (bounds a pass's work in a large pool).
    scan: int = 400


def band(policy: Policy, waited_ms: int) -> float:
    """The rating band of a ticket that has waited ``waited_ms`` (see the module docstring)."""
    return min(policy.band_max, policy.band_base + policy.band_per_second * waited_ms / 1000)


def fits(a: Ticket, b: Ticket, now_ms: int, policy: Policy, recent: Mapping[str, frozenset[str]]) -> bool:
    """Whether two tickets may share a table now: ratings within both bands, not a pair that just played."""
    if a.player_id == b.player_id:
        return False
    waited_a, waited_b = a.waited_ms(now_ms), b.waited_ms(now_ms)
    if abs(a.rating - b.rating) > min(band(policy, waited_a), band(policy, waited_b)):
        return False
    just_played = b.player_id in recent.get(a.player_id, NO_ONE) or a.player_id in recent.get(b.player_id, NO_ONE)
    return not just_played or min(waited_a, waited_b) >= policy.rematch_after_ms


def _gather(anchor: Ticket, candidates: Sequence[Ticket], now_ms: int, policy: Policy,
            recent: Mapping[str, frozenset[str]]) -> tuple[list[Ticket], set[int]]:  # fmt: skip
    """The anchor and the oldest candidates that fit with every member, up to the largest shared size."""
    members, sizes = [anchor], set(anchor.player_counts)
    for ticket in candidates:
        if len(members) >= max(sizes):
            break
        shared = sizes & set(ticket.player_counts)
        if not shared or max(shared) <= len(members):
            continue
        if all(fits(member, ticket, now_ms, policy, recent) for member in members):
            members.append(ticket)
            sizes = shared
    return members, sizes


def _decide(members: list[Ticket], sizes: set[int], now_ms: int, policy: Policy) -> Group | None:
    """The group the gathered players form now, if any (full size, bots, or a smaller size)."""
    largest = max(sizes)
    if len(members) >= largest:
        return Group(tuple(members[:largest]), largest)
    if all(t.bots_after_s is not None and t.waited_ms(now_ms) >= t.bots_after_s * 1000 for t in members):
        return Group(tuple(members), largest, bot=members[0].bot)
    if all(t.waited_ms(now_ms) >= policy.smaller_after_ms for t in members):
        smaller = [size for size in sizes if size <= len(members)]
        if smaller:
            return Group(tuple(members[: max(smaller)]), max(smaller))
    return None


class _Candidates:
    """Who an anchor may look at: younger tickets no group took yet, found through a rating index, so a
    pass over a pool whose ratings are spread wide costs little more than reading it."""

    def __init__(self, tickets: Sequence[Ticket], policy: Policy) -> None:
        self.tickets = tickets
        self.policy = policy
        self.by_rating = sorted(range(len(tickets)), key=lambda i: tickets[i].rating)
        self.ratings = [tickets[i].rating for i in self.by_rating]

    def of(self, index: int, now_ms: int, used: set[str]) -> list[Ticket]:
        """Up to ``policy.scan`` tickets younger than ``tickets[index]``, oldest first, that could fit it."""
        anchor, tickets, scan = self.tickets[index], self.tickets, self.policy.scan
        width = band(self.policy, anchor.waited_ms(now_ms))
        low = bisect.bisect_left(self.ratings, anchor.rating - width)
        high = bisect.bisect_right(self.ratings, anchor.rating + width)
        positions: Iterable[int]
        if high - low <= 4 * scan:  # few within reach: only those, in age order
            positions = sorted(i for i in self.by_rating[low:high] if i > index)
        else:  # a dense pool (groups form at once there): the next younger ones
            positions = range(index + 1, len(tickets))
        found: list[Ticket] = []
        for position in positions:
            if len(found) >= scan:
                break
            if tickets[position].ticket_id not in used:
                found.append(tickets[position])
        return found


def form_groups(
    tickets: Sequence[Ticket], now_ms: int, policy: Policy, recent: Mapping[str, frozenset[str]] | None = None
) -> list[Group]:
    """The groups one pass forms from a pool's searching ``tickets`` (oldest first); no ticket is in two."""
    recent = recent or {}
    used: set[str] = set()
    groups = []
    candidates = _Candidates(tickets, policy)
    for index, anchor in enumerate(tickets):
        if anchor.ticket_id in used:
            continue
        rest = candidates.of(index, now_ms, used)
        members, sizes = _gather(anchor, rest, now_ms, policy, recent)
        group = _decide(members, sizes, now_ms, policy)
        if group is not None:
            groups.append(group)
            used.update(t.ticket_id for t in group.tickets)
    return groups

"""The pure rules behind notifications: a seat newly due, the reminder schedule, quiet hours and
collapsing several games into one message."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from services.clock.reminders import due_reminders, next_reminder
from services.identity.preferences import Preferences
from services.notify.model import Notice
from services.notify.notices import messages, notices_for
from services.outbox.turns import newly_due


@dataclass(frozen=True)
class Entry:
    to_act: list[int] | None


def test_a_seat_is_newly_due_only_when_it_was_not_to_act_before() -> None:
    assert newly_due([0], [Entry([1])], [1]) == [1]  # 0 ended its turn, 1 starts
    assert newly_due([0], [Entry([0])], [0]) == []  # a step of the same turn
    assert newly_due([0, 1], [Entry([1])], [1]) == []  # 1 was already to act (simultaneous turns)
    assert newly_due([0], [Entry([1]), Entry([0])], [0]) == [0]  # 0 is due again within one commit
    assert newly_due([], [], [0]) == [0]  # the game's start


def _clock(limit_s: int, started_ms: int, seat: int = 0) -> dict[str, object]:
    return {"per_turn_ms": limit_s * 1000, "remaining_ms": [limit_s * 1000] * 2,
            "turn_started_ms": {str(seat): started_ms}}  # fmt: skip


def test_reminders_come_at_each_lead_before_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAIWALA_TURN_REMINDERS_S", "43200,3600")
    monkeypatch.setenv("CHAIWALA_TURN_REMINDER_MIN_CLOCK_S", "7200")
    day = 24 * 3600
    clock = _clock(day, 0)
    assert next_reminder(clock, 0) == (day - 43200) * 1000
    assert next_reminder(clock, (day - 43200) * 1000) == (day - 3600) * 1000
    assert next_reminder(clock, (day - 3600) * 1000) is None
    assert due_reminders(clock, (day - 43200) * 1000, [0])[0].lead_ms == 43200 * 1000
    # Both leads passed (a late conductor): only the nearest is due, the older one is stale.
    (late,) = due_reminders(clock, (day - 60) * 1000, [0])
    assert late.lead_ms == 3600 * 1000 and late.deadline_ms == day * 1000
    assert due_reminders(clock, (day - 60) * 1000, [1]) == []  # seat 0 is no longer to act
    assert next_reminder(_clock(3600, 0), 0) is None  # under the minimum clock: no reminder
    assert due_reminders(_clock(3 * 3600, 0), 0, [0]) == []  # the 12 h lead is before the turn began


def test_quiet_hours_hold_a_notice_until_they_end_in_the_players_time_zone() -> None:
    madrid = Preferences(quiet_start="22:00", quiet_end="07:30", time_zone="Europe/Madrid")
    late = int(datetime(2026, 12, 7, 22, 30, tzinfo=UTC).timestamp() * 1000)  # 23:30 in Madrid
    assert madrid.held_until(late) == int(datetime(2026, 12, 8, 6, 30, tzinfo=UTC).timestamp() * 1000)
    noon = int(datetime(2026, 12, 7, 11, 0, tzinfo=UTC).timestamp() * 1000)
    assert madrid.held_until(noon) == noon
    assert Preferences().held_until(late) == late


def test_several_games_of_a_type_collapse_into_one_message_and_others_stay_apart() -> None:
    turns = [Notice(f"n{i}", "your_turn", f"g{i}", {"game_type": "darjeeling", "seat": 0, "opponents": ["Asha"]})
             for i in range(3)]  # fmt: skip
    ended = Notice("e", "game_finished", "g9", {"game_type": "alubari", "seat": 1, "status": "finished"})
    by_type = {m.payload["type"]: m for m in messages([*turns, ended], "es")}
    collapsed, single = by_type["your_turn"], by_type["game_finished"]
    assert collapsed.payload["game_ids"] == ["g0", "g1", "g2"] and collapsed.payload["title"] == "Te toca en 3 partidas"
    assert single.payload["game_id"] == "g9" and single.payload["url"] == "/play/#/game/g9/1"
    (again,) = [m for m in messages([*reversed(turns), ended], "es") if m.payload["type"] == "your_turn"]
    assert again.message_id == collapsed.message_id  # the same notices: the same message, tag and Topic


def test_an_ended_game_tells_its_people_and_a_lobby_that_never_started_tells_nobody() -> None:
    from services.outbox import OutboxEvent

    players = [{"seat": 0, "name": "Asha", "bot": "", "external_id": "p:asha"},
               {"seat": 1, "name": "Bot", "bot": "random"}]  # fmt: skip
    finished = OutboxEvent("evt_1", "game.finished", 0, {"game_id": "g", "game_type": "alubari", "players": players})
    ((player, notice),) = notices_for(finished)
    assert player == "p:asha" and notice.type == "game_finished" and notice.data["status"] == "finished"
    never = OutboxEvent("evt_2", "game.aborted", 0, {"game_id": "g", "players": players, "started": False})
    assert notices_for(never) == []


def test_an_invitation_tells_the_players_someone_else_seated_and_a_match_tells_every_person() -> None:
    from services.outbox.seating import invitations, match_found

    seated = [{"name": "Host", "bot": "", "external_id": "p:host"},
              {"name": "Vera", "bot": "", "external_id": "p:vera"}, {"name": "Bot", "bot": "random"},
              {"name": "", "bot": "", "open": True, "invite_hash": "secret"}]  # fmt: skip
    # The host seated themselves and Vera: only Vera is invited; bots and open seats never are.
    (fact,) = invitations("g", "darjeeling", seated, "Host", "p:host", 0)
    assert fact.type == "seat.invited" and fact.data["seat"] == 1 and fact.data["external_id"] == "p:vera"
    assert "invite_hash" not in str(fact.data)  # an open seat's invite code (even hashed) is nobody's to see
    assert [f.data["seat"] for f in invitations("g", "darjeeling", seated, "", "", 0)] == [0, 1]  # an operator's
    ((player, notice),) = notices_for(fact)
    assert player == "p:vera" and notice.type == "invited" and notice.data["opponents"] == ["Host", "Bot"]
    found = match_found("g", "darjeeling", "pool", seated[:3], 0)
    assert found.id == match_found("g", "darjeeling", "pool", seated[:3], 99).id  # written twice: one fact
    assert [(p, n.type, n.data["seat"]) for p, n in notices_for(found)] == [("p:host", "match_found", 0),
                                                                           ("p:vera", "match_found", 1)]  # fmt: skip

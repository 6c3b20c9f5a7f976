"""Tournament state and ratings as the API's messages (never a token, never a running seed)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from chaiwala.rating.v1 import rating_pb2
from chaiwala.tournament.v1 import tournament_pb2
from services.common.rng import SEED_HEX_DIGITS
from services.tournament.model import Entrant, Tournament
from services.tournament.standings import TableResult, table_points


def rfc3339(ms: int) -> str:
    """Unix milliseconds as RFC 3339 UTC ("" for 0)."""
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat().replace("+00:00", "Z") if ms else ""


def tournament_message(tournament: Tournament) -> tournament_pb2.Tournament:
    """A tournament; its seed (64 hex digits) only once it is over (it would reveal every game's draws)."""
    message = tournament_pb2.Tournament(
        tournament_id=tournament.tournament_id,
        game_type=tournament.game_type,
        format=tournament.format,
        status=tournament.status,
        table_size=tournament.table_size,
        rounds_planned=tournament.rounds_planned,
        round=len(tournament.rounds),
        entrants=[
            tournament_pb2.Entrant(external_id=e.external_id, name=e.name, bot=e.bot, withdrawn=e.withdrawn)
            for e in tournament.entrants
        ],
        created_at=rfc3339(tournament.created_ms),
        finished_at=rfc3339(tournament.finished_ms),
        seed_source=tournament.seed_source,
        advance=tournament.advance if tournament.format == "knockout" else 0,
        group_size=tournament.group_size,
    )
    if tournament.status == "finished":
        message.seed = format(tournament.seed, f"0{SEED_HEX_DIGITS}x")  # every tournament's, old 32-bit ones too
    return message


def round_messages(tournament: Tournament) -> list[tournament_pb2.Round]:
    """Every round: tables with their games, seats, places and points."""
    names = {e.external_id: e.name for e in tournament.entrants}
    rounds = []
    for played in tournament.rounds:
        tables = []
        for number, table in enumerate(played.tables, start=1):  # tables count from 1, as rounds do
            points = table_points(TableResult(tuple(table.players), tuple(table.ranking))) if table.ranking else {}
            seats = []
            for seat, player in enumerate(table.players):
                line = tournament_pb2.TableSeat(seat=seat, external_id=player, name=names[player],
                                                points=points.get(player, 0.0))  # fmt: skip
                if table.ranking:
                    line.place = table.ranking[seat]
                seats.append(line)
            tables.append(tournament_pb2.TournamentTable(number=number, game_id=table.game_id, status=table.status,
                                                         seats=seats))  # fmt: skip
        rounds.append(tournament_pb2.Round(number=played.number, status=played.status, tables=tables,
                                           byes=played.byes))  # fmt: skip
    return rounds


def standings_message(tournament: Tournament) -> tournament_pb2.Standings:
    """The standings after the finished rounds (the final ranking once the tournament is over)."""
    names = {e.external_id: e.name for e in tournament.entrants}
    lines = []
    for standing in tournament.standings():
        line = tournament_pb2.Standing(
            external_id=standing.external_id,
            name=names[standing.external_id],
            rank=standing.rank,
            points=standing.points,
            opponents_points=standing.opponents_points,
            head_to_head=standing.head_to_head,
            withdrawn=standing.withdrawn,
            last_round=standing.last_round,
        )
        if standing.rating is not None:
            line.rating = standing.rating
        lines.append(line)
    finished = sum(1 for r in tournament.rounds if r.status == "finished")
    return tournament_pb2.Standings(tournament_id=tournament.tournament_id, round=finished,
                                    status=tournament.status, standings=lines)  # fmt: skip


def my_table(tournament: Tournament, entrant: Entrant) -> tournament_pb2.MyTable:
    """Where an entrant plays now."""
    answer = tournament_pb2.MyTable(tournament_id=tournament.tournament_id, external_id=entrant.external_id,
                                    round=len(tournament.rounds), status=tournament.status)  # fmt: skip
    found = tournament.table_of(entrant.external_id)
    if found is not None:
        _, table, seat = found
        if table.game_id:  # a seat without its game would be a number pointing nowhere
            answer.game_id = table.game_id
            answer.seat = seat
    elif tournament.rounds and entrant.external_id in tournament.rounds[-1].byes:
        answer.bye = True
    return answer


def recent_game(game: dict[str, Any]) -> rating_pb2.RecentGame:
    """One stored recent game of a player."""
    return rating_pb2.RecentGame(
        game_id=game["game_id"],
        game_type=game["game_type"],
        place=game["place"],
        seats=[rating_pb2.RecentSeat(external_id=s["external_id"], name=s["name"]) for s in game["seats"]],
        mu_before=game["mu_before"],
        mu=game["mu"],
        sigma=game["sigma"],
        ordinal=game["ordinal"],
        finished_at=rfc3339(game.get("finished_ms", 0)),
    )

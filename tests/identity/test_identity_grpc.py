"""The player's operations over gRPC, beside REST: a rules service with an operator key, a trusted
platform issuer and guest sessions, a gateway in front of it; every refusal of the trust review
gets the same ``code`` on both, with the gRPC status REST's status stands for.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import any_pb2

from chaiwala.darjeeling.v1 import darjeeling_pb2
from chaiwala.identity.v1 import identity_pb2, identity_pb2_grpc
from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common.errors import error_detail_from_metadata
from services.identity.settings import IdentitySettings
from tests.support import secrets
from tests.support.client import assert_problem, auth, rated_guests, shown_as_guest
from tests.support.issuer import Issuer, SigningKey
from tests.support.stack import Gateway, RunningService, Services

GAME = "darjeeling"
OPERATOR = "grpc-trust-operator-key-0123456789abcdef"
Metadata = tuple[tuple[str, str], ...]
# REST's status of a refusal and the gRPC status behind it (gateway/problems.py maps one to the other).
GRPC_OF_HTTP = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    409: grpc.StatusCode.ALREADY_EXISTS,
}


class Stack:
    """The rules service, its stubs and the gateway in front of it."""

    def __init__(self, redis_url: str, issuer: Issuer) -> None:
        secrets.remember(OPERATOR)
        # Guests made over gRPC here are counted by the identity service (no gateway relayed them).
        identity = IdentitySettings(trusted_issuers=json.dumps([issuer.config()]), session_limit="100000/minute")
        self.issuer = issuer
        self.services = Services(redis_url, api_keys=frozenset({OPERATOR}), identity=identity)
        self.service: RunningService = self.services.start(GAME)
        self.gateway = Gateway({GAME: self.service.address}, api_keys=OPERATOR, session_limit="1000/minute")
        self.http = httpx.Client(base_url=self.gateway.url, timeout=60)
        self.channel = grpc.insecure_channel(self.service.address)
        self.rules = rules_pb2_grpc.RulesServiceStub(self.channel)
        self.identity = identity_pb2_grpc.IdentityServiceStub(self.channel)

    def guest(self, name: str) -> tuple[str, str]:
        """A guest made over gRPC: its id and token."""
        session = self.identity.CreateSession(identity_pb2.CreateSessionRequest(name=name), timeout=30)
        secrets.remember(session.token)
        return session.player_id, session.token

    def close(self) -> None:
        """Stop everything."""
        self.channel.close()
        self.http.close()
        self.gateway.stop()
        self.services.stop(self.service)
        self.services.close()


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    issuer = Issuer([SigningKey.ec("g1")])
    running = Stack(redis_url, issuer)
    try:
        yield running
    finally:
        running.close()
        issuer.close()


def bearer(token: str) -> Metadata:
    """The call metadata carrying a bearer token (none for an empty one)."""
    return (("authorization", f"Bearer {token}"),) if token else ()


def refusal(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    """The gRPC status and the error detail's code of a call that must fail."""
    with pytest.raises(grpc.RpcError) as refused:
        call()
    detail = error_detail_from_metadata(refused.value.trailing_metadata())
    assert detail is not None, refused.value
    return refused.value.code(), detail.code


def seats(*specs: dict[str, Any]) -> list[rules_pb2.PlayerSpec]:
    """PlayerSpecs from REST-shaped seat dicts."""
    return [rules_pb2.PlayerSpec(**spec) for spec in specs]


def start_player(seat: int) -> any_pb2.Any:
    """Darjeeling's options with a fixed first seat."""
    packed = any_pb2.Any()
    packed.Pack(darjeeling_pb2.Options(start_player=seat))
    return packed


def create(stack: Stack, token: str, specs: list[dict[str, Any]], **extra: Any) -> rules_pb2.CreateGameResponse:
    """CreateGame with ``token`` in the metadata."""
    request = rules_pb2.CreateGameRequest(players=seats(*specs), **extra)
    answer: rules_pb2.CreateGameResponse = stack.rules.CreateGame(request, metadata=bearer(token), timeout=30)
    for seat in answer.seats:
        secrets.remember(seat.token)
    secrets.remember(answer.host_token)
    return answer


def game(stack: Stack, game_id: str, token: str = OPERATOR) -> rules_pb2.Game:
    """The game as ``token`` sees it."""
    found: rules_pb2.Game = stack.rules.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=bearer(token))
    return found


def legal(stack: Stack, game_id: str, token: str) -> rules_pb2.LegalMoves:
    """The bearer's legal moves."""
    request = rules_pb2.ListLegalMovesRequest(game_id=game_id)
    found: rules_pb2.LegalMoves = stack.rules.ListLegalMoves(request, metadata=bearer(token))
    return found


def first_move(stack: Stack, game_id: str, token: str) -> rules_pb2.SubmitMovesRequest:
    """The bearer seat's first legal move, as a request at the version it is legal at (not sent)."""
    moves = legal(stack, game_id, token)
    return rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[moves.moves[0]], expected_version=moves.version)


def move_once(stack: Stack, game_id: str, token: str) -> None:
    """The bearer seat plays its first legal move."""
    stack.rules.SubmitMoves(first_move(stack, game_id, token), metadata=bearer(token))


def test_a_player_creates_joins_and_plays_over_grpc_with_their_token(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    rated_guests(monkeypatch)
    asha, asha_token = stack.guest("Asha")
    bilal, bilal_token = stack.guest("Bilal")
    created = create(stack, asha_token, [{"me": True}, {"open": True}], rated=True)
    assert created.status == "waiting" and created.seats[0].token and created.host_token
    assert (created.seats[0].external_id, created.seats[0].name) == (asha, shown_as_guest("Asha", asha))
    join = rules_pb2.JoinGameRequest(game_id=created.game_id, name="ignored")
    joined = stack.rules.JoinGame(join, metadata=bearer(bilal_token))
    secrets.remember(joined.token)
    assert joined.status == "active" and joined.seat == 1 and joined.token
    seen = game(stack, created.game_id)
    assert [(s.name, s.external_id) for s in seen.seats] == [(shown_as_guest("Asha", asha), asha),
                                                                (shown_as_guest("Bilal", bilal), bilal)]
    tokens = {0: asha_token, 1: bilal_token}
    for _ in range(4):
        seat = game(stack, created.game_id, "").to_act[0]
        assert game(stack, created.game_id, tokens[seat]).viewer_seat == seat
        assert not legal(stack, created.game_id, tokens[1 - seat]).moves  # nothing for the other player now
        request = first_move(stack, created.game_id, tokens[seat])
        other = bearer(tokens[1 - seat])
        status, _ = refusal(partial(stack.rules.SubmitMoves, request, metadata=other))
        assert status in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.FAILED_PRECONDITION)  # never theirs
        assert stack.rules.SubmitMoves(request, metadata=bearer(tokens[seat])).version == request.expected_version + 1
    leave = rules_pb2.ResignGameRequest(game_id=created.game_id)
    assert stack.rules.ResignGame(leave, metadata=bearer(asha_token)).status == "finished"


def _rest_create(stack: Stack, token: str, specs: list[dict[str, Any]], **extra: Any) -> httpx.Response:
    return stack.http.post(
        "/v1/games", json={"game_type": GAME, "players": specs, **extra}, headers=auth(token) if token else {}
    )


def test_the_four_refusals_have_the_same_codes_on_grpc_and_rest(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    rated_guests(monkeypatch)
    victim, victim_token = stack.guest("Victim")
    _, attacker_token = stack.guest("Attacker")
    rated = create(stack, victim_token, [{"me": True}, {"open": True}], rated=True)
    before = game(stack, rated.game_id)

    def join(token: str, **body: Any) -> tuple[Callable[[], object], httpx.Response]:
        request = rules_pb2.JoinGameRequest(game_id=rated.game_id, **body)
        rest = stack.http.post(f"/v1/games/{rated.game_id}/join", json=body, headers=auth(token) if token else {})
        return (lambda: stack.rules.JoinGame(request, metadata=bearer(token))), rest

    def made(token: str, specs: list[dict[str, Any]], **extra: Any) -> tuple[Callable[[], object], httpx.Response]:
        request = rules_pb2.CreateGameRequest(players=seats(*specs), **extra)
        rest = _rest_create(stack, token, specs, **extra)
        return (lambda: stack.rules.CreateGame(request, metadata=bearer(token))), rest

    twice = [{"name": "A", "external_id": victim}, {"name": "B", "external_id": victim}]
    bot_as_victim = {"name": "Bot", "bot": "random", "external_id": victim}
    cases = [
        (join(attacker_token, name="X", external_id=victim), 403, "external_id_not_yours"),
        (join("", name="X", external_id=victim), 403, "external_id_not_yours"),
        (made(attacker_token, [{"me": True}, {"name": "V", "external_id": victim}]), 403, "external_id_not_yours"),
        (join("", name="Anonymous"), 403, "identity_required"),
        (made("", [{"me": True}, {"open": True}]), 401, "unauthenticated"),  # no credential: no creation
        (made(OPERATOR, [{"name": "A"}, {"open": True}], rated=True), 403, "identity_required"),
        (join(victim_token), 409, "identity_already_seated"),
        (made(OPERATOR, twice, rated=True), 409, "identity_already_seated"),
        (made(OPERATOR, [{"name": "A"}, bot_as_victim]), 400, "bad_external_id"),
        (made(victim_token, [{"me": True, "open": True}, {"open": True}]), 400, "bad_player"),  # open or mine
    ]
    for (call, rest), status, code in cases:
        assert_problem(rest, status, code)
        assert refusal(call) == (GRPC_OF_HTTP[status], code)
    assert game(stack, rated.game_id) == before  # nothing changed: still waiting, the same seats


def test_my_games_page_over_grpc_as_over_rest(stack: Stack) -> None:
    asha_id, asha = stack.guest("Asha")
    bilal_id, bilal = stack.guest("Bilal")
    made = [create(stack, asha, [{"me": True}, {"open": True}]).game_id for _ in range(3)]
    stack.rules.JoinGame(rules_pb2.JoinGameRequest(game_id=made[0]), metadata=bearer(bilal))
    listed: list[str] = []
    token = ""
    while True:
        request = identity_pb2.ListMyGamesRequest(page_size=2, page_token=token)
        page = stack.identity.ListMyGames(request, metadata=bearer(asha))
        assert len(page.games) <= 2
        listed += [g.game_id for g in page.games]
        token = page.next_page_token
        if not token:
            break
    assert sorted(listed) == sorted(made) and len(listed) == 3
    rest = stack.http.get("/v1/me/games", headers=auth(asha)).json()["games"]
    assert [g["game_id"] for g in rest] == listed  # the same order on both
    (theirs,) = stack.identity.ListMyGames(identity_pb2.ListMyGamesRequest(), metadata=bearer(bilal)).games
    names = [shown_as_guest("Asha", asha_id), shown_as_guest("Bilal", bilal_id)]
    assert theirs.game_id == made[0] and theirs.seat == 1 and list(theirs.names) == names
    bad_page = identity_pb2.ListMyGamesRequest(page_token="nonsense")
    bad_page_code = (grpc.StatusCode.INVALID_ARGUMENT, "bad_page_token")
    assert refusal(lambda: stack.identity.ListMyGames(bad_page, metadata=bearer(asha))) == bad_page_code
    rest_bad_page = stack.http.get("/v1/me/games", params={"page_token": "nonsense"}, headers=auth(asha))
    assert_problem(rest_bad_page, 400, "bad_page_token")
    too_big = identity_pb2.ListMyGamesRequest(page_size=101)
    assert refusal(lambda: stack.identity.ListMyGames(too_big, metadata=bearer(asha))) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "bad_page_size",
    )
    assert_problem(stack.http.get("/v1/me/games", params={"page_size": 101}, headers=auth(asha)), 400, "bad_page_size")
    everything = identity_pb2.ListMyGamesRequest()
    assert refusal(lambda: stack.identity.ListMyGames(everything)) == (
        grpc.StatusCode.UNAUTHENTICATED,
        "unauthenticated",
    )


def _events_until(call: Any, done: Callable[[list[identity_pb2.PlayerEvent]], bool]) -> list[identity_pb2.PlayerEvent]:
    """Events of a WatchMyEvents call (keep-alives left out) until ``done`` holds."""
    seen: list[identity_pb2.PlayerEvent] = []
    for event in call:
        if event.kind:
            seen.append(event)
        if done(seen):
            break
    call.cancel()
    return seen


def test_a_stream_ticket_and_the_live_watch_over_grpc_tell_your_turn(stack: Stack) -> None:
    _, asha = stack.guest("Asha")
    bilal_id, bilal = stack.guest("Bilal")
    created = create(stack, asha, [{"me": True}, {"open": True}], options=start_player(1))
    stack.rules.JoinGame(rules_pb2.JoinGameRequest(game_id=created.game_id), metadata=bearer(bilal))
    ticket = stack.identity.CreateMyStreamTicket(identity_pb2.CreateMyStreamTicketRequest(), metadata=bearer(bilal))
    secrets.remember(ticket.ticket)
    assert ticket.ticket and "." not in ticket.ticket and ticket.expires_at.seconds > 0
    watch = stack.identity.WatchMyEvents(identity_pb2.WatchMyEventsRequest(ticket=ticket.ticket), timeout=120)
    told = _events_until(watch, lambda seen: any(e.kind == "your_turn" for e in seen))
    assert [e.kind for e in told] == ["game_started", "your_turn"]
    turn = json.loads(told[-1].data_json)
    assert turn == {"game_id": created.game_id, "game_type": GAME, "seat": 1, "version": 0}
    # Live: Asha's watch opened after her newest notice sees her turn come once Bilal has moved.
    once = identity_pb2.WatchMyEventsRequest(once=True)
    newest = list(stack.identity.WatchMyEvents(once, metadata=bearer(asha), timeout=30))[-1].id
    after = identity_pb2.WatchMyEventsRequest(after=newest)
    live = stack.identity.WatchMyEvents(after, metadata=bearer(asha), timeout=120)
    while 0 not in game(stack, created.game_id).to_act:
        move_once(stack, created.game_id, bilal)
    version = game(stack, created.game_id).version
    (told_asha,) = _events_until(live, lambda seen: any(e.kind == "your_turn" for e in seen))
    expected = {"game_id": created.game_id, "game_type": GAME, "seat": 0, "version": version}
    assert json.loads(told_asha.data_json) == expected
    assert bilal_id not in told_asha.data_json.decode()


def test_the_player_stream_refusals_over_grpc(stack: Stack) -> None:
    _, token = stack.guest("Dev")
    ticket = stack.identity.CreateMyStreamTicket(identity_pb2.CreateMyStreamTicketRequest(), metadata=bearer(token))
    secrets.remember(ticket.ticket)
    seat_token = create(stack, OPERATOR, [{"name": "A"}, {"name": "B"}]).seats[0].token
    ask = identity_pb2.CreateMyStreamTicketRequest()
    both = identity_pb2.WatchMyEventsRequest(ticket=ticket.ticket, once=True)
    unknown = identity_pb2.WatchMyEventsRequest(ticket="no-such-ticket", once=True)
    none = identity_pb2.WatchMyEventsRequest(once=True)
    unauthenticated = (grpc.StatusCode.UNAUTHENTICATED, "unauthenticated")
    assert refusal(lambda: stack.identity.CreateMyStreamTicket(ask)) == unauthenticated
    assert refusal(lambda: stack.identity.CreateMyStreamTicket(ask, metadata=bearer(seat_token))) == unauthenticated
    # A ticket is no credential: not for another ticket, nor for a watch as a bearer.
    assert refusal(lambda: stack.identity.CreateMyStreamTicket(ask, metadata=bearer(ticket.ticket))) == unauthenticated
    assert refusal(lambda: list(stack.identity.WatchMyEvents(none, metadata=bearer(ticket.ticket)))) == unauthenticated
    assert refusal(lambda: list(stack.identity.WatchMyEvents(both, metadata=bearer(token)))) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "ticket_and_bearer",
    )
    assert refusal(lambda: list(stack.identity.WatchMyEvents(unknown))) == (
        grpc.StatusCode.UNAUTHENTICATED,
        "invalid_ticket",
    )
    assert refusal(lambda: list(stack.identity.WatchMyEvents(none))) == unauthenticated
    assert [e.kind for e in stack.identity.WatchMyEvents(none, metadata=bearer(token)) if e.kind] == []
    # Not an id, or longer than the document's pattern (19 digits a half), or non-ASCII digits.
    for after in ("nonsense", "1-2-3", "-", "+", "18446744073709551616-0", "18446744073709551615-0", "\u0661-0"):
        bad = identity_pb2.WatchMyEventsRequest(after=after, once=True)
        assert refusal(lambda r=bad: list(stack.identity.WatchMyEvents(r, metadata=bearer(token)))) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "bad_after",
        ), after
    largest = identity_pb2.WatchMyEventsRequest(after="9999999999999999999-9999999999999999999", once=True)
    assert list(stack.identity.WatchMyEvents(largest, metadata=bearer(token))) == []


def test_a_player_leaves_and_watches_their_seat_with_their_token_over_grpc(stack: Stack) -> None:
    _, asha = stack.guest("Asha")
    _, bilal = stack.guest("Bilal")
    created = create(stack, asha, [{"me": True}, {"open": True}, {"open": True}])
    joined = stack.rules.JoinGame(rules_pb2.JoinGameRequest(game_id=created.game_id), metadata=bearer(bilal))
    secrets.remember(joined.token)
    left = stack.rules.LeaveGame(rules_pb2.LeaveGameRequest(game_id=created.game_id), metadata=bearer(bilal))
    assert left.seats[joined.seat].open and not left.seats[joined.seat].external_id
    ask = rules_pb2.CreateStreamTicketRequest(game_id=created.game_id)
    ticket = stack.rules.CreateStreamTicket(ask, metadata=bearer(asha))
    secrets.remember(ticket.ticket)
    assert ticket.ticket and "." not in ticket.ticket


def test_a_player_without_a_seat_is_forbidden_not_unauthenticated(stack: Stack) -> None:
    _, asha = stack.guest("Asha")
    _, bilal = stack.guest("Bilal")
    _, stranger = stack.guest("Stranger")
    waiting = create(stack, asha, [{"me": True}, {"open": True}, {"open": True}]).game_id
    active = create(stack, asha, [{"me": True}, {"open": True}]).game_id
    stack.rules.JoinGame(rules_pb2.JoinGameRequest(game_id=active), metadata=bearer(bilal))
    leave = rules_pb2.LeaveGameRequest(game_id=waiting)
    resign = rules_pb2.ResignGameRequest(game_id=active)
    ticket = rules_pb2.CreateStreamTicketRequest(game_id=active)
    as_stranger = bearer(stranger)
    seat = game(stack, active).to_act[0]
    move = first_move(stack, active, (asha, bilal)[seat])  # a move legal now, for a seat not the stranger's
    rest_move = stack.http.get(f"/v1/games/{active}/legal-moves", headers=auth((asha, bilal)[seat])).json()
    body = {"move": {k: v for k, v in rest_move["moves"][0].items() if k not in ("text", "costs")},
            "expected_version": rest_move["version"]}  # fmt: skip
    calls: list[tuple[Callable[[], object], httpx.Response]] = [
        (partial(stack.rules.SubmitMoves, move, metadata=as_stranger),
         stack.http.post(f"/v1/games/{active}/moves", json=body, headers=auth(stranger))),
        (partial(stack.rules.LeaveGame, leave, metadata=as_stranger),
         stack.http.post(f"/v1/games/{waiting}/leave", headers=auth(stranger))),
        (partial(stack.rules.ResignGame, resign, metadata=as_stranger),
         stack.http.post(f"/v1/games/{active}/resign", headers=auth(stranger))),
        (partial(stack.rules.CreateStreamTicket, ticket, metadata=as_stranger),
         stack.http.post(f"/v1/games/{active}/stream-tickets", headers=auth(stranger))),
        (partial(legal, stack, active, stranger),
         stack.http.get(f"/v1/games/{active}/legal-moves", headers=auth(stranger))),
    ]  # fmt: skip
    for call, rest in calls:
        assert_problem(rest, 403, "not_seated")
        assert refusal(call) == (grpc.StatusCode.PERMISSION_DENIED, "not_seated")
    seen = stack.http.get(f"/v1/games/{active}", headers=auth(stranger)).json()
    assert seen["status"] == "active" and "viewer_seat" not in seen  # a spectator still, as before
    # Not a failed authentication: a gateway that blocks an address after two lets the player go on.
    strict = Gateway({GAME: stack.service.address}, api_keys=OPERATOR, auth_failure_limit="2/minute")
    try:
        with httpx.Client(base_url=strict.url, timeout=60) as http:
            for _ in range(4):
                assert_problem(http.post(f"/v1/games/{active}/resign", headers=auth(stranger)), 403, "not_seated")
            assert http.get("/v1/me/games", headers=auth(stranger)).status_code == 200
    finally:
        strict.stop()

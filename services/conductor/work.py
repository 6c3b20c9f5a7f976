"""What a conductor does with one claimed game: fire due timeouts, then play the bots (with
nothing to commit, write the turn reminders due: :mod:`services.conductor.reminders`).

Everything is computed in the conductor's process from the stored snapshot and
committed through the rules services' own atomic commit, against the version it
was computed from: a version race (a human moved, another conductor took over
after a lease ran out) makes the commit fail and the work is simply dropped —
whoever won the race has already queued the game's next attention.

Search bots (``offload = True``) are the exception to "computed in the conductor's process":
their move is computed in a :class:`~services.conductor.search_pool.SearchPool` worker while the
loop attends to other games, then committed the same way (one move per claim, against the
version of the snapshot it was computed from).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from services.bots.roster import bots_for
from services.clock import clock as clocks
from services.common.attention import AttentionQueue, Claim
from services.common.engine import Move
from services.common.logs import get_logger
from services.common.runner import Match
from services.common.store import GameNotFound, StoreError
from services.conductor import metrics
from services.conductor.reminders import remind
from services.conductor.search_pool import SearchPool, offloaded
from services.fairness import chain
from services.games.lifecycle import (
    Lifecycle,
    attention_due,
    bot_of_seat,
    idle_too_long,
    stand_in_bot,
)
from services.games.records import Commit, GameMeta, bot_memory_key, decode_bot_memory, encode_bot_memory
from services.rules.gameplay import GamePlay

log = get_logger("conductor")
# Bot moves computed before a commit: enough to cut Redis round trips, few enough that
# events reach watchers steadily and other games get their turn.
BOT_BATCH = 32
BATCH_SECONDS = 0.5
# A game whose search bot finds every search worker busy is looked at again this much later.
SEARCH_RETRY_MS = 100


@dataclass(frozen=True)
class SearchTurn:
    """A search bot to move in a loaded game: computed off the loop, then committed alone."""

    seat: int
    bot: str


def bot_commit(
    play: GamePlay,
    match: Match,
    seat: int,
    bot_name: str,
    salt: int,
    chosen: Move | None = None,
    started: float | None = None,
) -> Commit:
    """Let ``bot_name`` play ``seat`` (or play its ``chosen`` move, computed elsewhere).

    A bot that fails or cheats is replaced by the random bot for that move.
    """
    bots = bots_for(play.engine)
    started = time.perf_counter() if started is None else started
    try:
        move = chosen if chosen is not None else match.bot_move(bots[bot_name], seat, salt)
        events = match.play(seat, move)
    except Exception:
        log.exception("bot_failed", game_type=play.game_type, bot=bot_name, seat=seat)
        bot_name = "random"
        move = match.bot_move(bots["random"], seat, salt)
        events = match.play(seat, move)
    metrics.BOT_MOVE_LATENCY.labels(play.game_type).observe(time.perf_counter() - started)
    play.count_bot_move(bot_name)
    return Commit(seat=seat, bot=bot_name, move=move, events=events, state_digest=chain.state_digest(match),
                  to_act=match.to_act())  # fmt: skip


def fire_timeouts(
    play: GamePlay, meta: GameMeta, match: Match, lifecycle: Lifecycle, commits: list[Commit], now: int
) -> GameMeta:
    """Log a timeout for every seat to act whose clock ran out, then apply the policy.

    Returns ``meta`` with status ``aborted`` when the policy aborts the game.
    """
    for seat in clocks.overdue(lifecycle.clock, now):
        if seat not in match.to_act() or seat in lifecycle.resigned:
            continue
        commits.append(
            Commit(seat=seat, bot="", move=None, events=[], kind="timeout", state_digest=chain.state_digest(match))
        )
        count = lifecycle.count_timeout(seat)
        metrics.TIMEOUTS.labels(play.game_type, lifecycle.on_timeout).inc()
        log.info("clock_timeout", game_type=play.game_type, game_id=meta.game_id, seat=seat, count=count)
        if lifecycle.on_timeout == "abort":
            return replace(meta, status="aborted")
        if lifecycle.on_timeout == "resign" and count >= lifecycle.timeouts_to_resign:
            lifecycle.resigned.append(seat)
            commits.append(
                Commit(seat=seat, bot="", move=None, events=[], kind="resign", state_digest=chain.state_digest(match))
            )
            continue  # from now on the stand-in bot plays it like any resigned seat
        bot = stand_in_bot(sorted(bots_for(play.engine)))
        commits.append(bot_commit(play, match, seat, bot, meta.version + len(commits)))
    return meta


def abort_if_idle(
    play: GamePlay, meta: GameMeta, match: Match, lifecycle: Lifecycle, commits: list[Commit], now: int
) -> GameMeta:
    """Abort a game nobody moved in for the idle limit, with an ``idle`` entry naming the seat it waited for.

    Returns ``meta`` with status ``aborted`` when it does (see :mod:`services.retention.policy`).
    """
    if not idle_too_long(lifecycle, meta.created_ms, now):
        return meta
    waiting_for = next(iter(match.to_act()), 0)
    commits.append(
        Commit(seat=waiting_for, bot="", move=None, events=[], kind="idle", state_digest=chain.state_digest(match))
    )
    metrics.IDLE_ABORTS.labels(play.game_type).inc()
    log.info("idle_abort", game_type=play.game_type, game_id=meta.game_id, seat=waiting_for)
    return replace(meta, status="aborted")


def play_bots(
    play: GamePlay, meta: GameMeta, match: Match, lifecycle: Lifecycle, commits: list[Commit]
) -> SearchTurn | None:
    """Let bot seats (and resigned seats) move while one is to act, for one batch.

    Stops at a search bot's turn and returns it: that move is computed off the loop.
    """
    bots = bots_for(play.engine)
    names = sorted(bots)
    started = time.perf_counter()
    while len(commits) < BOT_BATCH and time.perf_counter() - started < BATCH_SECONDS:
        if play.finisher.is_over(meta, match, lifecycle):
            return None
        seat = next((s for s in match.to_act() if bot_of_seat(meta.players, lifecycle, s, names)), None)
        if seat is None:
            return None
        bot = bot_of_seat(meta.players, lifecycle, seat, names)
        if bot in bots and offloaded(bots[bot]):
            return SearchTurn(seat=seat, bot=bot)
        commits.append(bot_commit(play, match, seat, bot, meta.version + len(commits)))
    return None


async def attend(
    play: GamePlay, claim: Claim, queue: AttentionQueue, searches: SearchPool | None = None
) -> int:
    """Do the due work of one claimed game; return the number of log entries committed.

    A search bot's turn (with nothing else to commit first) is handed to ``searches`` as a
    background task that commits when its worker answers; without a pool it is computed here.
    """
    try:
        meta, snapshot, (remembered,) = await play.store.load_with(claim.game_id, [bot_memory_key(claim.game_id)])
    except GameNotFound:
        await queue.release(claim, None)
        return 0
    if meta.status != "active":
        await queue.release(claim, None)
        return 0
    match = play.match(snapshot)
    match.bot_memory = decode_bot_memory(remembered)
    lifecycle = Lifecycle.from_dict(meta.lifecycle)
    commits: list[Commit] = []
    turn = None
    meta = fire_timeouts(play, meta, match, lifecycle, commits, clocks.now_ms())
    if meta.status == "active":
        turn = play_bots(play, meta, match, lifecycle, commits)
    if turn is not None and not commits:
        if searches is None:
            commits.append(bot_commit(play, match, turn.seat, turn.bot, meta.version))
        elif searches.full():
            await queue.release(claim, clocks.now_ms() + SEARCH_RETRY_MS)
            return 0
        else:
            remembered = encode_bot_memory(match.bot_memory)
            searches.spawn(search_and_commit(play, claim, queue, searches, meta, match, lifecycle, turn, remembered))
            return 0
    if not commits:
        meta = abort_if_idle(play, meta, match, lifecycle, commits, clocks.now_ms())
    if not commits:
        await remind(play.store.redis, meta, lifecycle.to_dict(), match.to_act())
        await queue.release(claim, attention_due(meta.players, lifecycle, match.to_act(), clocks.now_ms()))
        return 0
    return await _commit(play, claim, queue, meta, match, lifecycle, commits, remembered or b"")


async def _commit(
    play: GamePlay,
    claim: Claim,
    queue: AttentionQueue,
    meta: GameMeta,
    match: Match,
    lifecycle: Lifecycle,
    commits: list[Commit],
    remembered: bytes,
) -> int:
    # The bots' memory travels with the game: stored with the moves it led to (unchanged: not written).
    memory = encode_bot_memory(match.bot_memory)
    memory = b"" if memory == remembered else memory
    try:
        await play.commit(meta, match, commits, None, lifecycle=lifecycle, bot_memory=memory)
    except StoreError:
        metrics.COMMITS_DROPPED.labels(play.game_type).inc()
        await queue.release(claim, None)  # a no-op unless nobody committed since the claim (then: not active)
        return 0
    return len(commits)


async def search_and_commit(
    play: GamePlay,
    claim: Claim,
    queue: AttentionQueue,
    searches: SearchPool,
    meta: GameMeta,
    match: Match,
    lifecycle: Lifecycle,
    turn: SearchTurn,
    remembered: bytes,
) -> int:
    """Compute ``turn`` in a search worker, then commit it against the version it was computed from.

    The claim's lease keeps other conductors off the game meanwhile; a worker that fails gives
    the random bot's move instead, as a failing in-process bot does.
    """
    started = time.perf_counter()
    salt = meta.version
    try:
        move, memory = await searches.move(play.game_type, match.snapshot.to_json(), turn.seat, turn.bot, salt,
                                           remembered)  # fmt: skip
        match.bot_memory = decode_bot_memory(memory)
        commit = bot_commit(play, match, turn.seat, turn.bot, salt, chosen=move, started=started)
    except Exception:
        log.exception("search_failed", game_type=play.game_type, bot=turn.bot, seat=turn.seat)
        commit = bot_commit(play, match, turn.seat, "random", salt, started=started)
    return await _commit(play, claim, queue, meta, match, lifecycle, [commit], remembered)

"""What a conductor does with one claimed game: fire due timeouts, then play the bots.

Everything is computed in the conductor's process from the stored snapshot and
committed through the rules services' own atomic commit, against the version it
was computed from: a version race (a human moved, another conductor took over
after a lease ran out) makes the commit fail and the work is simply dropped —
whoever won the race has already queued the game's next attention.
"""

from __future__ import annotations

import time
from dataclasses import replace

from services.clock import clock as clocks
from services.common.attention import AttentionQueue, Claim
from services.common.lifecycle import (
    Lifecycle,
    attention_due,
    bot_of_seat,
    idle_too_long,
    last_seat_standing,
    stand_in_bot,
)
from services.common.logs import get_logger
from services.common.runner import Match
from services.common.service import RulesServicer
from services.common.store import Commit, GameMeta, GameNotFound, StoreError
from services.conductor import metrics
from services.fairness import chain

log = get_logger("conductor")
# Bot moves computed before a commit: enough to cut Redis round trips, few enough that
# events reach watchers steadily and other games get their turn.
BOT_BATCH = 32
BATCH_SECONDS = 0.5


def bot_commit(servicer: RulesServicer, match: Match, seat: int, bot_name: str, salt: int) -> Commit:
    """Let ``bot_name`` play ``seat``; a bot that fails or cheats is replaced by the random bot for that move."""
    bots = servicer.engine.bots()
    started = time.perf_counter()
    try:
        move = match.bot_move(bots[bot_name], seat, salt)
        events = match.play(seat, move)
    except Exception:
        log.exception("bot_failed", game_type=servicer.game_type, bot=bot_name, seat=seat)
        bot_name = "random"
        move = match.bot_move(bots["random"], seat, salt)
        events = match.play(seat, move)
    metrics.BOT_MOVE_LATENCY.labels(servicer.game_type).observe(time.perf_counter() - started)
    servicer.count_bot_move(bot_name)
    return Commit(seat=seat, bot=bot_name, move=move, events=events, state_digest=chain.state_digest(match))


def fire_timeouts(
    servicer: RulesServicer, meta: GameMeta, match: Match, lifecycle: Lifecycle, commits: list[Commit], now: int
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
        metrics.TIMEOUTS.labels(servicer.game_type, lifecycle.on_timeout).inc()
        log.info("clock_timeout", game_type=servicer.game_type, game_id=meta.game_id, seat=seat, count=count)
        if lifecycle.on_timeout == "abort":
            return replace(meta, status="aborted")
        if lifecycle.on_timeout == "resign" and count >= lifecycle.timeouts_to_resign:
            lifecycle.resigned.append(seat)
            commits.append(
                Commit(seat=seat, bot="", move=None, events=[], kind="resign", state_digest=chain.state_digest(match))
            )
            continue  # from now on the stand-in bot plays it like any resigned seat
        bot = stand_in_bot(sorted(servicer.engine.bots()))
        commits.append(bot_commit(servicer, match, seat, bot, meta.version + len(commits)))
    return meta


def abort_if_idle(
    servicer: RulesServicer, meta: GameMeta, match: Match, lifecycle: Lifecycle, commits: list[Commit], now: int
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
    metrics.IDLE_ABORTS.labels(servicer.game_type).inc()
    log.info("idle_abort", game_type=servicer.game_type, game_id=meta.game_id, seat=waiting_for)
    return replace(meta, status="aborted")


def _over(servicer: RulesServicer, meta: GameMeta, match: Match, lifecycle: Lifecycle) -> bool:
    return servicer.engine.is_over(match.state) or last_seat_standing(len(meta.players), lifecycle) is not None


def play_bots(
    servicer: RulesServicer, meta: GameMeta, match: Match, lifecycle: Lifecycle, commits: list[Commit]
) -> None:
    """Let bot seats (and resigned seats) move while one is to act, for one batch."""
    bots = sorted(servicer.engine.bots())
    started = time.perf_counter()
    while len(commits) < BOT_BATCH and time.perf_counter() - started < BATCH_SECONDS:
        if _over(servicer, meta, match, lifecycle):
            return
        seat = next((s for s in match.to_act() if bot_of_seat(meta.players, lifecycle, s, bots)), None)
        if seat is None:
            return
        bot = bot_of_seat(meta.players, lifecycle, seat, bots)
        commits.append(bot_commit(servicer, match, seat, bot, meta.version + len(commits)))


async def attend(servicer: RulesServicer, claim: Claim, queue: AttentionQueue) -> int:
    """Do the due work of one claimed game; return the number of log entries committed."""
    try:
        meta, snapshot = await servicer.store.load(claim.game_id)
    except GameNotFound:
        await queue.release(claim, None)
        return 0
    if meta.status != "active":
        await queue.release(claim, None)
        return 0
    match = servicer.match(snapshot)
    lifecycle = Lifecycle.from_dict(meta.lifecycle)
    commits: list[Commit] = []
    meta = fire_timeouts(servicer, meta, match, lifecycle, commits, clocks.now_ms())
    if meta.status == "active":
        play_bots(servicer, meta, match, lifecycle, commits)
    if not commits:
        meta = abort_if_idle(servicer, meta, match, lifecycle, commits, clocks.now_ms())
    if not commits:
        await queue.release(claim, attention_due(meta.players, lifecycle, match.to_act(), clocks.now_ms()))
        return 0
    try:
        await servicer.commit_entries(meta, match, commits, None, lifecycle=lifecycle)
    except StoreError:
        metrics.COMMITS_DROPPED.labels(servicer.game_type).inc()
        await queue.release(claim, None)  # a no-op unless nobody committed since the claim (then: not active)
        return 0
    return len(commits)

"""``chaiwala``: verify replays, export them, manage games on a server, run the benchmarks.

Every subcommand that talks to a server takes ``--server`` (``CHAIWALA_SERVER``, default
``http://127.0.0.1:8000``) and ``--api-key`` (``CHAIWALA_API_KEY``); the key is sent as a
bearer token and never printed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import httpx
import orjson
import typer
from rich.console import Console
from rich.progress import Progress, track
from rich.table import Table

from services.cli.secrets import secrets_app
from services.fairness.verify import Verdict, verify_replay

app = typer.Typer(
    help="Chaiwala's operator tool: verify and export replays, manage games, benchmark.", no_args_is_help=True
)
games_app = typer.Typer(help="List, show and abort games on a server (operator key).", no_args_is_help=True)
replay_app = typer.Typer(help="Export replays.", no_args_is_help=True)
app.add_typer(games_app, name="games")
app.add_typer(replay_app, name="replay")
app.add_typer(secrets_app, name="secrets")

console = Console(soft_wrap=True)
errors = Console(stderr=True, soft_wrap=True)

Server = Annotated[str, typer.Option("--server", envvar="CHAIWALA_SERVER", help="Base URL of the gateway.")]
ApiKey = Annotated[
    str, typer.Option("--api-key", envvar="CHAIWALA_API_KEY", help="Operator API key.", show_default=False)
]
DEFAULT_SERVER = "http://127.0.0.1:8000"


def _client(server: str, api_key: str, language: str = "en") -> httpx.Client:
    headers = {"Accept-Language": language}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return httpx.Client(base_url=server.rstrip("/"), headers=headers, timeout=60)


def _get(client: httpx.Client, path: str, **params: Any) -> Any:
    """GET a JSON answer; a problem answer ends the command with its code and detail."""
    answer = client.get(path, params={k: v for k, v in params.items() if v not in (None, "")})
    return _json_or_exit(answer)


def _json_or_exit(answer: httpx.Response) -> Any:
    if answer.is_success:
        return answer.json()
    try:
        problem = answer.json()
        message = f"{problem.get('code', answer.status_code)}: {problem.get('detail', '')}"
    except ValueError:
        message = f"HTTP {answer.status_code}"
    errors.print(f"[red]error[/red] {message}")
    raise typer.Exit(2)


def _print_verdict(name: str, verdict: Verdict) -> None:
    if verdict.ok:
        console.print(f"[green]ok[/green] {name}: {verdict.entries} entries verified")
        return
    console.print(f"[red]FAILED[/red] {name}: {verdict.divergence}")


@app.command()
def verify(
    files: Annotated[list[Path] | None, typer.Argument(help="Replay JSON files (as served by /replay).")] = None,
    game_id: Annotated[list[str] | None, typer.Option("--game-id", help="Fetch and verify this game's replay.")] = None,
    server: Server = DEFAULT_SERVER,
    api_key: ApiKey = "",
) -> None:
    """Recompute finished games from their replays; exit 1 naming the first bad entry if one fails."""
    replays: list[tuple[str, dict[str, Any]]] = []
    for path in files or []:
        try:
            replays.append((str(path), orjson.loads(path.read_bytes())))
        except (OSError, orjson.JSONDecodeError) as error:
            errors.print(f"[red]error[/red] {path}: {error}")
            raise typer.Exit(2) from None
    if game_id:
        with _client(server, api_key) as client:
            replays += [(gid, _get(client, f"/v1/games/{gid}/replay")) for gid in game_id]
    if not replays:
        errors.print("give replay files or --game-id")
        raise typer.Exit(2)
    failed = 0
    for name, replay in track(replays, description="verifying", console=errors, disable=len(replays) < 3):
        verdict = verify_replay(replay)
        _print_verdict(name, verdict)
        failed += not verdict.ok
    raise typer.Exit(1 if failed else 0)


def _transcript(client: httpx.Client, game_id: str) -> str:
    """The game's events in words, one line per event, as a spectator reads them."""
    lines = []
    for event in _get(client, f"/v1/games/{game_id}/events", after=0):
        seat = event.get("seat")
        who = f"seat {seat}" if seat is not None else "setup"
        text = event.get("text") or orjson.dumps(event.get("event", {})).decode()
        lines.append(f"v{event.get('version', 0):>4} {who:>7}  {text}")
    return "\n".join(lines) + "\n"


@replay_app.command("export")
def replay_export(
    game_id: Annotated[list[str], typer.Argument(help="Game ids to export.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write into.")] = Path("."),
    transcript: Annotated[bool, typer.Option("--transcript", help="Also write a readable .txt transcript.")] = False,
    language: Annotated[str, typer.Option("--language", help="Transcript language (en, es).")] = "en",
    server: Server = DEFAULT_SERVER,
    api_key: ApiKey = "",
) -> None:
    """Write each game's replay as ``<id>.json`` (and its transcript as ``<id>.txt``)."""
    out.mkdir(parents=True, exist_ok=True)
    with _client(server, api_key, language) as client:
        for gid in track(game_id, description="exporting", console=errors, disable=len(game_id) < 3):
            replay = _get(client, f"/v1/games/{gid}/replay")
            (out / f"{gid}.json").write_bytes(orjson.dumps(replay, option=orjson.OPT_INDENT_2))
            if transcript:
                (out / f"{gid}.txt").write_text(_transcript(client, gid), encoding="utf-8")
            console.print(f"wrote {out / gid}.json" + (" and .txt" if transcript else ""))


@games_app.command("list")
def games_list(
    game_type: Annotated[str, typer.Option("--game-type", help="Only this game type.")] = "",
    status: Annotated[str, typer.Option("--status", help="waiting, active, finished or aborted.")] = "",
    limit: Annotated[int, typer.Option("--limit", help="At most this many games.")] = 50,
    server: Server = DEFAULT_SERVER,
    api_key: ApiKey = "",
) -> None:
    """List games, newest first."""
    table = Table("game_id", "type", "status", "seats", "created")
    shown, token = 0, ""
    with _client(server, api_key) as client:
        while shown < limit:
            page = _get(
                client,
                "/v1/games",
                game_type=game_type,
                status=status,
                page_size=min(100, limit - shown),
                page_token=token,
            )
            for game in page.get("games", []):
                seats = ", ".join(s.get("name") or ("(open)" if s.get("open") else "?") for s in game.get("seats", []))
                table.add_row(game["game_id"], game["game_type"], game["status"], seats, game.get("created_at", ""))
                shown += 1
            token = page.get("next_page_token", "")
            if not token:
                break
    console.print(table)


@games_app.command("show")
def games_show(game_id: str, server: Server = DEFAULT_SERVER, api_key: ApiKey = "") -> None:
    """Print one game as JSON (as a spectator or operator sees it)."""
    with _client(server, api_key) as client:
        game = _get(client, f"/v1/games/{game_id}")
    console.print_json(orjson.dumps(game).decode())


@games_app.command("abort")
def games_abort(
    game_id: str,
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the log line).")] = "",
    server: Server = DEFAULT_SERVER,
    api_key: ApiKey = "",
) -> None:
    """Abort an active game (operator key)."""
    with _client(server, api_key) as client:
        game = _json_or_exit(client.post(f"/v1/games/{game_id}/abort", json={"reason": reason}))
    console.print(f"{game_id}: {game['status']}")


@app.command()
def arena(
    game: Annotated[str, typer.Option("--game", help="Game type, e.g. darjeeling.")],
    players: Annotated[int, typer.Option("--players", help="Seats per table.")],
    bots: Annotated[str, typer.Option("--bots", help="Comma-separated bot names, rotated through the seats.")],
    games: Annotated[int, typer.Option("--games", help="How many tables.")] = 100,
    jobs: Annotated[int, typer.Option("--jobs", help="Parallel processes.")] = 1,
    seed: Annotated[int, typer.Option("--seed", help="Seed the tables' seeds are derived from.")] = 1,
    max_moves: Annotated[int, typer.Option("--max-moves", help="Move budget per table.")] = 50_000,
    option: Annotated[
        list[str] | None, typer.Option("--option", help="A game option KEY=VALUE (repeatable), e.g. region=india.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as one JSON object.")] = False,
    report: Annotated[
        Path | None, typer.Option("--report", help="Write report.md, summary.json and plots here.")
    ] = None,
) -> None:
    """Bots play each other (seats rotated, seeds derived); win rates with 95 % intervals, ranks, seats."""
    from services.arena.report import bot_table, seat_table, write_report
    from services.arena.schedule import parse_options, plan, run_tables
    from services.arena.stats import summarize

    names = [name.strip() for name in bots.split(",") if name.strip()]
    try:
        specs = plan(game, players, names, games, seed=seed, max_moves=max_moves, options=parse_options(option or []))
    except ValueError as error:
        errors.print(f"[red]error[/red] {error}")
        raise typer.Exit(2) from None
    with Progress(console=errors, disable=as_json) as progress:
        task = progress.add_task(f"{game} {players}p", total=len(specs))
        results = run_tables(specs, jobs=jobs, on_result=lambda _: progress.advance(task))
    summary = summarize(game, players, results)
    if report is not None:
        errors.print(f"report: {write_report(summary, results, report)}")
    if as_json:
        sys.stdout.write(orjson.dumps(summary).decode() + "\n")
        return
    console.print("\n".join([*bot_table(summary), "", *seat_table(summary)]))


@app.command("arena-report")
def arena_report(
    out: Annotated[Path, typer.Option("--out", help="Folder of bots-report.md and bots-report/.")] = Path("docs"),
    jobs: Annotated[int, typer.Option("--jobs", help="Parallel processes.")] = 2,
    scale: Annotated[float, typer.Option("--scale", help="Multiply every run's table count.")] = 1.0,
    seed: Annotated[int, typer.Option("--seed", help="Seed the tables' seeds are derived from.")] = 1,
    balance_bot: Annotated[str, typer.Option("--balance-bot", help="The bot of the self-play runs.")] = "heuristic",
    game: Annotated[list[str] | None, typer.Option("--game", help="Only these games (default: all).")] = None,
    search_bot: Annotated[str, typer.Option("--search-bot", help="Search bot v heuristic.")] = "mcts",
    render_only: Annotated[
        bool, typer.Option("--render-only", help="Only rewrite the text and plots from summary.json.")
    ] = False,
    only: Annotated[
        list[str] | None,
        typer.Option("--only", help="Re-play only these runs, SECTION[:GAME[:PLAYERS]] (wildcards, comma-separated)."),
    ] = None,
    skip: Annotated[
        list[str] | None, typer.Option("--skip", help="Leave these runs as they are (same form as --only).")
    ] = None,
) -> None:
    """Regenerate the committed bots report: heuristic v random, search v heuristic, balance, content.

    With --only/--skip/--game, only the selected runs are re-played; the others keep their entries.
    """
    from services.arena.bots_report import GAMES, build_report, plan_runs, render_report, select

    if render_only:
        errors.print(f"report: {render_report(out)}")
        return
    chosen, skipped = _specs(only), _specs(skip)
    try:
        select(plan_runs(scale, balance_bot, tuple(game or GAMES), search_bot), chosen, skipped)
    except ValueError as error:
        errors.print(f"[red]error[/red] {error}")
        raise typer.Exit(2) from None

    with Progress(console=errors) as progress:

        def start(total: int) -> Callable[[object], None]:
            task = progress.add_task("arena report", total=total)
            return lambda _: progress.advance(task)

        report = build_report(
            out, jobs, scale, seed, balance_bot, tuple(game or GAMES), search_bot, start, chosen, skipped
        )
    errors.print(f"report: {report}")


def _specs(values: list[str] | None) -> tuple[str, ...]:
    """Repeated and comma-separated run specs as one tuple."""
    return tuple(part.strip() for value in values or [] for part in value.split(",") if part.strip())


SUITES_HELP = "Benchmark suites (default: all): engines render rest grpc sse memory micro."


@app.command()
def bench(names: Annotated[list[str] | None, typer.Argument(help=SUITES_HELP)] = None) -> None:
    """Run the benchmarks of make bench (each a ratio to a baseline timed in the same run)."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{root / 'gen'}"}
    code = subprocess.call([sys.executable, "-m", "bench", *(names or [])], cwd=root, env=env)
    raise typer.Exit(code)


def run() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    run()

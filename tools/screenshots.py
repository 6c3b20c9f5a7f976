"""Regenerate the docs' screenshots of every table, the lobby and the replay viewer (``make screenshots``).

Runs the legibility browser tests (``tests/web/test_web_legible.py``: the real stack, real headless
Chromium, a seat playing each game to its result by clicks) with ``CHAIWALA_SCREENSHOTS`` pointing
at ``docs/assets/screenshots/``, so each check's picture is kept there as
``<game>-<desktop|phone>-<start|middle|end>.png``, ``lobby-<size>.png`` and ``replay-<size>.png``
(and India Rails' path being built, ``india_rails-<size>-path.png``, from ``tests/web/test_web_ir_path.py``);
then makes each PNG smaller (256 colours, optimised, with Pillow).  The pictures are only kept
when every check passes: a failing page is not documented.

    python tools/screenshots.py                      # every game, the lobby and the replay
    python tools/screenshots.py darjeeling india_rails   # those games only
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

from services.common.registry import game_types

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "assets" / "screenshots"
GAMES = tuple(game_types())  # every registered game, in port order


def shrink(path: Path) -> None:
    """Rewrite a PNG with a 256-colour palette, optimised (a screenshot of flat colours loses nothing visible)."""
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)


def main() -> int:
    """Run the legibility tests of the chosen games with screenshots kept; shrink and move them into the docs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help=f"games to shoot, of {', '.join(GAMES)} (default: all)")
    parser.add_argument("--no-pages", action="store_true", help="skip the lobby and the replay viewer")
    args = parser.parse_args()
    unknown = sorted(set(args.games) - set(GAMES))
    if unknown:
        parser.error(f"unknown games: {', '.join(unknown)}")
    chosen = [*(args.games or GAMES), *([] if args.no_pages else ["lobby", "replay"])]
    with tempfile.TemporaryDirectory(prefix="chaiwala-shots-") as kept:
        env = {**os.environ, "CHAIWALA_SCREENSHOTS": kept}
        command = [sys.executable, "-m", "pytest", "tests/web/test_web_legible.py", "-q", "-k", " or ".join(chosen)]
        commands = [command]
        if "india_rails" in chosen:  # India Rails' path being built, before its confirm (test_web_ir_path.py)
            commands.append([sys.executable, "-m", "pytest", "tests/web/test_web_ir_path.py", "-q", "-k", "path_of"])
        if any(subprocess.run(c, cwd=ROOT, env=env, check=False).returncode != 0 for c in commands):
            print("screenshots: a legibility check failed; docs/assets/screenshots/ is left as it was", file=sys.stderr)
            return 1
        OUT.mkdir(parents=True, exist_ok=True)
        for shot in sorted(Path(kept).glob("*.png")):
            shrink(shot)
            shutil.move(shot, OUT / shot.name)
            print(f"screenshots: {(OUT / shot.name).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

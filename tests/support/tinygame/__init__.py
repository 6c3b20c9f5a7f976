"""Pile, a test-only game: proof that a game is one registered unit (issue #43, item 3).

Nothing outside this folder names it.  Tests register it (:mod:`tests.support.tinygame.unit`),
compile its proto into a temporary directory (:func:`tests.support.tinygame.protos.compile_into`)
and hand both to child processes through ``CHAIWALA_GAME_UNITS`` and ``PYTHONPATH``.
"""

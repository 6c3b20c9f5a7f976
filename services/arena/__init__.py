"""The arena: bots play many games against each other, and the statistics say who is stronger.

:mod:`tables` plays one game in-process, :mod:`schedule` seats the bots (rotated) with
derived seeds and runs tables in parallel processes, :mod:`stats` turns results into win
rates with 95 % intervals, mean ranks and seat-position win rates, and :mod:`report`
writes the Markdown report with its plots.  ``chaiwala arena`` is the command line.
"""

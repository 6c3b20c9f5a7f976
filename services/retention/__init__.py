"""Retention: how long a game keeps its full log, compaction to its replay record, idle aborts."""

"""Darjeeling: collect tea tiles with a roaming collector and ship them from the wharf."""

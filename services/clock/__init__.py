"""Turn clocks: time controls of games, kept by the platform, never by the engines."""

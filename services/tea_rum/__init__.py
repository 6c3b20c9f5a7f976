"""Tea & Rum: the pure rules engine, its content and its bots."""

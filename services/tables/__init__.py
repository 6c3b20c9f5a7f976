"""What frontends need to draw tables beyond the RulesService: past versions and static boards."""

"""The rules service: server, settings, thin gRPC handlers and the one owner of a move."""

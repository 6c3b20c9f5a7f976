"""The REST/SSE gateway: thin translation from HTTP to the games' gRPC services."""

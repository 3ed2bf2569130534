"""The service: HTTP + WebSocket app, match actors, Redis store."""

"""Battlehall: a real-time WebSocket game service for turn-based battles."""

__version__ = "0.1.0"

"""The web client: HTML pages and static ES modules, served by the server itself (server/web.py)."""

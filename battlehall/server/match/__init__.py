"""One match: its sans-I/O core (match_core.py and what it imports, which is no I/O
library), its inputs, state and stops, and the asyncio actor that drives the core and
performs its effects (writes, fan-out, deadlines, the server's bots)."""

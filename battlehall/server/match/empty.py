"""One empty dict shared by the tables of every match while they are empty.

An idle match has a dozen tables (timers armed, answers held, bots thinking, ...) that
stay empty until something happens, and an empty dict is 64 bytes. Each such table
starts as `EMPTY`: reading it, or popping and clearing what it does not hold, works as
on any empty dict; a writer first gives the match a dict of its own (`if table is
EMPTY: table = {}`), so nothing is ever written into the shared one.
"""

from __future__ import annotations

from typing import Any

EMPTY: dict[Any, Any] = {}

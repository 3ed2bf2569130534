"""One empty dict (and one empty list) shared by every match's tables while they are empty.

An idle match has a dozen tables (timers armed, answers held, bots thinking, its
clock's lag and charges, ...) that stay empty until something happens, and an empty
dict is 64 bytes. Each such table starts as `EMPTY`: reading it, or popping and
clearing what it does not hold, works as on any empty dict; a writer first gives the
match a dict of its own (`if table is EMPTY: table = {}`). Writing into the shared one
(a bug: every match would see it) raises TypeError instead; a copy of it is a plain dict.

`EMPTY_LIST` is the same for the lists that are empty between two inputs (a match's
batch, a socket's outbox): whoever adds to one first gives it a list of its own. A list
cannot refuse as the dict does (the compiled build appends to a list without asking
it), so the modules that use it say where the list is replaced, and the tests check
that it is still empty after play.
"""

from __future__ import annotations

from typing import Any


class _Shared(dict[Any, Any]):
    """An empty dict that refuses to be written."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("the shared empty table is never written: give the match its own dict first")

    __setitem__ = _refuse
    setdefault = _refuse
    update = _refuse
    __ior__ = _refuse

    def __reduce__(self) -> Any:  # copy, deepcopy and pickle give a plain (writable) dict
        return (dict, ())


EMPTY: dict[Any, Any] = _Shared()


EMPTY_LIST: list[Any] = []

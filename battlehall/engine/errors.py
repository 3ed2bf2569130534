"""Errors raised by the engine, each with the stable code that goes on the wire.

An engine error is raised *before* anything is changed: a state that saw an error
is exactly the state it was before the call.
"""


class EngineError(Exception):
    code = "internal"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class UnknownPrompt(EngineError):
    code = "unknown_prompt"


class NotYourPrompt(EngineError):
    code = "not_your_prompt"


class IllegalOption(EngineError):
    code = "illegal_option"


class BadArgs(EngineError):
    code = "bad_args"


class MatchOver(EngineError):
    code = "match_over"


class BadSeat(EngineError):
    """A resign or an away mark for a name that is not a seat of the match, or a resign
    from a seat that has resigned already."""

    code = "bad_seat"


class NotASeat(ValueError):
    """A ruleset tried to prompt a name that is not a seat: a bug in the ruleset, never
    a player's error. Sides nobody plays decide with the match's generator instead."""


class SetupError(EngineError):
    """An invalid `setup` or `options` in a create request; `path` names the field."""

    code = "bad_setup"

    def __init__(self, path: str, message: str):
        super().__init__(message)
        self.path = path


class CardDataError(Exception):
    """Malformed card data: always names the file, the line and (when known) the card."""

    def __init__(self, file: str, line: int | None, card: str | None, message: str):
        where = f"{file}:{line}" if line else file
        who = f" (card {card!r})" if card else ""
        super().__init__(f"{where}{who}: {message}")
        self.file, self.line, self.card = file, line, card

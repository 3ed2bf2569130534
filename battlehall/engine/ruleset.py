"""The contract every ruleset implements, and the parts of it all rulesets share.

A ruleset is a stateless object; a match is a *state*: plain data (dicts with string
keys, lists, str, int, bool, None; no tuples, no floats) that round-trips through
MessagePack exactly. The ruleset never touches a clock, a socket or global randomness.

Every state has these shared fields, kept up to date by the ruleset:

- ``seats``: the seat names, in seat order.
- ``prompts``: the open prompts, in the order they were opened.
- ``next_prompt``: the counter behind prompt ids (``p1``, ``p2``, ...).
- ``result``: ``None`` while the match runs, then the result dict of ``match_ended``.
- ``resigned``, ``away``: the seats that resigned (in the order they did) and the seats
  marked away (in seat order), kept by :meth:`Ruleset.resign` and
  :meth:`Ruleset.set_away`; absent until first used (read them with :func:`seat_status`).

An *event* is ``{"kind": str, "data": {...}}`` plus, when part of it is hidden,
``"private": {seat: {...}}``: fields only that seat may see, merged into its copy of
``data`` by :meth:`Ruleset.redact`. Spectators (viewer ``None``) see ``data`` alone.

A *prompt* is ``{"id", "seat", "kind", "text", "options", "default"}`` and optionally
``"window"`` (reaction windows share one), ``"time_ms"`` (its own time, instead of the
match's ``prompt_ms``) and ``"bank": False`` (it expires at its deadline and never
spends the seat's time bank). Each option is ``{"id", "text"}`` and, when
it takes arguments, ``"args": {name: [every legal value]}``. The default names an
option; when that option takes arguments, the first listed value of each is used.

When an option's arguments depend on each other, it also carries ``"combos"`` (made by
:func:`with_combos`): a list of ``{name: [values]}``, each naming every argument; the
legal answers are, for some combo, one value of each argument from that combo. Its
``args`` then list every value each argument takes in some combo, the first combo's
first values first (so the default is a legal answer for clients that read only
``args``). docs/protocol.md (Prompts, Arguments) describes it on the wire.

Only seats are prompted. Sides that are not seats (bandits, neutral monsters) decide
inside the ruleset with the match's own generator; :meth:`Ruleset.new_prompt` refuses
any other name (:class:`~battlehall.engine.errors.NotASeat`).

A *result* (``state["result"]``, made by :func:`make_result`) has the same shape in
every ruleset: ``{"winners": [seats], "ranking": [[seats tied], ...], "draw": bool,
"reason": str, "winner": seat | None}`` plus the ruleset's own fields.

These shapes are the TypedDicts below (:class:`Prompt`, :class:`Option`, :class:`Event`,
:class:`Result`, and :data:`LogEntry` for what :func:`apply_entry` re-runs). What a
ruleset *is* (hidden information, simultaneous moves, chance, seat range) is its
:class:`Declaration`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NotRequired, TypedDict, TypeVar, cast

from . import rulings
from .errors import BadArgs, BadSeat, IllegalOption, MatchOver, NotASeat, NotYourPrompt, UnknownPrompt

_T = TypeVar("_T")

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure package, without mypy: the decorator matters only to mypyc
    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[_T], _T]:
        return lambda cls: cls

State = dict[str, Any]


class Option(TypedDict):
    """One answer a prompt offers; `args` lists every legal value of each argument."""

    id: str
    text: str
    args: NotRequired[dict[str, list[Any]]]
    combos: NotRequired[list[dict[str, list[Any]]]]  # made by with_combos


class Prompt(TypedDict):
    """An open question to one seat (made by Ruleset.new_prompt)."""

    id: str
    seat: str
    kind: str
    text: str
    options: list[Option]
    default: str
    window: NotRequired[str]
    time_ms: NotRequired[int]
    bank: NotRequired[bool]


class Event(TypedDict):
    """What happened: public `data`, and each seat's hidden part in `private`."""

    kind: str
    data: dict[str, Any]
    private: NotRequired[dict[str, dict[str, Any]]]


class Result(TypedDict):
    """The shared fields of every result (make_result); a ruleset may add its own."""

    winners: list[str]
    ranking: list[list[str]]
    draw: bool
    reason: str
    winner: str | None


class AnswerEntry(TypedDict):
    """A seat answered a prompt. `at` is the server's clock (ms) when it was recorded."""

    at: NotRequired[int]
    seat: str
    prompt: str
    option: str
    args: dict[str, Any]
    bot: NotRequired[str]  # the level of the server's bot that answered for the seat; the rules ignore it


class TimeoutEntry(TypedDict):
    """A prompt's time ran out: its default answer applies."""

    at: NotRequired[int]
    timeout: Literal[True]
    prompt: str


class AbortEntry(TypedDict):
    """An operator ended the match, or the server ended an abandoned one."""

    at: NotRequired[int]
    abort: Literal[True]
    reason: NotRequired[Literal["abandoned", "judge_rewind", "judge_ruling", "judge_void"]]
    rewound_to: NotRequired[str]  # judge_rewind: the match that goes on from before a decision
    ruling: NotRequired[str]  # judge_ruling, judge_void: "game_loss" | "game_win" | "void" (rulings.py)
    seat: NotRequired[str]  # the seat a game loss or win is awarded to
    by: NotRequired[str]  # the judge who ended it, and why: shown in the replay; the rules ignore them
    note: NotRequired[str]


class ResignEntry(TypedDict):
    """A seat resigned (Ruleset.resign)."""

    at: NotRequired[int]
    resign: str


class AwayEntry(TypedDict):
    """A seat was marked away (Ruleset.set_away)."""

    at: NotRequired[int]
    away: str


class BackEntry(TypedDict):
    """A seat marked away is back (Ruleset.set_away)."""

    at: NotRequired[int]
    back: str


#: One entry of a match's log, what `apply_entry` re-runs.
class JudgeEntry(TypedDict):
    """An operator (or a judge) acted on the match's clocks: `{"action": "pause" |
    "resume" | "add_time", "by": name, "seat"?, "ms"?}`. Only the server's clock changes;
    the rules just tell everyone (a `judge` event)."""

    at: NotRequired[int]
    judge: dict[str, Any]


LogEntry = AnswerEntry | TimeoutEntry | AbortEntry | ResignEntry | AwayEntry | BackEntry | JudgeEntry

Information = Literal["perfect", "hidden"]
Moves = Literal["sequential", "simultaneous"]
Chance = Literal["none", "seeded"]


@dataclass(frozen=True)
class Declaration:
    """What a ruleset is, declared once (after OpenSpiel's GameType): the generic tests
    check each claim in random play, and GET /rulesets shows it.

    - `information`: ``"hidden"`` when some seat may not see something (a hand, a draw
      pile); the ruleset must then override :meth:`Ruleset.secrets`. ``"perfect"``: every
      seat sees the whole state (simultaneous choices not yet revealed aside).
    - `moves`: ``"simultaneous"`` when several prompts may be open at once (a round every
      seat chooses in, a window), with some seat count or options; ``"sequential"``: never
      more than one.
    - `chance`: ``"seeded"`` when the match's seed decides something (a shuffle, a roll);
      ``"none"``: the same answers give the same match whatever the seed.
    - `min_seats`, `max_seats`: how many seats a match takes.
    """

    information: Information
    moves: Moves
    chance: Chance
    min_seats: int
    max_seats: int

    def __post_init__(self) -> None:
        for field, value, allowed in (("information", self.information, ("perfect", "hidden")),
                                      ("moves", self.moves, ("sequential", "simultaneous")),
                                      ("chance", self.chance, ("none", "seeded"))):
            if value not in allowed:
                raise ValueError(f"declaration.{field} is {value!r}, not one of {allowed}")
        if not 1 <= self.min_seats <= self.max_seats:
            raise ValueError(f"declaration seats {self.min_seats}..{self.max_seats}: need 1 <= min <= max")

    def as_data(self) -> dict[str, str]:
        """The claims GET /rulesets shows as `declaration` (the seat range is its `seats`)."""
        return {"information": self.information, "moves": self.moves, "chance": self.chance}

# What the public copy of a prompt event shows: who is asked, what kind, and how it is
# timed (a prompt's own `time_ms`, and `bank`: false when the seat's bank does not apply).
PUBLIC_PROMPT_FIELDS = ("id", "seat", "kind", "window", "time_ms", "bank")


# Compiled (setup.py), the base class stays open to rulesets that are not: a ruleset
# package of its own, or a test's.
@mypyc_attr(allow_interpreted_subclasses=True)
class Ruleset:
    """Base class: subclasses set :attr:`declaration` and implement :meth:`new_state`,
    :meth:`apply` and :meth:`view` (and :meth:`secrets` when information is hidden)."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    #: What the ruleset is; every subclass sets it (checked when the class is defined).
    declaration: ClassVar[Declaration]
    #: option name -> its schema (made by :func:`integer_option`, :func:`choice_option`,
    #: :func:`boolean_option`, :func:`list_option`): ``default``, ``doc``, ``label``, ``type`` and
    #: ``min``/``max`` or ``choices``; shown by GET /rulesets, and what resolve_options checks.
    options_doc: ClassVar[dict[str, dict[str, Any]]] = {}
    #: A short name a player reads ("Spellfire"); GET /rulesets shows it as `title`.
    title: ClassVar[str] = ""
    #: Whether its prompts may share a reaction `window` (so a seat's stops matter);
    #: GET /rulesets shows it as `windows`.
    windows: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse a ruleset whose declaration is missing, or that declares hidden
        information without saying what is hidden (or the reverse): the redaction audit
        checks what `secrets` names, so a forgotten override would pass it unchecked."""
        super().__init_subclass__(**kwargs)
        declared = getattr(cls, "declaration", None)
        if not isinstance(declared, Declaration):
            raise TypeError(f"ruleset {cls.__name__} has no `declaration` (a Declaration)")
        overrides = cls.secrets is not Ruleset.secrets
        if declared.information == "hidden" and not overrides:
            raise TypeError(f"ruleset {cls.__name__} declares hidden information but does not override secrets()")
        if declared.information == "perfect" and overrides:
            raise TypeError(f"ruleset {cls.__name__} declares perfect information but overrides secrets()")

    @property
    def min_seats(self) -> int:
        return self.declaration.min_seats

    @property
    def max_seats(self) -> int:
        return self.declaration.max_seats

    # -- to implement ---------------------------------------------------------------

    def new_state(self, seats: list[str], seed: int, options: dict, setup: dict | None) -> tuple[State, list[Event]]:
        """Build the starting state (raise SetupError naming the bad field) and its events."""
        raise NotImplementedError

    def apply(self, state: State, prompt: Prompt, option: str, args: dict[str, Any]) -> list[Event]:
        """Apply an answer already checked against the prompt's options; update ``state["prompts"]``."""
        raise NotImplementedError

    def view(self, state: State, viewer: str | None) -> dict:
        """What `viewer` (a seat, or None for spectators) may see of the state."""
        raise NotImplementedError

    def definitions(self, state: State) -> dict:
        """What the match defines at its start and never changes, shown to everyone (a
        setup's inline cards): sent once per socket in `welcome`, and once per replay,
        never in a view. Empty by default."""
        return {}

    def card_sets(self) -> list[dict]:
        """The card sets this ruleset ships (for GET /rulesets)."""
        return []

    def secrets(self, state: State, viewer: str | None) -> list:
        """Every value (string or integer) `viewer` must never receive in this state: the
        redaction audit and the property tests check each message against it. A ruleset
        declaring hidden information must override this (and only such a ruleset may)."""
        return []

    # -- the shared contract --------------------------------------------------------

    def describe(self) -> dict:
        return {
            "name": self.name,
            "title": self.title or self.name,
            "summary": self.summary,
            "seats": {"min": self.min_seats, "max": self.max_seats},
            "declaration": self.declaration.as_data(),
            "windows": self.windows,
            "options": self.options_doc,
            "card_sets": self.card_sets(),
        }

    def resolve_options(self, options: dict | None) -> dict:
        """The match options with defaults filled in; an unknown name, or a value outside its
        declared schema (:func:`check_option`), is a SetupError naming ``options.<name>``."""
        from .errors import SetupError

        if options is not None and not isinstance(options, dict):
            raise SetupError("options", "must be an object")
        options = dict(options or {})
        for key in sorted(options):
            if key not in self.options_doc:
                raise SetupError(f"options.{key}", f"unknown option {key!r} for {self.name}")
        resolved = {k: options.get(k, spec["default"]) for k, spec in self.options_doc.items()}
        for key, spec in self.options_doc.items():
            check_option(f"options.{key}", spec, resolved[key])
        return resolved

    def start(self, seats: list[str], seed: int, options: dict | None = None, setup: dict | None = None) -> tuple[State, list[Event]]:
        """A new match: its state and the events that open it (prompt events included).
        A seat count outside min_seats..max_seats is a SetupError naming `seats`."""
        from .errors import SetupError

        if not self.min_seats <= len(seats) <= self.max_seats:
            many = f"{self.min_seats}" if self.min_seats == self.max_seats else f"{self.min_seats} to {self.max_seats}"
            raise SetupError("seats", f"{self.name} is played by {many} seats, not {len(seats)}")
        state, events = self.new_state(list(seats), seed, self.resolve_options(options), setup)
        closed, opened = self._prompt_events(state, [], None, None)
        return state, closed + events + opened

    def prompts(self, state: State) -> list[Prompt]:
        return state["prompts"]

    def find_prompt(self, state: State, prompt_id: str) -> Prompt:
        for prompt in state["prompts"]:
            if prompt["id"] == prompt_id:
                return prompt
        if state["result"] is not None:
            raise MatchOver("the match is over")
        raise UnknownPrompt(f"no open prompt {prompt_id!r}")

    def check(self, state: State, seat: str | None, prompt_id: str, option: str, args: dict[str, Any] | None) -> Prompt:
        """Check an answer against the open prompt; raise the matching error, change nothing."""
        prompt = self.find_prompt(state, prompt_id)
        if seat != prompt["seat"]:
            raise NotYourPrompt(f"prompt {prompt_id} is for {prompt['seat']}")
        for choice in prompt["options"]:
            if choice["id"] == option:
                break
        else:
            raise IllegalOption(f"{option!r} is not an option of prompt {prompt_id}")
        wanted = choice.get("args") or {}
        given = args or {}
        if not isinstance(given, dict) or sorted(given) != sorted(wanted):
            raise BadArgs(f"option {option!r} takes arguments {sorted(wanted)}")
        # The texts name the option and arguments (the prompt's own), never a value given:
        # those are the client's, of any size.
        for name in sorted(wanted):
            if given[name] not in wanted[name]:
                raise BadArgs(f"the value of {name!r} is not one the option lists")
        combos = choice.get("combos")
        if combos is not None and not any(all(given[n] in combo[n] for n in combo) for combo in combos):
            raise BadArgs(f"these values are not a legal combination of the arguments of {option!r}")
        return prompt

    def answer(self, state: State, seat: str | None, prompt_id: str, option: str,
               args: dict[str, Any] | None = None) -> list[Event]:
        """Apply one answer of `seat`; raises an EngineError and changes nothing if it is not legal."""
        prompt = self.check(state, seat, prompt_id, option, args)
        before = list(state["prompts"])
        events = self.apply(state, prompt, option, dict(args or {}))
        self._after_resigns(state, events)
        closed, opened = self._prompt_events(state, before, prompt_id, "answered")
        return closed + events + opened

    def expire(self, state: State, prompt_id: str) -> list[Event]:
        """The prompt's time ran out: apply its default answer."""
        prompt = self.find_prompt(state, prompt_id)
        option, args = default_answer(prompt)
        before = list(state["prompts"])
        events = self.apply(state, prompt, option, args)
        self._after_resigns(state, events)
        closed, opened = self._prompt_events(state, before, prompt_id, "timeout")
        return closed + events + opened

    # -- leaving: resign and away ---------------------------------------------------

    def resign(self, state: State, seat: str) -> list[Event]:
        """`seat` resigns, at any moment: its open prompts close (``cancelled``), it is
        recorded in ``state["resigned"]`` and a public ``seat_resigned`` event says so.
        When one side is left (:meth:`sides_left`) the match ends now (reason
        ``resigned``): that side wins, the others rank below it, the last to leave
        highest. Otherwise the ruleset's :meth:`leave` takes the seat out of play and the
        others play on; the seat never gets a prompt again and ranks below every seat that
        did not resign when the match ends. Raises BadSeat (a name that is not a seat
        or a seat that has resigned already) or MatchOver, and changes nothing then."""
        if state["result"] is not None:
            raise MatchOver("the match is over")
        if seat not in state["seats"]:
            raise BadSeat("not a seat of this match")  # never echo a name given: it may be any size
        if seat in state.get("resigned", []):
            raise BadSeat(f"{seat} has resigned already")
        before = list(state["prompts"])
        state["resigned"] = [*state.get("resigned", []), seat]
        events: list[Event] = [{"kind": "seat_resigned", "data": {"seat": seat}}]
        left = self.sides_left(state)
        if len(left) <= 1:
            state["prompts"] = []
            winners = [s for side in left for s in side]
            gone = [s for s in self.eliminated(state) if s not in state["resigned"]] + state["resigned"]
            # A local, not state["result"] read back: the check above narrowed that to None,
            # and compiled (setup.py) the narrowed type would be what is read.
            result = make_result("resigned", [winners] + [[s] for s in reversed(gone)], winners=winners)
            state["result"] = result
            events.append({"kind": "match_ended", "data": cast(dict[str, Any], result)})
        else:
            events += self.leave(state, seat)
        self._after_resigns(state, events)
        closed, opened = self._prompt_events(state, before, None, None)
        return closed + events + opened

    def set_away(self, state: State, seat: str, away: bool) -> list[Event]:
        """Mark `seat` away (its player gone too long) or back: recorded in
        ``state["away"]`` (seat order), shown in every view (:func:`seat_status`), and
        told by a public ``seat_away`` or ``seat_back`` event; no event when nothing
        changes. Nothing else in the match changes. Raises MatchOver, or BadSeat for
        a name that is not a seat."""
        if state["result"] is not None:
            raise MatchOver("the match is over")
        if seat not in state["seats"]:
            raise BadSeat("not a seat of this match")  # never echo a name given: it may be any size
        marked = state.get("away", [])
        if (seat in marked) == away:
            return []
        state["away"] = [s for s in state["seats"] if (s in marked or s == seat) and (away or s != seat)]
        return [{"kind": "seat_away" if away else "seat_back", "data": {"seat": seat}}]

    def teams(self, state: State) -> list[list[str]]:
        """The sides that win or lose together for the whole match; one seat each by
        default. A match resigned down to one side ends with that side winning."""
        return [[s] for s in state["seats"]]

    def eliminated(self, state: State) -> list[str]:
        """The seats out of the match by its own rules, in the order they went out (none
        by default). They count as gone when a resign decides whether a side is left,
        and rank above the seats that resigned."""
        return []

    def sides_left(self, state: State) -> list[list[str]]:
        """The teams with a seat still in play: neither resigned nor eliminated."""
        gone = state.get("resigned", []) + self.eliminated(state)
        sides = [[s for s in team if s not in gone] for team in self.teams(state)]
        return [side for side in sides if side]

    def leave(self, state: State, seat: str) -> list[Event]:
        """Take the resigned `seat` out of play while the others play on (the seat is in
        ``state["resigned"]`` already): close its prompts, skip its turns, end a battle it
        fights as a loss for its side, and open whatever prompt comes next; the events.
        By default nothing: any prompt of a resigned seat, open or opened later, is
        answered with its default before anyone sees it (:meth:`_after_resigns`), which
        keeps a ruleset correct but plays the seat's turns passively. A ruleset overrides
        this to skip them instead."""
        return []

    def _after_resigns(self, state: State, events: list[Event]) -> None:
        """After any change: a prompt for a resigned seat is answered with its default at
        once (unseen: it never reaches the prompt events), and a result that the rules
        reached ranks the resigned seats last (:func:`rank_resigned`)."""
        resigned = state.get("resigned")
        if not resigned:
            return
        for _ in range(MAX_UNSEEN_ANSWERS):
            waiting = [p for p in state["prompts"] if p["seat"] in resigned]
            if state["result"] is not None or not waiting:
                break
            option, args = default_answer(waiting[0])
            events += self.apply(state, waiting[0], option, args)
        else:  # pragma: no cover - a ruleset that keeps asking a resigned seat forever
            raise RuntimeError(f"{self.name}: a resigned seat was asked {MAX_UNSEEN_ANSWERS} times in a row")
        if state["result"] is not None and state["result"]["reason"] not in ABORT_REASONS:
            state["result"] = rank_resigned(state["result"], resigned)
            for event in events:
                if event["kind"] == "match_ended":
                    event["data"] = cast(dict[str, Any], state["result"])

    def abort(self, state: State, reason: str = "aborted", rewound_to: str | None = None) -> list[Event]:
        """End the match now, without a winner: every open prompt is cancelled and the
        result's reason is `reason`: ``aborted`` (an operator's abort), ``abandoned``
        (nobody answered or was connected for the server's abandon time) or
        ``judge_rewind`` (a judge took the match back to before a decision: it goes on as
        the match `rewound_to`, which the result names)."""
        if state["result"] is not None:
            raise MatchOver("the match is over")
        before = list(state["prompts"])
        state["prompts"] = []
        # Nobody won and nobody drew: every seat shares one place, and `draw` is false.
        result = make_result(reason, [list(state["seats"])], winners=[],
                             **({"rewound_to": rewound_to} if rewound_to is not None else {}))
        result["draw"] = False
        state["result"] = result
        closed, _ = self._prompt_events(state, before, None, None)
        return closed + [{"kind": "match_ended", "data": cast(dict[str, Any], result)}]

    def redact(self, event: Event, viewer: str | None) -> Event:
        """The event as `viewer` may see it: public data plus that viewer's private part."""
        private = event.get("private")
        if viewer is None or not private or viewer not in private:
            return {"kind": event["kind"], "data": event["data"]}
        return {"kind": event["kind"], "data": {**event["data"], **private[viewer]}}

    def reveal(self, event: Event) -> Event:
        """The event with nothing hidden, for replays of finished matches: the public
        `data`, and each seat's hidden part apart in `private` (two seats' fields of the
        same name must not overwrite each other)."""
        shown: Event = {"kind": event["kind"], "data": event["data"]}
        if event.get("private"):
            shown["private"] = event["private"]
        return shown

    # -- helpers for subclasses -----------------------------------------------------

    @staticmethod
    def new_prompt(state: State, seat: str, kind: str, text: str, options: list[Option], default: str,
                   window: str | None = None, time_ms: int | None = None, bank: bool = True) -> Prompt:
        """A prompt for `seat`. `time_ms` gives it its own time instead of the match's
        `prompt_ms`; `bank=False` means it expires at its deadline without spending the
        seat's time bank (short reaction windows)."""
        if seat not in state["seats"]:  # a bandit's decision is the engine's, never a prompt
            raise NotASeat(f"{seat!r} is not a seat of this match ({', '.join(state['seats'])}): "
                           "a side that is not a seat decides with the match's generator")
        state["next_prompt"] += 1
        prompt: Prompt = {"id": f"p{state['next_prompt']}", "seat": seat, "kind": kind, "text": text,
                          "options": options, "default": default}
        if window is not None:
            prompt["window"] = window
        if time_ms is not None:
            prompt["time_ms"] = time_ms
        if not bank:
            prompt["bank"] = False
        return prompt

    @staticmethod
    def _prompt_events(state: State, before: list[Prompt], answered: str | None, reason: str | None) -> tuple[list[Event], list[Event]]:
        """The prompt_closed events (they go before what the answer did) and the prompt events (after)."""
        now_open = [p["id"] for p in state["prompts"]]  # a few prompts: lists beat sets here
        was_open = [p["id"] for p in before]
        closed: list[Event] = []
        for p in before:  # list order, never set order
            if p["id"] not in now_open:
                why = reason if p["id"] == answered else "cancelled"
                closed.append({"kind": "prompt_closed", "data": {"id": p["id"], "seat": p["seat"], "reason": why}})
        opened: list[Event] = []
        for p in state["prompts"]:
            if p["id"] not in was_open:
                public = {k: p[k] for k in PUBLIC_PROMPT_FIELDS if k in p}
                private = {k: p[k] for k in ("text", "options", "default")}
                opened.append({"kind": "prompt", "data": public, "private": {p["seat"]: private}})
        return closed, opened


def with_combos(option: Option, combos: list[dict[str, list[Any]]]) -> Option:
    """`option` with arguments that depend on each other: `combos` lists, for each group
    of values that go together, ``{name: [values]}`` naming every argument (any value
    of each list with any of the others in the same combo is legal). Also sets `args`
    to every value of each argument, first combo first, for clients that read only args."""
    if not combos:
        raise ValueError(f"option {option['id']!r}: combos must not be empty")
    names = sorted(combos[0])
    args: dict[str, list] = {name: [] for name in names}
    for combo in combos:
        if sorted(combo) != names or not all(combo[n] for n in names):
            raise ValueError(f"option {option['id']!r}: every combo names {names}, each with a value")
        for name in names:
            args[name] += [v for v in combo[name] if v not in args[name]]
    return {**option, "args": args, "combos": combos}


def default_answer(prompt: Prompt) -> tuple[str, dict[str, Any]]:
    """The option and arguments applied when a prompt times out."""
    for choice in prompt["options"]:
        if choice["id"] == prompt["default"]:
            lists = (choice["combos"][0] if "combos" in choice else choice.get("args")) or {}
            return choice["id"], {k: v[0] for k, v in sorted(lists.items())}
    raise ValueError(f"prompt {prompt['id']} has no option {prompt['default']!r}")


ABANDONED = "abandoned"  # the result reason of a match the server ended because nobody was there
JUDGE_REWIND = "judge_rewind"  # a judge took the match back to before a decision, as a new match
ABORT_REASONS = ("aborted", ABANDONED, JUDGE_REWIND)
MAX_UNSEEN_ANSWERS = 10_000  # default answers for resigned seats in one step: more is a ruleset's bug


def seat_status(state: State) -> dict[str, list[str]]:
    """What every view shows of who left: ``away`` (seat order) and ``resigned`` (the
    order they resigned in). Each ruleset's `view` includes it."""
    return {"away": list(state.get("away", [])), "resigned": list(state.get("resigned", []))}


def rank_resigned(result: Result, resigned: list[str]) -> Result:
    """`result` with the resigned seats below every other seat, each alone, the last to
    resign highest. A resigned seat among the winners is no winner: when the first place
    changes, the winners are those left of the old ones, else the new first place if it
    is one seat (several there: a draw)."""
    ranking = [[s for s in group if s not in resigned] for group in result["ranking"]]
    ranking = [group for group in ranking if group] + [[s] for s in reversed(resigned)]
    winners = list(result["winners"])
    if ranking[0] != result["ranking"][0]:
        winners = [s for s in winners if s not in resigned] or (list(ranking[0]) if len(ranking[0]) == 1 else [])
    return cast(Result, {**result, "ranking": ranking, "winners": winners, "draw": not winners,
                         "winner": winners[0] if len(winners) == 1 else None})


def apply_entry(ruleset: Ruleset, state: State, entry: LogEntry) -> list[Event]:
    """Apply one entry of a match's log to `state`: an answer (`seat`, `prompt`, `option`,
    `args`), a timeout (`"timeout": true`, `prompt`), an abort (`"abort": true`, with
    `"reason": "abandoned"` when the server ended an abandoned match, `"judge_rewind"` with
    `rewound_to` when a judge took it back to before a decision, `"judge_ruling"` or
    `"judge_void"` with `ruling` and `seat` for a judge's ruling: rulings.py), a resign
    (`"resign": seat`), a seat marked away (`"away": seat`) or back (`"back": seat`), or a
    judge's action on the clocks (`"judge": {...}`, a `judge` event and nothing else).
    The server, `battlehall verify` and the replay's steps all re-run a match through this."""
    if "judge" in entry:  # the clocks' business: nothing of the rules changes
        return [{"kind": "judge", "data": dict(cast(JudgeEntry, entry)["judge"])}]
    if "resign" in entry:
        return ruleset.resign(state, cast(ResignEntry, entry)["resign"])
    if "away" in entry:
        return ruleset.set_away(state, cast(AwayEntry, entry)["away"], True)
    if "back" in entry:
        return ruleset.set_away(state, cast(BackEntry, entry)["back"], False)
    if "timeout" in entry:
        return ruleset.expire(state, cast(TimeoutEntry, entry)["prompt"])
    if "abort" in entry:
        abort = cast(AbortEntry, entry)
        reason = abort.get("reason", "aborted")
        if reason in rulings.RULING_REASONS:  # a judge's ruling: the result is the judge's
            return rulings.rule(ruleset, state, abort.get("ruling", "void"), abort.get("seat"), abort.get("by"),
                                abort.get("note"))
        if reason not in ABORT_REASONS:
            reason = "aborted"
        return ruleset.abort(state, reason, abort.get("rewound_to") if reason == JUDGE_REWIND else None)
    answer = entry
    return ruleset.answer(state, answer["seat"], answer["prompt"], answer["option"], answer["args"])


def random_answer(rng, prompt: Prompt) -> tuple[str, dict[str, Any]]:
    """Any option and any legal arguments of it: always a legal answer. With `combos`,
    a combo is drawn in proportion to its number of answers, so every answer of the
    option is equally likely.

    `rng` is the caller's own `random.Random` (bots, load tests, fuzzing), never the
    match's generator: the engine itself stays deterministic.
    """
    option = rng.choice(prompt["options"])
    lists = option.get("args") or {}
    if "combos" in option:
        sizes = []
        for combo in option["combos"]:
            size = 1
            for values in combo.values():
                size *= len(values)
            sizes.append(size)
        lists = rng.choices(option["combos"], weights=sizes)[0]
    return option["id"], {name: rng.choice(values) for name, values in sorted(lists.items())}


def make_result(reason: str, ranking: list[list[str]], winners: list[str] | None = None, **extra: Any) -> Result:
    """The result of a match, the same shape in every ruleset.

    `ranking` has every seat, best first, seats that finished equal in one group.
    `winners` defaults to the first group when it is one seat, and to nobody (a draw)
    when several seats share first place; give it for a shared victory (an alliance).
    `winner` is the single winner or None, kept for clients of the two-seat rulesets.
    """
    if winners is None:
        winners = list(ranking[0]) if len(ranking[0]) == 1 else []
    return cast(Result, {"winners": list(winners), "ranking": [list(group) for group in ranking], "draw": not winners,
                         "reason": reason, "winner": winners[0] if len(winners) == 1 else None, **extra})


def rank_by(seats: list[str], score: dict) -> list[list[str]]:
    """Seats grouped by equal `score`, highest first, seat order within a group."""
    groups: list[list[str]] = []
    for value in sorted({score[s] for s in seats}, reverse=True):
        groups.append([s for s in seats if score[s] == value])
    return groups


def base_state(seats: list[str]) -> State:
    """The shared fields every state starts with."""
    return {"seats": list(seats), "prompts": [], "next_prompt": 0, "result": None}


# -- option schemas -------------------------------------------------------------------
# One place per option: what GET /rulesets shows (and the lobby draws its control from)
# is what resolve_options checks.

def integer_option(default: int, low: int, high: int, label: str, doc: str) -> dict[str, Any]:
    """An integer from `low` to `high` (both included)."""
    return {"type": "integer", "default": default, "min": low, "max": high, "label": label, "doc": doc}


def choice_option(default: str, choices: list[str], label: str, doc: str) -> dict[str, Any]:
    """One of `choices` (strings, in the order a client shows them)."""
    return {"type": "choice", "default": default, "choices": list(choices), "label": label, "doc": doc}


def boolean_option(default: bool, label: str, doc: str) -> dict[str, Any]:
    """True or false."""
    return {"type": "boolean", "default": default, "label": label, "doc": doc}


def list_option(default: list | None, choices: list[str], label: str, doc: str) -> dict[str, Any]:
    """A list (or null) each of whose items is one of `choices`; its length is the ruleset's
    to check (one per seat, say)."""
    return {"type": "list", "default": default, "choices": list(choices), "nullable": default is None,
            "label": label, "doc": doc}


def check_option(path: str, spec: dict[str, Any], value: Any) -> None:
    """Raise a SetupError naming `path` when `value` is outside the option's schema."""
    from .errors import SetupError

    kind = spec.get("type")
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool) or not spec["min"] <= value <= spec["max"]:
            raise SetupError(path, f"an integer from {spec['min']} to {spec['max']}")
    elif kind == "choice":
        if not isinstance(value, str) or value not in spec["choices"]:
            raise SetupError(path, "one of " + ", ".join(repr(c) for c in spec["choices"]))
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise SetupError(path, "true or false")
    elif kind == "list":
        if value is None and spec.get("nullable"):
            return
        if not isinstance(value, list):
            raise SetupError(path, "a list" + (" or null" if spec.get("nullable") else ""))
        for i, item in enumerate(value):
            if not isinstance(item, str) or item not in spec["choices"]:
                raise SetupError(f"{path}[{i}]", "one of " + ", ".join(repr(c) for c in spec["choices"]))

"""Tournaments: the pure core of an event (formats, pairings, standings, brackets; no I/O).

An event is a log of entries (plain JSON objects) and its state is the fold of that log,
like a match's. Nothing here reads a clock, a file or the network, and nothing random is
drawn but from the event's seed, so the same spec, seed and log always give the same
pairings, on any machine::

    spec = Spec.parse(body, seats=range(2, 3), cap=1024, now=now_ms)  # SpecError(path, message)
    t = Tournament(spec, seed)
    t.apply(entry)              # one entry; TournamentError(code) refuses it and changes nothing
    t.pair_next(at)             # the "paired" entry the next round must get (None: nothing left)
    t.games_to_create()         # the next game of each undecided table, seats in seat order
    t.standings(), t.bracket(), t.public()
    verify_log(spec_body, seed, entries)  # the problems of a log: [] when it checks out

Entries (their "k"): registered, checked_in, dropped, started, paired, game, round_ended,
finished, cancelled; each has the time it was entered ("at", epoch ms), which decides
nothing but the check-in window.

Formats and tie-breaks
----------------------

**Swiss.** Each round ranks the field by the standings (before round 1 every tie-break is
even but ``random``, so the field goes by rating, or by the draw). Each round's
pairing follows these rules, the first most important, each given up only to keep the
ones above it: (1) nobody meets an opponent again and nobody gets a second bye; (2) the
bye of an odd field goes to the lowest-ranked player; (3) players meet players of their
own points: the score gaps as small as can be (the sum of their squares, in score groups:
one player floated two groups down costs more than two floated one group each), then the
fewest pair-downs; (4) within a score group the top half meets the bottom half. The rules are one additive cost and the pairing a
minimum-cost perfect matching: fields of up to 12 are searched exhaustively; larger
fields window by window in standings order (players a window can only pair again float
down to the next), then pairs are swapped anywhere to undo a rematch left. The number of
rounds is the spec's, or the fewest that can separate the field: ceil(log2 n) (pods of
k: ceil(log_k n)). A bye is a won match with the games a won match takes (2-0 in a best
of 3).

**Top cut.** After the swiss rounds, the best `cut` players of the standings still in the
event (or the largest power of two of them there is) play a single elimination seeded by
the swiss standings. The final standings rank them by how far they went, then the rest.

**Single elimination.** Seeded by rating (a draw from the seed breaks equal ratings) on a
bracket of the next power of two: seed s meets seed size+1-s, seeds 1 and 2 can only meet
in the final, and the top seeds take the byes of a short field. A drawn table (equal game
wins, or a round clock) and a dropped opponent send the better seed through.

**Double elimination.** The winners' bracket is the single elimination's; a player who
loses there drops into the losers' bracket, is out after a second loss, and the winners'
bracket winner meets the losers' bracket winner in a one-table grand final (no reset:
its winner is the champion). Rounds are one bracket round each ("bracket": "W2", "L3",
"GF" in the paired entry; stages "elimination", "losers", "final").

**Round robin.** The circle method, seeded by rating: everyone meets everyone once, n-1
rounds (n with a bye a round for an odd field); a dropped player's opponent has a bye.

**Pods** (table_size 3 to 6, swiss only). Each round cuts the standings into the number of
tables whose average size is nearest table_size, every table within the seats the ruleset
and pods allow, sizes differing by at most one (larger on top). A field no split seats
gives byes (a first place's points) to the fewest lowest-ranked players it takes, those
without a bye first. Players of equal points at neighbouring tables swap where that
makes fewer players meet again. Points by place (place_points); players sharing a place
share the points of the places they span (two tied first of [3, 1, 0, 0] get 2 each).

**Best of N** (1, 3, 5). Game g seats the table's players rotated by g-1 places. A table is
decided when a player has the game wins it takes (N // 2 + 1) or all N games are played;
a round clock closes it on the games played. More game wins wins a two-player table,
equal is a drawn match; a pod ranks by game wins, then the points of its places.

**Tie-breaks**, in the spec's order, after points (then rating, then registration order):

- ``omw``: opponents' match-win %: the mean over the opponents met of each one's match
  points over the most it could have had in its rounds, each at least 1/3;
- ``gw``: the player's game-win %: game points (a win 1, a draw the spec's draw points as a
  share of a win's: 1/3 with 3-1-0) over games played, at least 1/3;
- ``ogw``: opponents' game-win %: the mean of the opponents' ``gw``, each at least 1/3;
- ``buchholz``: the sum of the opponents' points;
- ``sonneborn_berger``: the points of the opponents beaten plus half those of the
  opponents drawn with (a pod: each other player's points times the player's share of
  that table's best points);
- ``random``: a number drawn from the seed for each player, the same all event long.

A bye counts for its player's own points, ``gw`` and match-win %, and is no opponent in
anyone's ``omw``, ``ogw``, ``buchholz`` or ``sonneborn_berger``. A pod counts every other
player at the table as an opponent.
"""

from battlehall.tournaments.errors import SpecError, TournamentError
from battlehall.tournaments.spec import Spec
from battlehall.tournaments.tournament import GameCall, Tournament
from battlehall.tournaments.verify import verify_log

__all__ = ["GameCall", "Spec", "SpecError", "Tournament", "TournamentError", "verify_log"]

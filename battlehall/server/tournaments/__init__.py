"""Tournaments on the server: the events a node runs (events.py), each event's runner
(runner.py) over the tournament core (battlehall/tournaments), its games as matches
(games.py), and what its routes answer (views.py, refusals.py). Above the node wing, below
the HTTP side: it makes matches as POST /matches does, through the node's placement."""

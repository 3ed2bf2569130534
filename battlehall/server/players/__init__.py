"""Players: profiles, display names, operators' player tokens, ratings, and quick play
(the queue, who plays whom, and the matcher that makes the matches)."""

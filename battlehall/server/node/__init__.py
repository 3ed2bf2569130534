"""This node: the hub of its matches, their leases kept, lost and taken over, the drain,
where new matches are placed, the other nodes, and mirrors and casters of matches
another node runs."""

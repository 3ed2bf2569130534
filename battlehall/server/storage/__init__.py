"""Storage: everything that talks to Redis, and the only wing that names a key or sends a
command. The store and its writers, match leases, the public listing and delayed reads,
the other wings' records behind typed methods (profiles, ratings, the quick-play queue,
nodes, bindings, spectator counts, rematches, pub/sub), and the private Redis for development."""

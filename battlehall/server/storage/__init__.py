"""Storage: everything that talks to Redis. The store and its writers, match leases, the
public listing and delayed reads, and the private Redis for development."""

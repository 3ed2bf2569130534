"""The one token bucket (token_bucket.py), on a clock the test gives."""

from battlehall.server.token_bucket import TokenBucket


def test_a_bucket_starts_full_and_lets_its_capacity_through_at_once():
    bucket = TokenBucket(rate=2, capacity=3, now=0)
    assert [bucket.take(0) for _ in range(4)] == [True, True, True, False]
    assert bucket.wait_s() == 0.5  # one token at 2 a second


def test_a_bucket_refills_at_its_rate_and_never_beyond_its_capacity():
    bucket = TokenBucket(rate=2, capacity=3, now=0)
    for _ in range(3):
        bucket.take(0)
    assert not bucket.take(0.25)  # half a token
    assert bucket.take(0.5)  # a whole one
    assert bucket.refill(100) == 3  # an hour idle fills it, no more
    assert bucket.wait_s() == 0


def test_what_is_spent_below_zero_is_paid_back_before_the_next_token():
    bucket = TokenBucket(rate=10, capacity=10, now=0)
    bucket.tokens -= 25  # a cost known only after it was let through (ByteBudget)
    assert bucket.refill(1) == -5
    assert not bucket.take(1)
    assert bucket.wait_s() == 0.6
    assert bucket.take(1.6)

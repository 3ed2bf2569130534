"""The prompt clock with several prompts open: per-prompt times, banks spent once."""

from __future__ import annotations

from battlehall.server.clock import Clock


def clock(prompt_ms=1000, bank_ms=500, seats=("a", "b")) -> Clock:
    return Clock.new({"prompt_ms": prompt_ms, "bank_ms": bank_ms}, list(seats))


def test_a_prompt_may_set_its_own_time():
    c = clock()
    assert c.open("p1", "a", 0, time_ms=200) == {"deadline": 200, "bank_ms": 500}
    assert c.open("p2", "b", 0) == {"deadline": 1000, "bank_ms": 500}
    assert c.expires_at("p1") == 700 and c.expires_at("p2") == 1500


def test_a_prompt_without_bank_expires_at_its_deadline_and_spends_nothing():
    c = clock()
    assert c.open("p1", "a", 0, time_ms=200, bank=False) == {"deadline": 200, "bank_ms": 0}
    assert c.expires_at("p1") == 200
    c.close("p1", 200)
    assert c.data["banks"]["a"] == 500


def test_the_bank_is_spent_once_for_prompts_overdue_together():
    c = clock()
    c.open("p1", "a", 0)
    c.open("p2", "a", 0)
    # Both overdue from 1000: the bank runs out at 1500 for both, not at 1500 and 2000.
    assert c.expires_at("p1") == c.expires_at("p2") == 1500
    c.close("p1", 1200)
    assert c.data["banks"]["a"] == 300
    assert c.expires_at("p2") == 1500  # 300 left, charged up to 1200
    c.close("p2", 1500)
    assert c.data["banks"]["a"] == 0  # 500 in all: the union of [1000, 1200] and [1000, 1500]


def test_overlapping_overdue_intervals_are_charged_as_their_union():
    c = clock(bank_ms=10_000)
    c.open("p1", "a", 0)      # overdue from 1000
    c.open("p2", "a", 500)    # overdue from 1500
    c.close("p1", 2000)       # [1000, 2000]: 1000
    c.close("p2", 2600)       # [1500, 2600] minus what is already paid: 600
    assert c.data["banks"]["a"] == 10_000 - 1600
    c.open("p3", "a", 5000)   # a later prompt starts afresh
    c.close("p3", 6100)
    assert c.data["banks"]["a"] == 10_000 - 1700


def test_an_earlier_overdue_prompt_drains_the_bank_for_a_later_one():
    c = clock()
    c.open("p1", "a", 0)      # deadline 1000
    c.open("p2", "a", 800)    # deadline 1800
    # The bank drains from 1000 (p1 overdue) and is empty at 1500; p2 keeps its own deadline.
    assert c.expires_at("p1") == 1500
    assert c.expires_at("p2") == 1800


def test_banks_of_different_seats_are_apart():
    c = clock()
    c.open("p1", "a", 0)
    c.open("p2", "b", 0)
    c.close("p1", 1400)
    assert c.data["banks"] == {"a": 100, "b": 500}
    assert c.expires_at("p2") == 1500


def test_window_opening_time_is_kept_and_shifted():
    c = clock()
    c.open("p1", "a", 100, window=True)
    c.open("p2", "b", 100)
    assert c.window_opened("p1") == 100 and c.window_opened("p2") is None
    c.shift(50)
    assert c.window_opened("p1") == 150 and c.info("p1")["deadline"] == 1150


def test_untimed_match_still_remembers_windows():
    c = clock(prompt_ms=None)
    assert c.open("p1", "a", 7, window=True) == {}
    assert c.expires_at("p1") is None and c.window_opened("p1") == 7


def test_untimed_match_still_times_a_prompt_with_its_own_time():
    """A reaction window is a timed prompt on its own short clock whatever the match clock is;
    an untimed match has no bank to spend after it."""
    c = clock(prompt_ms=None)
    assert c.open("p1", "a", 7, time_ms=500, bank=True, window=True) == {"deadline": 507, "bank_ms": 0}
    assert c.open("p2", "a", 7) == {}
    assert c.expires_at("p1") == 507 and c.expires_at("p2") is None and c.info("p1") == {"deadline": 507, "bank_ms": 0}
    c.close("p1", 600)
    assert c.data["banks"]["a"] == 500


def test_clock_data_of_older_snapshots_still_reads():
    c = Clock({"prompt_ms": 1000, "bank_ms": 500, "banks": {"a": 500},
               "open": {"p1": {"seat": "a", "deadline": 1000}}})
    assert c.expires_at("p1") == 1500 and c.window_opened("p1") is None
    c.close("p1", 1100)
    assert c.data["banks"]["a"] == 400


def test_a_late_answer_is_credited_its_lateness_within_its_lag_and_the_bank_pays_the_rest():
    c = clock(bank_ms=500)
    c.open("p1", "a", 0)
    assert c.record("p1", 900, lag_ms=300) == {"used_ms": 900, "lag_ms": 0, "bank_ms": 0}  # in time
    assert c.record("p1", 1200, lag_ms=300) == {"used_ms": 1200, "lag_ms": 200, "bank_ms": 0}
    assert c.record("p1", 1400, lag_ms=300) == {"used_ms": 1400, "lag_ms": 300, "bank_ms": 100}
    c.close("p1", 1400, 300)
    assert c.data["banks"]["a"] == 400 and c.data["lag"] == {"a": 300} and c.data["charged"]["a"] == 1100


def test_the_grace_is_capped_and_bounded_by_the_quota():
    from battlehall.server.clock import LAG_CAP_MS, LAG_QUOTA_MS

    c = clock()
    c.open("p1", "a", 0)
    assert c.grace("p1", 10_000) == LAG_CAP_MS
    assert c.grace("p1", 0) == 0
    c.data["lag"] = {"a": LAG_QUOTA_MS - 50}
    assert c.grace("p1", 400) == 50 and c.lag_left("a") == 50


def test_an_untimed_prompt_records_its_time_and_nothing_else():
    c = clock(prompt_ms=None)
    c.open("p1", "a", 0)
    assert c.record("p1", 5000, lag_ms=300) == {"used_ms": 5000, "lag_ms": 0, "bank_ms": 0}
    assert c.grace("p1", 300) == 0

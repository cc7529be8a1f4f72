"""The circuit breaker's state machine, on a clock the test moves."""

from __future__ import annotations

import unittest

from neardup_scrapy import CircuitBreaker


class Clock:
    """A monotonic clock that only moves when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class CircuitBreakerTest(unittest.TestCase):
    def setUp(self) -> None:
        self.clock = Clock()
        self.breaker = CircuitBreaker(threshold=3, cooldown=30.0, clock=self.clock)

    def test_opens_after_threshold_consecutive_failures(self) -> None:
        self.assertFalse(self.breaker.record_failure())
        self.assertFalse(self.breaker.record_failure())
        self.assertTrue(self.breaker.allow())
        self.assertTrue(self.breaker.record_failure())
        self.assertFalse(self.breaker.allow())
        self.assertEqual(self.breaker.opened_count, 1)

    def test_a_success_resets_the_count(self) -> None:
        self.breaker.record_failure()
        self.breaker.record_failure()
        self.breaker.record_success()
        self.assertFalse(self.breaker.record_failure())
        self.assertFalse(self.breaker.record_failure())
        self.assertTrue(self.breaker.allow())

    def test_one_probe_after_cooldown_then_closes_on_success(self) -> None:
        for _ in range(3):
            self.breaker.record_failure()
        self.clock.now += 29.9
        self.assertFalse(self.breaker.allow())
        self.clock.now += 0.1
        self.assertTrue(self.breaker.allow())  # the probe
        self.assertFalse(self.breaker.allow())  # only one
        self.breaker.record_success()
        self.assertTrue(self.breaker.allow())
        self.assertTrue(self.breaker.allow())

    def test_failed_probe_reopens_for_a_full_cooldown(self) -> None:
        for _ in range(3):
            self.breaker.record_failure()
        self.clock.now += 30
        self.assertTrue(self.breaker.allow())
        self.assertTrue(self.breaker.record_failure())
        self.assertEqual(self.breaker.opened_count, 2)
        self.clock.now += 29
        self.assertFalse(self.breaker.allow())
        self.clock.now += 1
        self.assertTrue(self.breaker.allow())

    def test_late_failures_while_open_do_not_extend_the_cooldown(self) -> None:
        for _ in range(3):
            self.breaker.record_failure()
        self.clock.now += 20
        self.assertFalse(self.breaker.record_failure())  # a call started before it opened
        self.clock.now += 10
        self.assertTrue(self.breaker.allow())


if __name__ == "__main__":
    unittest.main()

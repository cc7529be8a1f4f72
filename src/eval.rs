//! Benchmark scoring, as `../shared/bench/score.py` defines it.

"""Shared helpers for the Python suite (run against a build: PYTHONPATH=build/<preset>/python)."""
import gc

import pytest


@pytest.fixture
def collect():
    """Runs the garbage collector so that dropped arrays are really gone before a check."""

    def run():
        for _ in range(3):
            gc.collect()

    return run

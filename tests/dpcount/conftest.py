"""Shared fixture: one TPC-H cache per test session, inside pytest's temporary folder."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tpch_cache(tmp_path_factory: pytest.TempPathFactory):
    """A cache folder for generated TPC-H tables, shared by the tests of one session."""
    return tmp_path_factory.mktemp("tpch-cache")

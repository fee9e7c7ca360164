"""Tests of the PostgreSQL backend's foundations: the throwaway cluster and its per-test databases."""

from __future__ import annotations

import psycopg


def test_each_test_gets_an_empty_database_of_its_own(postgres_url):
    with psycopg.connect(postgres_url) as conn:
        tables = conn.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'").fetchone()
        name = conn.execute("SELECT current_database()").fetchone()[0]
    assert tables == (0,)
    assert name.startswith("rr_test_") and name in postgres_url

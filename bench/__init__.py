"""Benchmarks of the survey app: ``make bench`` (``python -m bench.run``).

Not part of the test suite. Each module measures one thing and returns
:class:`bench.report.Figure` rows; :mod:`bench.run` prints them as one table.
Everything runs on 127.0.0.1 with temporary files that are removed at the end.
"""

"""What the figures were measured on: date, CPU, cores, memory, Python, SQLite."""

from __future__ import annotations

import datetime as dt
import os
import platform
import sqlite3
from pathlib import Path


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory_gib() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 2**20:.0f} GiB RAM"
    except OSError:
        pass
    return "RAM unknown"


def describe() -> str:
    """One line, for example ``2026-11-22, Intel Xeon, 2 cores, 24 GiB RAM, Python 3.11.7, SQLite 3.40.1``."""
    return ", ".join(
        [
            dt.datetime.now().strftime("%Y-%m-%d %H:%M"),
            _cpu_model(),
            f"{os.cpu_count()} cores",
            _memory_gib(),
            f"{platform.system()} {platform.release()}",
            f"Python {platform.python_version()}",
            f"SQLite {sqlite3.sqlite_version}",
        ]
    )

"""``secrets.randbelow`` and ``secrets.randbits`` served in bulk from a seeded stream of words, for tests that
draw 10^5 to 10^6 times from a production sampler.

Each live call of ``secrets.randbelow`` is a system call (``os.urandom``) plus Python overhead, about
1.5 us; a sampler test of 10^6 draws spends most of its CPU there (and a third of it in the kernel).
:func:`use_bulk_secrets` patches the two functions of the ``secrets`` module, for one test, with versions
that read 64-bit words, :data:`WORDS` at a time, from numpy's PCG64 seeded with the test's own name
(:func:`seed_of`). The sampler under test is unchanged (it still calls ``secrets.randbelow``); only its words
come in bulk, and from a seeded generator, so every statistical test of it draws the same sample on every run
and machine: its verdict at its stated level is a fixed fact of the code, not a coin that fails one run in a
thousand (CI once failed so, on a correct sampler: ``P[000|all]`` at 4.4 standard errors). That the live
functions are wired to ``secrets`` is tested where they are used (the samplers' source is read for it).

``randbelow(n)`` is exact: a word ``x`` uniform on ``[0, 2^64)`` is kept when ``x < 2^64 - (2^64 mod n)``
(a whole number of copies of ``[0, n)``) and answered ``x mod n``; otherwise the next word is read (rejection
sampling, as ``random.SystemRandom`` itself does over ``getrandbits``). ``randbits(k)`` for ``k <= 64`` is
the top ``k`` bits of a word. Bounds above 2^32 and wider bit counts go to the real functions.
"""

from __future__ import annotations

import secrets
import zlib
from collections.abc import Callable, Iterator

import numpy as np

#: Words per call of the byte source (512 KiB).
WORDS = 1 << 16
_WORD = 1 << 64


def seed_of(name: str) -> int:
    """A seed fixed by a test's name (its node id): CRC-32 of its UTF-8 bytes, the same on every run."""
    return zlib.crc32(name.encode())


def word_source(token_bytes: Callable[[int], bytes]) -> Iterator[int]:
    """Uniform 64-bit words, endlessly, from ``token_bytes(8 * WORDS)`` at a time."""
    while True:
        yield from np.frombuffer(token_bytes(8 * WORDS), dtype=np.uint64).tolist()


def bulk_functions(words: Iterator[int]) -> tuple[Callable[[int], int], Callable[[int], int]]:
    """``(randbelow, randbits)`` over ``words`` (see the module docstring), with the real ones' refusals."""
    real_randbelow, real_randbits = secrets.randbelow, secrets.randbits

    def randbelow(n: int) -> int:
        if not 0 < n <= 1 << 32:
            return real_randbelow(n)  # its ValueError for n <= 0; the rare wide bound
        limit = _WORD - _WORD % n
        for x in words:
            if x < limit:
                return x % n
        raise AssertionError("the word source ended")

    def randbits(k: int) -> int:
        if not 0 < k <= 64:
            return real_randbits(k)
        return next(words) >> (64 - k)

    return randbelow, randbits


def use_bulk_secrets(monkeypatch, name: str) -> None:
    """Patch ``secrets.randbelow`` and ``secrets.randbits`` for the test's duration with bulk versions over
    PCG64 seeded by :func:`seed_of` ``(name)``."""
    randbelow, randbits = bulk_functions(word_source(np.random.default_rng(seed_of(name)).bytes))
    monkeypatch.setattr(secrets, "randbelow", randbelow)
    monkeypatch.setattr(secrets, "randbits", randbits)

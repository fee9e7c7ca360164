"""A seeded central-noise sampler, for tests and simulations only.

:func:`seeded_sampler` runs the algorithms of :data:`surveys.central_noise.SECURE` over
``random.Random(seed).randrange``, so a test of a release is reproducible. Its draws are predictable from the
seed, so it lives here, outside every privacy path: no module of the app imports ``random``
(tests/test_layers.py::test_no_source_module_draws_from_random).
"""

from __future__ import annotations

import random

from surveys.central_noise import CentralSampler, ExactSampler


def seeded_sampler(seed: int) -> CentralSampler:
    """The same algorithms as :data:`surveys.central_noise.SECURE` over ``random.Random(seed).randrange``."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"the seed must be a whole number, got {seed!r}")
    return ExactSampler(random.Random(seed).randrange)

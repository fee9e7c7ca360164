"""A ``select_one`` question randomized through a general misclassification matrix.

Written in a survey file as the matrix of ``P(report option j | true option i)``,
one row per reported option and one column per true option, in the order of
the choices (van den Hout and van der Heijden 2002)::

    - name: income
      type: select_one
      label: Your yearly income
      choices: [low, middle, high]
      design:
        matrix:
          - [2/3, 1/6, 1/6]
          - [1/6, 2/3, 1/6]
          - [1/6, 1/6, 2/3]

Every entry is an exact fraction, every column sums to 1 and the matrix is
invertible (:class:`analysis.misclassification.MisclassificationDesign`
checks it). Here: the survey-file check, the server's draw from :mod:`secrets`
(the device's twin is ``static/randomize.js``) and the guessing rate.
"""

from __future__ import annotations

import secrets
from math import lcm

from analysis.design import DesignError
from analysis.misclassification import MisclassificationDesign

#: What a matrix design is written like, for messages.
MATRIX_EXAMPLE = "{matrix: [[2/3, 1/6, 1/6], [1/6, 2/3, 1/6], [1/6, 1/6, 2/3]]} (one row per reported option)"


def matrix_design(value: object, k: int | None) -> MisclassificationDesign:
    """The design of a ``{matrix: ...}`` mapping for a question with ``k`` choices (``None``: not known yet).

    Raises
    ------
    DesignError
        Naming what is wrong: not a list of rows, a bad entry, a column that does not sum to 1, a singular
        matrix, or a size other than ``k``.
    """
    design = MisclassificationDesign(value)  # type: ignore[arg-type]
    if k is not None and design.k != k:
        raise DesignError(f"matrix must have one row and one column per choice ({k}), got {design.k}", "matrix")
    return design


def misclassification_index(truth: int, design: MisclassificationDesign) -> int:
    """One reported option index for the true index ``truth``: column ``truth`` of the matrix, drawn exactly.

    One integer ``u`` uniform on ``[0, D)``, ``D`` the common denominator of the column; the report is the
    first ``j`` whose cumulative share exceeds ``u / D``. Every threshold is compared, whatever ``u``.
    """
    if not 0 <= truth < design.k:
        raise ValueError(f"truth must be an option index in [0, {design.k}), got {truth!r}")
    column = [row[truth] for row in design.matrix]
    denominator = lcm(*(p.denominator for p in column))
    u = secrets.randbelow(denominator)
    cumulative, below = 0, []
    for share in column:
        cumulative += share * denominator
        below.append(u < cumulative)
    return below.index(True)


def misclassification_attack_success(design: MisclassificationDesign) -> float:
    """Best chance of guessing the true option from one report under a uniform prior:
    ``sum_j max_i P[j, i] / k`` (the Bayes guess picks the likeliest true option for each report)."""
    return float(sum(max(row) for row in design.matrix) / design.k)

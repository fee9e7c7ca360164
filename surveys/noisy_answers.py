"""The noisy-answer package: the responses CSV (streamed), its codebook and the R recipe for each question.

Pure: takes the survey and plain values or iterators that the web layer and the CLI read from the database
(:mod:`web.gather`). The noisy answers are what is stored: a respondent's true answers exist nowhere. The
codebook gives every design the answers were randomized with, so an analyst can debias them with other
software (R's RRreg, or the one-line estimator given for each column); :mod:`surveys.stats_files` builds the
R, Stata and SPSS files from it. The estimate, break-down and model tables are :mod:`surveys.export`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction

from analysis import BinaryDesign, ForcedResponseDesign, MultipleChoiceDesign
from analysis.misclassification import MisclassificationDesign
from analysis.numeric_design import NUMERIC_DESIGN_KINDS
from surveys.answer_columns import (
    RESPONSE_COLUMNS,
    AnswerCells,
    converted_chunks,
    converted_rows,
    converts,
    question_columns,
    responses_header,
)
from surveys.arms import GROUPS, group_yes_probabilities, is_two_group
from surveys.definition import Survey
from surveys.design_contract import design_from_record

RESPONSE_COLUMN_NOTES = {
    "response_id": "Random id of the response; carries no order or time.",
    "survey_version": "Version of the survey file the response was given to.",
    "design_id": "Id of the design record the answers were randomized with (see designs).",
    "randomized_on": "device (randomized in the browser) or server (JavaScript off).",
    "arm": (
        "The respondent's random arm, drawn before and independently of any answer: 1 or 2, the group of a "
        "two-group design (cheater detection, stochastic lie detector: the group's p1 or p2 applies; RRreg's "
        "group = 1 or 2), direct (the direct-question control arm: its yes/no and choice answers asked directly, "
        "not randomized; its numbers and check-all-that-apply answers randomized as in every arm, so keep those rows "
        "for them), or empty (the survey has neither)."
    ),
    "day": "Day the response was stored, YYYY-MM-DD.",
}

#: What an excluded day means for the responses CSV (codebook).
EXCLUDED_DAY_NOTE = (
    "Excluded by an admin from the estimates on the results page and in the estimates exports; "
    "the responses of this day are still rows of the responses CSV (column day)."
)

#: What the survey file's ``population_size`` setting means (codebook).
POPULATION_SIZE_NOTE = (
    "The survey file's population_size: the number of people the respondents were drawn from (null: not given). "
    "With it, each yes/no question answered under one design (not pooled, not two-group) has, in the estimates "
    "exports, std_err_finite_population and finite_population_low/high: the unbiased variance of a simple random "
    "sample without replacement of n of these N people (Chaudhuri 2011; RRTCS's estimator with N given), "
    "(1 - n/N) s_r^2 / n + sum_i r_i (r_i - 1) / (N n) with r_i = (z_i - a) / t, and its Wald interval."
)

#: Rows fetched from SQLite, and written, per chunk of :func:`iter_responses_csv`
#: (the batch size :mod:`web.gather` reads with).
CSV_BATCH_ROWS = 1000


# --------------------------------------------------------------------------
# The noisy answers.


def responses_csv_name(survey: Survey) -> str:
    """The responses CSV's file name, as downloaded and as the R script reads it."""
    return f"{survey.id}-responses.csv"


def iter_responses_csv(
    survey: Survey,
    ready_chunks: Iterable[str],
    other_row_batches: Iterable[Sequence[Sequence]],
    design_records: Iterable[tuple[str, int, dict]] = (),
) -> Iterator[str]:
    """Every stored response of ``survey`` as CSV, in chunks of rows.

    The header is :data:`RESPONSE_COLUMNS` then the columns of each question of
    the current definition (empty where a response has no answer, for
    example one given to an older version): one per question, but a number
    in its units and a check-all-that-apply question one 0/1 column per
    option, each row read with the grid of its design (``design_records``,
    :func:`storage.queries.design_records`; :mod:`surveys.answer_columns`). ``ready_chunks`` are the
    responses stored with exactly these columns, as CSV text SQLite joined
    from the stored answer lines (choice names never need CSV quoting;
    :func:`storage.export_rows.response_line_chunks`); they pass through as they
    are. ``other_row_batches`` are lists of rows of the rest (older designs:
    the :data:`RESPONSE_COLUMNS` then the answers, extracted from JSON by
    SQLite; :func:`storage.export_rows.response_row_batches`), written by
    :mod:`csv` one chunk per batch. Both are consumed lazily, so memory stays
    constant however many responses there are; storage orders each part by
    the random response id, so the order reveals nothing about when a
    response came in.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(responses_header(survey))
    yield buffer.getvalue()
    if not converts(survey):
        yield from ready_chunks
        yield from _written_rows(other_row_batches)
        return
    cells = AnswerCells(survey, design_records)
    yield from converted_chunks(cells, ready_chunks)
    yield from _written_rows(converted_rows(cells, other_row_batches))


def _written_rows(row_batches: Iterable[Sequence[Sequence]]) -> Iterator[str]:
    """Chunks of rows written by :mod:`csv` (older designs: answers from JSON), one per batch."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for rows in row_batches:
        writer.writerows(rows)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate(0)


# --------------------------------------------------------------------------
# Codebook.


def _r_vector(values) -> str:
    return "c(" + ", ".join(f"{float(v):.10g}" for v in values) + ")"


#: RRreg's ``model`` for each one-parameter yes/no design, and its ``p`` vector from the design
#: (RRreg's documentation of ``RRuni``: Warner p; UQTknown c(p, q); Kuk c(k1, k2); Mangat p; Crosswise and
#: Triangular q, with 1 = "same" and 1 = "yes to at least one", our stored "yes").
RRREG_MODELS = {
    "warner": ("Warner", lambda d: (d.p,)),
    "unrelated_question": ("UQTknown", lambda d: (d.p, d.q)),
    "kuk": ("Kuk", lambda d: (d.k1, d.k2)),
    "mangat": ("Mangat", lambda d: (d.p,)),
    "crosswise": ("Crosswise", lambda d: (d.q,)),
    "triangular": ("Triangular", lambda d: (d.q,)),
}


def _rrreg_p(design: BinaryDesign) -> str:
    """RRreg's ``p`` for ``design``: one number or ``c(...)``."""
    values = RRREG_MODELS[design.kind][1](design)
    return f"{float(values[0]):.10g}" if len(values) == 1 else _r_vector(values)


def _binary_description(design: BinaryDesign) -> dict:
    """:func:`design_description` of a one-parameter yes/no design other than forced response."""
    theta1, theta0 = design.yes_probabilities()
    parameters = {k: v for k, v in design.to_dict().items() if k not in ("kind", "theta1", "theta0")}
    return {
        "kind": design.kind,
        "label": design.label(),
        **parameters,
        **{f"{k}_float": float(Fraction(v)) for k, v in parameters.items()},
        "theta1": str(theta1),
        "theta0": str(theta0),
        "trait_answer": design.trait_answer,
        "randomized_by_software": design.randomized_by_software,
        "rrreg_model": RRREG_MODELS[design.kind][0],
        "rrreg_p": _rrreg_p(design),
    }


def _two_group_description(design) -> dict:
    """:func:`design_description` of a two-group design: p1, p2, each group's yes probabilities, RRreg's call."""
    rrreg = design.rrreg()
    groups = {}
    for group in GROUPS:
        theta1, theta0 = group_yes_probabilities(design, group)
        groups[group] = {"theta1": str(theta1), "theta0": str(theta0)}
    return {
        "kind": design.kind,
        "label": design.label(),
        "p1": str(design.p1),
        "p2": str(design.p2),
        "p1_float": float(design.p1),
        "p2_float": float(design.p2),
        "groups": groups,
        "second_parameter": design.second_parameter,
        "randomized_by_software": True,
        "rrreg_model": rrreg["model"],
        "rrreg_p": _r_vector(Fraction(p) for p in rrreg["p"]),
    }


def design_description(design: BinaryDesign | MultipleChoiceDesign | None) -> dict | None:
    """A design's probabilities as exact fractions (strings) and as floats; RRreg's model and ``p`` for the
    one-parameter yes/no designs other than forced response and the two-group designs."""
    if design is None:
        return None
    if is_two_group(design):
        return _two_group_description(design)
    if getattr(design, "kind", None) in NUMERIC_DESIGN_KINDS:
        return _numeric_description(design)
    if isinstance(design, MisclassificationDesign):
        return {
            "kind": design.kind,
            "label": design.label(),
            "k": design.k,
            "matrix": [[str(p) for p in row] for row in design.matrix],
            "matrix_float": design.floats().tolist(),
            "rrreg_model": design.rrreg_model,
            "rrreg_p": "matrix("
            + _r_vector(p for row in design.matrix for p in row)
            + f", nrow = {design.k}, byrow = TRUE)",
        }
    if isinstance(design, BinaryDesign) and not isinstance(design, ForcedResponseDesign):
        return _binary_description(design)
    if isinstance(design, ForcedResponseDesign):
        return {
            "kind": design.kind,
            "label": design.label(),
            "t": str(design.t),
            "a": str(design.a),
            "b": str(design.b),
            "t_float": float(design.t),
            "a_float": float(design.a),
            "b_float": float(design.b),
        }
    share = design.uniform_share
    return {
        "kind": design.kind,
        "label": design.label(),
        "k": design.k,
        "t": str(design.t),
        "t_float": float(design.t),
        "forced_share": str(share),
        "forced_share_float": float(share),
    }


def _numeric_description(design) -> dict:
    """A number's or a check-all question's design (:mod:`analysis.numeric_design`): its parameters as exact
    fractions (strings) and floats, and its epsilon."""
    common = {"kind": design.kind, "label": design.label(), "epsilon": design.epsilon}
    if design.kind == "discrete_laplace":
        low, high = design.output_range
        return common | {
            "steps": design.steps,
            "scale": str(design.scale),
            "scale_float": float(design.scale),
            "clamp": design.clamp,
            "output_range": [low, high],
            "noise_variance": design.noise_variance,
        }
    if design.kind == "bounded":
        bottom, top = design.one_probability(0), design.one_probability(design.steps)
        return common | {
            "steps": design.steps,
            "high": design.high,
            "low": design.low,
            "p_one_at_min": str(bottom),
            "p_one_at_max": str(top),
            "p_one_at_min_float": float(bottom),
            "p_one_at_max_float": float(top),
        }
    return (
        common
        | {"options": design.options, "p": str(design.p), "q": str(design.q)}
        | {
            "p_float": float(design.p),
            "q_float": float(design.q),
        }
    )


def grid_description(question) -> dict | None:
    """A number question's grid as the codebook gives it: what a value of its column means."""
    number = question.number
    if number is None:
        return None
    lowest, step = number.text(number.minimum), number.text(number.step)
    return {
        **number.to_dict(),
        "steps": number.steps,
        "bin_labels": list(number.bin_labels()),
        "note": (
            f"Values are in the question's units, written exactly with {number.decimals} decimals: the stored grid "
            f"position or noisy output y (a whole number) as min + y * step = {lowest} + y * {step}, so y = "
            f"(value - {lowest}) / {step}. A plain answer is a value from {lowest} to {number.text(number.maximum)} "
            f"in steps of {step}. A Laplace output may lie outside [{lowest}, {number.text(number.maximum)}]: that "
            "is the noise added to it, and clipping it would bias the mean. The one-bit (bounded) design's column is "
            "its bit, 0 or 1, not a value (see how_to_analyse). A row is in the grid of its design_id (stored_designs)."
        ),
    }


def _how_to_analyse_number(question, design) -> str:
    """The codebook's note for an ``integer`` or ``decimal`` question: the mechanism and how to debias its mean."""
    name, number = question.name, question.number
    lowest, step = number.text(number.minimum), number.text(number.step)
    if design.kind == "discrete_laplace":
        low, high = design.output_range
        return (
            f"Discrete Laplace mechanism: each value is {lowest} + ({step}) * (k + Z), with k the true grid position "
            f"(0..K, K = {design.steps}) and noise Z with P(Z = z) = (1 - r) / (1 + r) r^|z|, r = exp(-1/b), scale "
            f"b = {design.scale} = {float(design.scale):.10g} grid steps, k + Z kept within [{low}, {high}]: values "
            f"from {number.text(number.value_of(low))} to {number.text(number.value_of(high))}, outside the range "
            f"by the noise; epsilon = K / b. The noise has mean zero and variance 2 r / (1 - r)^2 = "
            f"{design.noise_variance:.10g} grid steps squared, so the mean of the values is unbiased for the mean "
            "true value: mean = mean(v), se = sd(v) / sqrt(n) (the sample variance holds the noise), in the "
            f"question's units. In R: v <- as.numeric(d${name}[!is.na(d${name})]); m <- mean(v); "
            "se <- sd(v) / sqrt(length(v)). The distribution over the bins needs a deconvolution (the results page "
            "estimates it); a histogram of the values is the true one blurred by the noise. "
            "Rows with another design_id may have another design or grid (see stored_designs)."
        )
    bottom, top = design.one_probability(0), design.one_probability(design.steps)
    spread = float(top - bottom)
    return (
        "One bit per answer (Duchi et al. 2018): the column is the bit, 0 or 1, stored 1 with probability "
        "(low K + (high - low) k) / ((high + low) K) "
        f"for the true grid position k (0..K, K = {design.steps}), high = {design.high}, low = {design.low}: "
        f"{float(bottom):.10g} at the lowest value, {float(top):.10g} at the highest; epsilon = ln(high / low). With "
        "ybar the share of stored ones, the unbiased mean grid position is m = K ((high + low) ybar - low) / "
        f"(high - low) = {design.steps} * (ybar - {float(bottom):.10g}) / {spread:.10g}, its standard error "
        f"se = {design.steps} * sqrt(ybar (1 - ybar) / n) / {spread:.10g}. In the question's units: mean = "
        f"{lowest} + {step} * m, standard error {step} * se. In R: "
        f"y <- as.numeric(d${name}[!is.na(d${name})]); m <- {design.steps} * (mean(y) - {float(bottom):.10g}) / "
        f"{spread:.10g}. One bit identifies the mean only, not the distribution. "
        "Rows with another design_id may have another design or grid (see stored_designs)."
    )


def option_column_names(question, columns: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """A check-all question's option columns: ``columns`` (the survey's, :func:`question_columns`), else
    ``<question>_1`` ... ``<question>_m``."""
    return columns or tuple(f"{question.name}_{j}" for j in range(1, len(question.choices) + 1))


def _how_to_analyse_check_all(question, design, columns: tuple[str, ...]) -> str:
    """The codebook's note for a ``select_multiple`` question: each option's bit and how to debias it."""
    m = design.options
    p, q = float(design.p), float(design.q)
    quoted = ", ".join(f'"{column}"' for column in columns)
    return (
        f"Check all that apply: one column per option, {', '.join(columns)} in the order of the choices, each 0 "
        f"or 1: 1 with p = {design.p} if the option was ticked and q = {design.q} if not, drawn independently; "
        f"epsilon = {m} * max(ln(p / q), ln((1 - q) / (1 - p))) for the whole question. With ybar_j "
        f"the share of ones of option j, its share of respondents who would tick it is (ybar_j - q) / (p - q) "
        f"= (ybar_j - {q:.10g}) / {p - q:.10g}, standard error sqrt(ybar_j (1 - ybar_j) / n) / (p - q); the mean "
        f"number ticked is (mean(S) - {m} q) / (p - q) with S the ones of each answer. In R: "
        f"bits <- na.omit(sapply(d[c({quoted})], as.integer)); "
        f"share <- (colMeans(bits) - {q:.10g}) / {p - q:.10g}; ticked <- (mean(rowSums(bits)) - {m * q:.10g}) / "
        f"{p - q:.10g}. Rows with another design_id may have another design (see stored_designs)."
    )


def how_to_analyse(question, design, columns: tuple[str, ...] | None = None) -> str:
    """How to debias the column of ``question`` stored under ``design`` (codebook, statistics-file notes);
    ``columns``: a check-all question's option columns (:func:`option_column_names`)."""
    name = question.name
    if design is None and question.number is not None:
        return (
            "Not randomized: stored as given, in the question's units; average or tabulate it directly. "
            "It has no privacy protection."
        )
    if design is None and question.type == "select_multiple":
        return (
            f"Not randomized: one column per option ({', '.join(option_column_names(question, columns))}), 1 ticked "
            "and 0 not, as given; tabulate them directly. It has no privacy protection."
        )
    if design is None:
        return "Not randomized: stored as given; tabulate it directly. It has no privacy protection."
    if getattr(design, "kind", None) in NUMERIC_DESIGN_KINDS:
        if question.number is not None:
            return _how_to_analyse_number(question, design)
        return _how_to_analyse_check_all(question, design, option_column_names(question, columns))
    if isinstance(design, ForcedResponseDesign):
        t, a, b = design.floats()
        return (
            f"Forced response: truthful with t={design.t}, forced yes with a={design.a}, forced no "
            f"with b={design.b}. Code y = 1 for yes, 0 for no, and drop empty cells. The share of "
            f"true yeses is pi_hat = (mean(y) - a) / t = (mean(y) - {a:.10g}) / {t:.10g} "
            f"(clip to [0, 1] to report). In R: RRreg::RRuni(response = {name}01, data = d, "
            f'model = "FR", p = {_r_vector((b, a))}) with d${name}01 <- as.integer(d${name} == "yes"); '
            "RRreg's p lists the probability of being forced to answer category 0, 1, ... (here "
            "0 = no, 1 = yes), so p = c(b, a), and the yes share is the row pi1. "
            "Rows with another design_id may have other t, a, b (see designs): estimate each "
            "design separately and pool."
        )
    if question.second_innocuous and design == question.design:
        return _how_to_analyse_extended_crosswise(name, design)
    if isinstance(design, BinaryDesign):
        return _how_to_analyse_binary(name, design)
    if is_two_group(design):
        return _how_to_analyse_two_group(name, design)
    if isinstance(design, MisclassificationDesign):
        p = "matrix(" + _r_vector(v for row in design.matrix for v in row) + f", nrow = {design.k}, byrow = TRUE)"
        return (
            "Misclassification matrix: the report j is drawn with P[j, i] for the true option i (rows: reported "
            "option, columns: true option, in the order of the choices; see design.matrix). With lambda_hat the "
            "observed shares, pi_hat = P^-1 lambda_hat and Cov(pi_hat) = P^-1 (diag(lambda) - lambda lambda') P^-T / n "
            "(van den Hout and van der Heijden 2002). In R: code the options 0..k-1 in order and call "
            f'RRreg::RRuni(response = {name}_code, data = d, model = "custom", p = {p}).'
        )
    k, share = design.k, design.uniform_share
    return (
        f"Randomized choice: the true option with t={design.t}, otherwise one of the k={k} options "
        f"uniformly, so each option is forced with (1 - t)/k = {share}. The share of option j is "
        f"pi_hat_j = (share_j - {float(share):.10g}) / {float(design.t):.10g}. In R: code the options "
        f"0..{k - 1} in the order listed and call RRreg::RRuni(response = {name}_code, data = d, "
        f'model = "FR", p = {_r_vector([share] * k)}); the rows pi0..pi{k - 1} are the shares. '
        "Rows with another design_id may have another t or other options (see designs)."
    )


def _how_to_analyse_binary(name: str, design: BinaryDesign) -> str:
    """The codebook's note for a one-parameter yes/no design other than forced response."""
    theta1, theta0 = (float(p) for p in design.yes_probabilities())
    coding = {
        "crosswise": '"yes" means both answers the same (both yes or both no), "no" exactly one yes. ',
        "triangular": '"yes" means yes to at least one statement, "no" no to both. ',
    }.get(design.kind, "")
    stored = (
        "stored as given (the respondent combined the two answers)"
        if not design.randomized_by_software
        else ("randomized by software")
    )
    return (
        f"{design.label()[0].upper()}{design.label()[1:]}: {stored}. {coding}"
        f"P(yes | trait) = {theta1:.10g}, P(yes | no trait) = {theta0:.10g}. Code y = 1 for yes, 0 for no, "
        f"and drop empty cells. The share with the trait is pi_hat = (mean(y) - {theta0:.10g}) / "
        f"({theta1:.10g} - {theta0:.10g}) (clip to [0, 1] to report); its standard error "
        f"sqrt(lambda (1 - lambda) / n) / |{theta1:.10g} - {theta0:.10g}| (RRreg divides by n - 1). In R: "
        f'RRreg::RRuni(response = {name}01, data = d, model = "{RRREG_MODELS[design.kind][0]}", '
        f'p = {_rrreg_p(design)}) with d${name}01 <- as.integer(d${name} == "yes"). '
        "Rows with another design_id may have another design (see designs): estimate each separately and pool."
    )


def _how_to_analyse_extended_crosswise(name: str, design) -> str:
    """The codebook's note for an extended crosswise question (:mod:`analysis.extended_crosswise`)."""
    q = design.q
    return (
        f'Extended crosswise (Heck, Hoffmann and Moshagen 2018): stored as given; "yes" means both answers the same. '
        f"Rows with arm 1 read the first innocuous statement (true with q = {q}), rows with arm 2 the second (true "
        f'with 1 - q = {1 - q}). Code s = 1 for "yes" in arm 1 and for "no" in arm 2 (0 otherwise), drop empty '
        f"cells; then pi_hat = (mean(s) - {float(1 - q):.10g}) / ({float(2 * q - 1):.10g}) (clip to [0, 1] to "
        f"report), standard error sqrt(lambda (1 - lambda) / n) / {abs(float(2 * q - 1)):.10g}, lambda = mean(s). "
        "If everyone follows the instructions, the share of s = 1 is the same in both arms: test it with a G-test "
        "(likelihood ratio, 1 degree of freedom) of the 2 x 2 table of arm by s. In R: RRreg::RRuni(response = "
        f'{name}01, data = subset(d, arm == "1"), model = "Crosswise", p = {float(q):.10g}) and with arm == "2" '
        f'and p = {float(1 - q):.10g}, pooled by inverse variance, with d${name}01 <- as.integer(d${name} == "yes"). '
        "Rows with another design_id may have another design (see designs)."
    )


def _how_to_analyse_two_group(name: str, design) -> str:
    """The codebook's note for the cheater detection model and the stochastic lie detector."""
    rrreg = design.rrreg()
    p = _r_vector(Fraction(v) for v in rrreg["p"])
    second = {
        "gamma": "the share of cheaters gamma (who say no whatever the randomizer says; pi is then the share of "
        "honest carriers, a lower bound for the prevalence)",
        "t": "the honesty rate t of carriers",
    }[design.second_parameter]
    return (
        f"{design.label()[0].upper()}{design.label()[1:]}: randomized by software in two random groups (column arm: "
        f"1 or 2; rows with arm direct are the control arm, asked directly). Code y = 1 for yes, 0 for no, drop "
        f"empty cells and the direct arm, and estimate the prevalence pi and {second} from the two groups' yes "
        f"rates (Clark and Desharnais 1998; Moshagen, Musch and Erdfelder 2012). In R: "
        f'RRreg::RRuni(response = {name}01, data = d, model = "{rrreg["model"]}", p = {p}, group = d$arm) '
        f'with d <- subset(d, arm %in% c("1", "2")), d$arm <- as.integer(d$arm) and '
        f'd${name}01 <- as.integer(d${name} == "yes").'
    )


def _stored_question_design(design_id: str, version: int, record: dict, current_id: str) -> dict:
    design = None if record.get("design") is None else design_from_record(record["design"])
    return {
        "design_id": design_id,
        "survey_version": version,
        "current": design_id == current_id,
        "type": record.get("type"),
        "choices": list(record.get("choices", [])),
        **({"number": record["number"]} if "number" in record else {}),
        "design": design_description(design),
    }


def _option_columns(question, names: tuple[str, ...]) -> list[dict]:
    """A check-all question's CSV columns, each with its option."""
    return [
        {"name": name, "choice": choice.name, "label": choice.label, "values": {"1": "ticked", "0": "not ticked"}}
        for name, choice in zip(names, question.choices, strict=True)
    ]


def codebook(
    survey: Survey, design_records: Iterable[tuple[str, int, dict]], excluded_days: Iterable[tuple[str, int]]
) -> dict:
    """What each column of the responses CSV means, and how to debias it.

    ``design_records`` are the survey's stored design records
    ``(design id, survey version, {question: record})``
    (:func:`storage.queries.design_records`); ``excluded_days`` the days an
    admin excluded, with their responses, ``(day, responses)``
    (:func:`storage.day_exclusions.excluded_days`).

    Returns a JSON-able dict: the survey's id, title and version, the current
    design id, and ``columns``: one entry per CSV column, but one per
    check-all-that-apply question, whose ``csv_columns`` name its option
    columns (:mod:`surveys.answer_columns`). A question column
    has its label, type, choices, whether it is randomized, its current
    design and every stored design record for it (``stored_designs``, by
    ``design_id``, the value in the CSV's ``design_id`` column), so that rows
    collected under an old design can be debiased with that design.
    ``excluded_days`` lists the days an admin left out of the estimates,
    with their responses: the CSV keeps those rows (see its ``day`` column).
    ``population_size`` gives the survey file's setting and what it changes
    (:data:`POPULATION_SIZE_NOTE`).
    """
    current_id = survey.design_fingerprint()
    records = list(design_records)
    columns = [{"name": name, "label": RESPONSE_COLUMN_NOTES[name], "type": "text"} for name in RESPONSE_COLUMNS]
    for question, names in ((c.question, c.names) for c in question_columns(survey)):
        columns.append(
            {
                "name": question.name,
                "label": question.label,
                "type": question.type,
                "choices": [{"name": c.name, "label": c.label} for c in question.choices],
                "randomized": question.is_randomized,
                **({"innocuous": question.innocuous} if question.innocuous else {}),
                **({"second_innocuous": question.second_innocuous} if question.second_innocuous else {}),
                **({"grid": grid_description(question)} if question.number is not None else {}),
                **({"csv_columns": _option_columns(question, names)} if question.type == "select_multiple" else {}),
                "design_id": current_id,
                "design": design_description(question.design),
                "stored_designs": [
                    _stored_question_design(design_id, version, questions[question.name], current_id)
                    for design_id, version, questions in records
                    if question.name in questions
                ],
                "how_to_analyse": how_to_analyse(question, question.design, names),
            }
        )
    return {
        "survey_id": survey.id,
        "title": survey.title,
        "version": survey.version,
        "current_design_id": current_id,
        "population_size": {"value": survey.population_size, "note": POPULATION_SIZE_NOTE},
        "columns": columns,
        "excluded_days": [{"day": day, "responses": count, "note": EXCLUDED_DAY_NOTE} for day, count in excluded_days],
    }

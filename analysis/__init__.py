"""Pure statistics for randomized-response surveys.

Designs and their privacy cost (:mod:`analysis.design`,
:mod:`analysis.privacy`), estimators (:mod:`analysis.estimate`,
:mod:`analysis.multiple_choice`, :mod:`analysis.misclassification`, the
two-group designs of :mod:`analysis.two_group`, the direct-question
comparison of :mod:`analysis.control_arm`), confidence intervals
(:mod:`analysis.intervals`), survey planning (:mod:`analysis.planning`) and
the burst rule of the integrity warning (:mod:`analysis.bursts`).
Only numpy, scipy and the standard library; see ``analysis/README.md``.
"""

# privacy first: design imports it.
from analysis.bursts import BURST_ALPHA, MIN_BURST_COUNT, HourTest, judge_hour
from analysis.control_arm import ControlArmComparison, compare_with_direct
from analysis.design import (
    TWO_COIN,
    BinaryDesign,
    CrosswiseDesign,
    ForcedResponseDesign,
    KukDesign,
    MangatDesign,
    MultipleChoiceDesign,
    TriangularDesign,
    UnrelatedQuestionDesign,
    WarnerDesign,
    design_from_dict,
)
from analysis.estimate import (
    Difference,
    PooledEstimate,
    ProportionEstimate,
    difference,
    estimate_proportion,
    pool_estimates,
)
from analysis.intervals import (
    INTERVAL_METHODS,
    ConfidenceInterval,
    OutsideDesign,
    clopper_pearson_interval,
    confidence_interval,
    outside_design,
    wald_interval,
    wilson_interval,
)
from analysis.misclassification import (
    MisclassificationDesign,
    MisclassificationEstimate,
    estimate_misclassification,
)
from analysis.multiple_choice import (
    MultipleChoiceEstimate,
    estimate_multiple_choice,
    project_to_simplex,
)
from analysis.planning import (
    TwoGroupPlan,
    half_width_for_n,
    power_one_sided,
    sample_size_for_half_width,
    sample_size_for_sequence_half_width,
    sequence_half_width_for_n,
    two_group_half_width,
    two_group_power,
    two_group_sample_size,
)
from analysis.privacy import (
    SurveyEpsilon,
    advanced_composition,
    basic_composition,
    binary_epsilon,
    forced_response_attack_success,
    forced_response_epsilon,
    multiple_choice_attack_success,
    multiple_choice_epsilon,
    survey_epsilon,
)
from analysis.regression import (
    Coefficient,
    LikelihoodRatioTest,
    LogisticFit,
    NotIdentified,
    PredictedPrevalence,
    fit_logistic,
    fit_logistic_rows,
)
from analysis.sequences import (
    MIXTURE_PRIOR,
    ConfidenceSequence,
    DifferenceSequence,
    confidence_sequence,
    difference_sequence,
    log_mixture_martingale,
    option_confidence_sequences,
)
from analysis.two_group import (
    NO_EPSILON_LABEL,
    CheaterDetectionDesign,
    StochasticLieDetectorDesign,
    TwoGroupEstimate,
    estimate_two_group,
    two_group_design_from_dict,
)

__all__ = [
    "BinaryDesign",
    "CrosswiseDesign",
    "ForcedResponseDesign",
    "KukDesign",
    "MangatDesign",
    "TriangularDesign",
    "UnrelatedQuestionDesign",
    "WarnerDesign",
    "MultipleChoiceDesign",
    "TWO_COIN",
    "design_from_dict",
    "estimate_proportion",
    "ProportionEstimate",
    "ConfidenceInterval",
    "confidence_interval",
    "wald_interval",
    "wilson_interval",
    "clopper_pearson_interval",
    "INTERVAL_METHODS",
    "outside_design",
    "OutsideDesign",
    "estimate_multiple_choice",
    "MultipleChoiceEstimate",
    "project_to_simplex",
    "pool_estimates",
    "PooledEstimate",
    "difference",
    "Difference",
    "sample_size_for_half_width",
    "sample_size_for_sequence_half_width",
    "sequence_half_width_for_n",
    "half_width_for_n",
    "power_one_sided",
    "survey_epsilon",
    "SurveyEpsilon",
    "binary_epsilon",
    "forced_response_epsilon",
    "multiple_choice_epsilon",
    "forced_response_attack_success",
    "multiple_choice_attack_success",
    "basic_composition",
    "advanced_composition",
    "judge_hour",
    "HourTest",
    "MIN_BURST_COUNT",
    "BURST_ALPHA",
    "fit_logistic",
    "fit_logistic_rows",
    "LogisticFit",
    "Coefficient",
    "LikelihoodRatioTest",
    "PredictedPrevalence",
    "NotIdentified",
    "confidence_sequence",
    "ConfidenceSequence",
    "option_confidence_sequences",
    "difference_sequence",
    "DifferenceSequence",
    "log_mixture_martingale",
    "MIXTURE_PRIOR",
    "CheaterDetectionDesign",
    "StochasticLieDetectorDesign",
    "two_group_design_from_dict",
    "estimate_two_group",
    "TwoGroupEstimate",
    "NO_EPSILON_LABEL",
    "MisclassificationDesign",
    "estimate_misclassification",
    "MisclassificationEstimate",
    "compare_with_direct",
    "ControlArmComparison",
    "two_group_sample_size",
    "two_group_half_width",
    "two_group_power",
    "TwoGroupPlan",
]

"""The data partitions of a PSL predicate (pslpython's Partition)."""

import enum

__all__ = ["Partition"]


class Partition(enum.Enum):
    """Where a predicate's atoms go: observed values, targets to infer, or
    the truth (for evaluation and weight learning). The values are the
    section names of a .data file."""

    OBSERVATIONS = "observations"
    TARGETS = "targets"
    TRUTH = "truth"

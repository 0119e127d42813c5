"""hinge from Python: PSL models shaped like pslpython, Markov logic
(hinge.mln) and knowledge-graph completion (hinge.kgc), run by the hinge
binary.

The package is pure Python on the standard library; it returns pandas
DataFrames when pandas is installed and plain rows (hinge.Rows) when it is
not. It runs the hinge binary named by the environment variable HINGE_BIN,
else the one bundled in a platform wheel, else `hinge` on PATH, on files it
writes to a temporary directory, and reads the results back. A failed run
raises HingeError carrying hinge's message (file:line:col) and exit status;
Ctrl-C stops hinge before KeyboardInterrupt reaches the caller.

A pslpython script ports by changing its imports::

    from hinge import Model, Partition, Predicate, Rule
"""

from . import kgc, mln
from ._run import find_binary, version as binary_version
from ._table import Rows
from .errors import (BinaryNotFoundError, HingeError, HingeInputError, HingeRunError,
                     HingeTimeoutError, ModelError, PredicateError, RuleError)
from .model import InferenceResults, Model
from .partition import Partition
from .predicate import Predicate
from .rule import Rule

__version__ = "0.1.0"

__all__ = [
    "BinaryNotFoundError", "HingeError", "HingeInputError", "HingeRunError", "HingeTimeoutError",
    "InferenceResults",
    "Model", "ModelError", "Partition", "Predicate", "PredicateError", "Rows", "Rule", "RuleError",
    "binary_version", "find_binary", "kgc", "mln",
]

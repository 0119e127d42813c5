"""Exceptions raised by the hinge package.

A run of the hinge binary that fails raises :class:`HingeError`, which
carries hinge's own message (``file:line:col: what is wrong`` for bad input)
and its exit status: 2 is bad input (also a :class:`ValueError`), 1 a run
that failed (also a :class:`RuntimeError`). Mistakes found in Python before
hinge runs raise the pslpython-named errors below (``ModelError``,
``PredicateError``, ``RuleError``) or ``ValueError``/``TypeError``.
"""

import os
import re

__all__ = [
    "BinaryNotFoundError",
    "HingeError",
    "HingeInputError",
    "HingeRunError",
    "ModelError",
    "PredicateError",
    "RuleError",
]


class ModelError(Exception):
    """A model cannot be run as given (pslpython's name for it)."""


class PredicateError(ModelError):
    """A predicate or its data is not well formed (pslpython's name)."""


class RuleError(ModelError):
    """A rule string is not well formed (pslpython's name)."""

    def __init__(self, rule_string, message):
        super().__init__("%s Rule: %r." % (message, rule_string))
        self.rule_string = rule_string


class BinaryNotFoundError(FileNotFoundError):
    """Neither HINGE_BIN nor PATH gives a hinge binary to run."""


# The position hinge puts at the start of a message about bad input:
# "path:line:col: ..." (the path may hold spaces; never a colon followed by
# digits and another colon).
_POSITION = re.compile(r"(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?P<col>\d+): ")

# A message about a whole file starts with the file alone: "path: ..." or,
# for a file the package wrote, its label ("<train triples>: no triples").
_FILE = re.compile(r"(?P<file><[^<>\n]+>|[^\s:<][^:\n]*?): ")


class HingeError(ModelError):
    """The hinge binary exited with a non-zero status.

    Attributes:
        status: hinge's exit status (2 bad input, 1 the run failed).
        message: hinge's error message, as it printed it (without the
            "hinge COMMAND: " prefix), file paths of files the package wrote
            replaced by what they hold (for example ``<rules>`` for the rules
            of a Model, whose line is then named).
        file, line, column: the position the message names, or None; a
            message about a whole file (``<train triples>: no triples``)
            names the file alone, and line and column are None.
        command: the command line that was run (a list).
        stderr: everything hinge wrote to its standard error.
        results: for a PSL inference that failed after writing its values
            (infeasible hard constraints, exit status 1), the values it
            reached, as Model.infer returns them; otherwise None.
    """

    def __init__(self, message, status, command=(), stderr="", hint=None):
        self.message = message
        self.status = status
        self.command = list(command)
        self.stderr = stderr
        self.hint = hint
        self.results = None
        self.file = self.line = self.column = None
        m = _POSITION.search(message)
        if m:
            self.file = m.group("file")
            self.line = int(m.group("line"))
            self.column = int(m.group("col"))
        else:
            m = _FILE.match(message)
            if m and (m.group("file").startswith("<") or os.path.isfile(m.group("file"))):
                self.file = m.group("file")
        text = "%s (hinge exit status %d)" % (message, status)
        if hint:
            text += "\n" + hint
        super().__init__(text)


class HingeInputError(HingeError, ValueError):
    """hinge refused its input (exit status 2): a bad rule, atom, file or flag."""


class HingeRunError(HingeError, RuntimeError):
    """hinge ran and failed (exit status 1, or killed by a signal)."""


class HingeTimeoutError(HingeRunError, TimeoutError):
    """hinge ran past the timeout= given and was stopped (Ctrl-C's way:
    nothing written)."""


def from_status(message, status, command=(), stderr="", hint=None):
    """The HingeError subclass for an exit status."""
    cls = HingeInputError if status == 2 else HingeRunError
    return cls(message, status, command, stderr, hint)

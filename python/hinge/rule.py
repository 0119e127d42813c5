"""A PSL rule (pslpython's Rule): the text of one rule, with its weight and
squaring parsed out so that weight learning can change them.

The rest of the rule is left as written and checked by hinge when the model
runs; a mistake there is reported with the rule's number and text.
"""

import json
import math
import os
import re

from . import _run
from .errors import RuleError

__all__ = ["Rule", "RuleError"]

_WEIGHT = re.compile(r"^([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*:\s*")
_SQUARED = re.compile(r"\s*\^\s*([12])\s*$")
_HARD = re.compile(r"\s*\.\s*$")


class Rule(object):
    """A PSL rule, from a string such as "0.5: Smokes(X) -> Cancer(X) ^2"
    (weighted, squared), "Smokes(X) -> Cancer(X) ." (a hard constraint) or
    "Smokes(X) -> Cancer(X)" with weight= (and squared=) given as arguments.

    As in pslpython, what the string says and what the arguments say must
    agree, a weighted rule stays weighted and an unweighted one unweighted,
    and weights are non-negative.
    """

    def __init__(self, rule_string, weighted=None, weight=None, squared=None):
        if not isinstance(rule_string, str):
            raise RuleError(rule_string, "A rule is a string, got %s." % type(rule_string).__name__)
        raw = rule_string
        text = rule_string.strip()
        if not text:
            raise RuleError(raw, "Empty rule.")

        text, filters = _split_filters(text)

        parsed_weight = None
        m = _WEIGHT.match(text)
        if m:
            parsed_weight = float(m.group(1))
            text = text[m.end():]

        parsed_squared = None
        m = _SQUARED.search(text)
        if m:
            parsed_squared = m.group(1) == "2"
            text = text[:m.start()]

        hard = False
        if parsed_weight is None and parsed_squared is None and _HARD.search(text):
            hard = True
            text = _HARD.sub("", text)
        elif parsed_weight is None and parsed_squared is not None and _HARD.search(text):
            raise RuleError(raw, "Rule string is squared (implying weighted) and has an unweighted marker.")

        if hard:
            if weighted:
                raise RuleError(raw, "Rule string has an unweighted marker, but the passed in argument says the rule is weighted.")
            weighted = False
        elif weighted is None:
            weighted = True

        if parsed_weight is not None:
            if weight is not None and not math.isclose(parsed_weight, weight):
                raise RuleError(raw, "Weight from rule string (%r) and passed in weight (%r) do not match." % (parsed_weight, weight))
            weight = parsed_weight
        if weight is not None and not weighted:
            raise RuleError(raw, "Rule was declared as unweighted, but a weight was supplied.")
        if weight is None and weighted:
            raise RuleError(raw, "Rule was declared as weighted, but no weight was supplied through parameters or rule string.")
        if weight is not None:
            weight = float(weight)
            if not (weight >= 0) or math.isinf(weight):
                raise RuleError(raw, "Weights must be finite and non-negative, got %r." % weight)

        if parsed_squared is not None:
            if squared is not None and squared != parsed_squared:
                raise RuleError(raw, "Squared status from rule string (%s) does not match argument (%s)." % (parsed_squared, squared))
            squared = parsed_squared
        elif squared is None:
            squared = False
        if squared and not weighted:
            raise RuleError(raw, "A rule cannot be both squared and unweighted.")
        if not text.strip():
            raise RuleError(raw, "The rule has no body.")

        self._rule_body = text.strip()
        self._filters = filters
        self._weighted = bool(weighted)
        self._weight = weight
        self._squared = bool(squared)
        # source is where the rule was read ("file:line", load_from_file),
        # None for one made from a string.
        self.source = None

    def set_weight(self, weight):
        """Sets the weight (finite, non-negative) of a weighted rule; returns the rule."""
        if not self._weighted:
            raise RuleError(self._rule_body, "Unweighted rules cannot take a weight.")
        weight = float(weight)
        if not (weight >= 0) or math.isinf(weight):
            raise RuleError(self._rule_body, "Weights must be finite and non-negative, got %r." % weight)
        self._weight = weight
        return self

    def set_squared(self, squared):
        """Sets whether a weighted rule's hinge is squared; returns the rule."""
        if not self._weighted:
            raise RuleError(self._rule_body, "Unweighted rules cannot be squared.")
        self._squared = bool(squared)
        return self

    def weight(self):
        return self._weight

    def weighted(self):
        return self._weighted

    def squared(self):
        return self._squared

    def body(self):
        """The rule without its weight, squaring, hard-constraint marker or
        filter clauses."""
        return self._rule_body

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return "Rule(%r)" % self.to_string()

    def to_string(self, weight_places=None):
        """The rule as a line of a .psl file. The weight is written so that it
        reads back exactly (repr), or with weight_places decimals."""
        parts = []
        if self._weighted:
            if weight_places is None:
                parts.append(repr(self._weight) + ":")
            else:
                parts.append(("%%.%df:" % weight_places) % self._weight)
        parts.append(self._rule_body)
        if self._squared:
            parts.append("^2")
        elif not self._weighted:
            parts.append(".")
        if self._filters:
            parts.append(self._filters)
        return " ".join(parts)

    @staticmethod
    def load_from_file(path, logger=False):
        """The rules of a .psl file, as a list, read by hinge's own parser
        (`hinge fmt --json`, so it needs the hinge binary): comments are
        skipped, a rule may span lines, and a syntax error raises
        HingeInputError (not RuleError) naming the file, line and column.
        Each rule remembers where it starts (source, "file:line"), which an
        error of a later run names. logger: as Model.infer's (by default
        nothing is logged: hinge fmt's output is the rules themselves)."""
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise FileNotFoundError("%s: no such file (rules)" % path)
        stdout, _ = _run.run(["fmt", "--json", path], logger=logger)
        rules = []
        for entry in json.loads(stdout):
            r = Rule(entry["rule"])
            r.source = "%s:%d" % (path, entry["line"])
            rules.append(r)
        return rules


def _split_filters(text):
    """text without its trailing filter clauses ({B: Smokes(B)}, which come
    after the squaring or the hard-constraint marker), and those clauses.
    Braces inside quoted constants do not count."""
    groups, quote, start, i = [], None, None, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "{" and start is None:
            start = i
        elif c == "}" and start is not None:
            groups.append((start, i + 1))
            start = None
        i += 1
    # The filters are the groups at the end, separated by blanks only.
    cut = len(text.rstrip())
    kept = []
    for s, e in reversed(groups):
        if text[e:cut].strip() or s == 0:
            break
        kept.insert(0, text[s:e])
        cut = len(text[:s].rstrip())
    return text[:cut], " ".join(kept)

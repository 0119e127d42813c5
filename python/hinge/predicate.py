"""A PSL predicate and its data (pslpython's Predicate)."""

import csv
import enum
import os

from . import _table
from .errors import PredicateError
from .partition import Partition

__all__ = ["Predicate", "PredicateError"]


class Predicate(object):
    """A PSL predicate: a name, an arity, whether it is closed (fully
    observed), and its data in each Partition.

    The signature is pslpython's, ``Predicate(name, closed, size=None,
    arg_types=None)``; pslpython 2.4's ``Predicate(name, size)``, without
    closed, works too: a predicate whose closedness is not given is open
    when it has targets and closed otherwise, as PSL 2.4 decides. Names are
    normalised to upper case (name() gives 'KNOWS'); hinge matches
    predicate names case-insensitively, so rules may spell them as they like.

    Data given as a tab-separated file without a header is read by hinge
    itself, from the file (so its errors name the file, line and column);
    other data is kept in memory and written for each run.
    """

    DEFAULT_FILE_DELIMITER = "\t"

    class ArgType(enum.Enum):
        """The argument types pslpython knows. hinge reads every constant as
        a string; the types only convert the columns of inferred values
        (integer and float types come back as int and float)."""

        UNIQUE_STRING_ID = "UniqueStringID"
        UNIQUE_INT_ID = "UniqueIntID"
        STRING = "String"
        INT = "Integer"
        LONG = "Long"
        DOUBLE = "Double"

    STRING_TYPES = {ArgType.UNIQUE_STRING_ID, ArgType.STRING}
    INT_TYPES = {ArgType.UNIQUE_INT_ID, ArgType.INT, ArgType.LONG}
    FLOAT_TYPES = {ArgType.DOUBLE}

    DEFAULT_ARG_TYPE = ArgType.UNIQUE_STRING_ID
    DEFAULT_TRUTH_VALUE = 1.0

    def __init__(self, raw_name, closed=None, size=None, arg_types=None, evaluations=None):
        if not isinstance(raw_name, str) or not raw_name.strip():
            raise PredicateError("A predicate's name is a non-empty string, got %r." % (raw_name,))
        # pslpython 2.4 passes the size second: Predicate('Knows', 2).
        if closed is not None and not isinstance(closed, bool):
            if isinstance(closed, int) and size is None:
                closed, size = None, closed
            else:
                raise PredicateError("closed must be True or False, got %r." % (closed,))
        if size is None and not arg_types:
            raise PredicateError("Predicates must have a size and/or type information, neither supplied.")
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 1):
            raise PredicateError("Predicates must have a positive size. Got: %r." % (size,))
        if size is not None and arg_types is not None and len(arg_types) != size:
            raise PredicateError("Mismatch between supplied predicate size (%d) and size of supplied argument types (%d)." % (size, len(arg_types)))
        if size is None:
            size = len(arg_types)
        if arg_types is None:
            arg_types = [Predicate.DEFAULT_ARG_TYPE] * size
        for t in arg_types:
            if not isinstance(t, Predicate.ArgType):
                raise PredicateError("Supplied argument type was not a Predicate.ArgType: %s (%s)." % (t, type(t)))
        if evaluations:
            raise PredicateError(
                "Predicate %s: per-predicate evaluations are not available from Python; "
                "pass evaluators=['DiscreteEvaluator', ...] to Model.infer(), which hinge "
                "applies to every predicate with truth data." % raw_name)
        self._name = Predicate.normalize_name(raw_name)
        self._raw_name = raw_name.strip()
        self._closed = closed
        self._types = list(arg_types)
        # {partition: [chunk, ...]}: a chunk is ("file", path) or ("rows", [row, ...]),
        # a row the arguments (strings) and the truth value (None when not given).
        self._data = {}
        self.clear_data()

    # Adding data.

    def add_data_file(self, partition, path, has_header=False, delim=DEFAULT_FILE_DELIMITER):
        """Adds the atoms of a file: one a line, arguments separated by delim,
        then optionally the truth value. A tab-separated file without a header
        is read by hinge when the model runs; another is read now."""
        self._check_partition(partition)
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise PredicateError("%s: no such file (data for %s, %s)." % (path, self._name, partition.value))
        if delim == "\t" and not has_header:
            self._data[partition].append(("file", os.path.abspath(path)))
            return self
        rows, lines = [], []
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f, delimiter=delim, quoting=csv.QUOTE_NONE)
            for r in reader:
                if r:
                    rows.append(r)
                    lines.append(reader.line_num)
        if has_header:
            rows, lines = rows[1:], lines[1:]
        try:
            return self._add_rows(partition, rows, lambda i: "%s:%d" % (path, lines[i]))
        except (PredicateError, ValueError) as ex:
            raise PredicateError("File (%s) was not formatted properly for the %s predicate (used delimiter %r): %s"
                                 % (path, self._name, delim, ex)) from ex

    def add_data_row(self, partition, args, truth_value=None):
        """Adds one atom: its arguments (a list) and truth value (1.0 when not
        given, except for targets, which then take hinge's initial value)."""
        row = list(args) + ([] if truth_value is None else [truth_value])
        return self.add_data(partition, [row])

    def add_observed_data(self, data):
        return self.add_data(Partition.OBSERVATIONS, data)

    def add_target_data(self, data):
        return self.add_data(Partition.TARGETS, data)

    def add_truth_data(self, data):
        return self.add_data(Partition.TRUTH, data)

    def add_data(self, partition, data):
        """Adds atoms given as a DataFrame or a list of rows: each row the
        arguments and optionally the truth value (a number in [0, 1]; 1 when
        absent for observations and truth; for targets an initial value)."""
        self._check_partition(partition)
        what = "%s (%s)" % (self._name, partition.value)
        return self._add_rows(partition, _table.rows_of(data, what), lambda i: "%s, row %d" % (what, i))

    def _add_rows(self, partition, rows, where_of):
        """Adds rows; where_of(i) names row i in an error (a file's line, or
        the row's place in what was given)."""
        self._check_partition(partition)
        size = len(self._types)
        out = []
        for i, row in enumerate(rows):
            where = where_of(i)
            if len(row) not in (size, size + 1):
                raise PredicateError("Data was not formatted properly for the %s predicate: %s has %d columns, expecting %d or %d."
                                     % (self._name, where, len(row), size, size + 1))
            args = tuple(_table.constant(v, where) for v in row[:size])
            truth = _table.truth_value(row[size], where) if len(row) > size else None
            out.append(args + (truth,))
        if out:
            chunks = self._data[partition]
            if chunks and chunks[-1][0] == "rows":
                chunks[-1][1].extend(out)
            else:
                chunks.append(("rows", out))
        return self

    def clear_data(self):
        """Removes every atom of every partition; returns the predicate."""
        self._data = {p: [] for p in Partition}
        return self

    def _check_partition(self, partition):
        if not isinstance(partition, Partition):
            raise PredicateError("Supplied partition is not a hinge.Partition: %s (%s)." % (partition, type(partition)))

    # Reading it back.

    def closed(self):
        """Whether the predicate is closed: as given, else closed when it has no targets."""
        if self._closed is None:
            return not self._data[Partition.TARGETS]
        return self._closed

    def name(self):
        """The normalised (upper-case) name, as pslpython gives it."""
        return self._name

    def raw_name(self):
        """The name as given; hinge's messages, evaluations and explanations use it."""
        return self._raw_name

    def types(self):
        return self._types

    def __len__(self):
        return len(self._types)

    def __repr__(self):
        return "Predicate(%r, closed=%r, size=%d)" % (self._name, self.closed(), len(self))

    def data(self):
        """Every partition's atoms, {Partition: table}: a DataFrame (or Rows)
        with columns 0..size-1 for the arguments and size for the truth value
        (1.0 when not given; None for targets without one)."""
        size = len(self._types)
        out = {}
        for p in Partition:
            rows = []
            for kind, content in self._data[p]:
                if kind == "file":
                    content = _table.read_atoms(content, size)
                rows.extend(content)
            default = None if p == Partition.TARGETS else Predicate.DEFAULT_TRUTH_VALUE
            rows = [r[:size] + (default if r[size] is None else r[size],) for r in rows]
            out[p] = _table.frame(rows, list(range(size + 1)))
        return out

    def chunks(self, partition):
        """The partition's data as added: ("file", path) and ("rows", rows) pairs."""
        return list(self._data[partition])

    @staticmethod
    def normalize_name(name):
        return name.upper()


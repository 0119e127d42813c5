"""Tables in and out: pandas DataFrames when pandas is installed, plain rows
when it is not, and the tab-separated fields hinge reads and writes.

HINGE_NO_PANDAS=1 in the environment makes the package behave as if pandas
were not installed (it is then never imported); the tests use it to run
both ways on one machine.
"""

import json
import math
import os
import re

__all__ = ["Rows", "pandas_module", "frame", "rows_of", "quote_field", "unquote_field",
           "read_atoms"]


def pandas_module():
    """pandas, or None when it is not installed or HINGE_NO_PANDAS is set."""
    if os.environ.get("HINGE_NO_PANDAS", "") not in ("", "0"):
        return None
    try:
        import pandas
    except ImportError:
        return None
    return pandas


class Rows(list):
    """The plain-rows form of a table (used when pandas is not installed):
    a list of tuples, with the column names in `columns`."""

    def __init__(self, rows=(), columns=()):
        super().__init__(rows)
        self.columns = list(columns)

    def column(self, name):
        """The values of one column, as a list."""
        i = self.columns.index(name)
        return [r[i] for r in self]

    def __str__(self):
        """The rows as a table, floats to 6 decimals, the first and last five
        rows of a long one (as pandas shows them)."""
        def cell(v):
            return "%.6f" % v if isinstance(v, float) else str(v)
        shown = list(enumerate(self))
        if len(shown) > 60:
            shown = shown[:5] + [None] + shown[-5:]
        table = [[""] + [str(c) for c in self.columns]]
        for item in shown:
            if item is None:
                table.append(["..."] * len(table[0]))
            else:
                table.append([str(item[0])] + [cell(v) for v in item[1]])
        widths = [max(len(r[k]) for r in table) for k in range(len(table[0]))]
        text = "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in table)
        if len(self) > 60:
            text += "\n\n[%d rows x %d columns]" % (len(self), len(self.columns))
        return text

    __repr__ = __str__


def frame(rows, columns):
    """A DataFrame of rows (a list of tuples) with the given columns, or
    Rows when pandas is not used."""
    pd = pandas_module()
    if pd is None:
        return Rows(rows, columns)
    return pd.DataFrame(list(rows), columns=list(columns))


def is_dataframe(data):
    t = type(data)
    return t.__module__.split(".")[0] == "pandas" and t.__name__ == "DataFrame"


def rows_of(data, what):
    """The rows of a table given as a DataFrame, a list of rows (sequences)
    or, for one-column tables, a list of scalars; each row a tuple. what
    names the table in errors."""
    if is_dataframe(data):
        return [tuple(r) for r in data.itertuples(index=False, name=None)]
    if isinstance(data, (str, bytes)):
        raise TypeError("%s: want rows (a list of lists, or a DataFrame), got a string" % what)
    out = []
    try:
        it = iter(data)
    except TypeError:
        raise TypeError("%s: want rows (a list of lists, or a DataFrame), got %s"
                        % (what, type(data).__name__)) from None
    for row in it:
        if isinstance(row, (str, bytes)) or not hasattr(row, "__iter__"):
            out.append((row,))
        else:
            out.append(tuple(row))
    return out


def constant(value, what):
    """An argument value as the constant hinge reads: its text (a whole
    float such as 3.0 from a numeric column stays '3.0', as pandas writes
    it)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        raise ValueError("%s: missing value (None or NaN)" % what)
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    s = str(value)
    if "\x00" in s:
        raise ValueError("%s: %r holds a NUL character, which no constant may hold" % (what, s))
    return s


def truth_value(value, what):
    """A truth value in [0, 1], as a float."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError("%s: truth value %r is not a number" % (what, value)) from None
    if not (0.0 <= v <= 1.0):
        raise ValueError("%s: truth value %r is outside [0, 1]" % (what, value))
    return v


def quote_field(s):
    """A constant as one tab-separated field: verbatim, or double-quoted with
    escapes when the format could not carry it verbatim (a tab, a line break,
    a blank at either end, an empty string, a leading double quote), as hinge
    writes and reads fields."""
    if s == "" or s[0] == '"' or s[0] == " " or s[-1] == " " or any(c in s for c in "\t\n\r"):
        # JSON's escapes (\" \\ \n \r \t \b \f \u00XX) are all Go escapes too.
        return json.dumps(s, ensure_ascii=False)
    return s


_GO_ESCAPE = re.compile(r"""\\(?:([abfnrtv\\'"])|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{3}))""")
_SIMPLE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
           "\\": "\\", "'": "'", '"': '"'}


def go_unquote(body):
    """Decodes the escapes of a Go double-quoted string's body."""
    def one(m):
        if m.group(1):
            return _SIMPLE[m.group(1)]
        for g, base in ((2, 16), (3, 16), (4, 16), (5, 8)):
            if m.group(g):
                return chr(int(m.group(g), base))
        return m.group(0)
    return _GO_ESCAPE.sub(one, body)


def unquote_field(f):
    """The constant a field hinge wrote holds (see quote_field)."""
    if len(f) >= 2 and f[0] == '"' and f[-1] == '"':
        return go_unquote(f[1:-1])
    return f


def read_atoms(path, arity, require_value=False):
    """Reads a file of atoms as hinge writes and reads them: per line
    `arity` tab-separated constants (quoted ones unquoted), then the value,
    optional unless require_value; lines trimmed of blanks, blank lines
    skipped. Each row is a tuple of the constants and the value (a float, or
    None when absent)."""
    rows = []
    with open(path, encoding="utf-8-sig") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\r\n").strip(" \t")
            if not line:
                continue
            fields = line.split("\t")
            if len(fields) != arity + 1 and (require_value or len(fields) != arity):
                raise ValueError("%s:%d: expected %s tab-separated columns, found %d"
                                 % (path, n, arity + 1 if require_value else "%d or %d" % (arity, arity + 1),
                                    len(fields)))
            value = float(fields[arity]) if len(fields) > arity else None
            rows.append(tuple(unquote_field(x) for x in fields[:arity]) + (value,))
    return rows

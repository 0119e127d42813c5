"""Inputs given as files or as text (Markov logic programs and evidence)."""

import os
import re

__all__ = ["Source", "source", "sources"]


class Source(object):
    """A file the user named (path) or text to write to a file (text)."""

    def __init__(self, path=None, text=None):
        self.path = path
        self.text = text

    def materialise(self, directory, name, labels, label):
        """The path hinge reads: the user's file, or the text written to
        directory/name (whose path is then labelled in errors)."""
        if self.path is not None:
            return self.path
        path = os.path.join(directory, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.text)
        labels[path] = label
        return path


def source(value, what):
    """A Source from a path (str or os.PathLike) or text. A str is a file
    when it names an existing file and holds no line break; text when it
    holds a line break or a parenthesis (an atom, a formula), unless it is
    a path ending in a file extension (a mistyped path such as
    my runs/run(1)/prog.mln); otherwise it is taken for a missing file and refused."""
    if isinstance(value, Source):
        return value
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        if not os.path.isfile(path):
            raise FileNotFoundError("%s %s: no such file" % (what, path))
        return Source(path=path)
    if not isinstance(value, str):
        raise TypeError("%s: want a file path or text, got %s" % (what, type(value).__name__))
    if "\n" not in value and os.path.isfile(value):
        return Source(path=value)
    if "\n" not in value and _PATH_LIKE.fullmatch(value.strip()):
        raise FileNotFoundError("%s %s: no such file" % (what, value))
    if "\n" in value or "(" in value or not value.strip():
        return Source(text=value if value.endswith("\n") or not value else value + "\n")
    raise FileNotFoundError("%s %r: no such file (text given instead of a file must hold a line "
                            "break or an atom)" % (what, value))


# A one-line value that is a path, not program text: ending in an
# extension, and one word or with a directory separator but no // (a
# comment in program text, which ends in ')', a weight or a '.').
_PATH_LIKE = re.compile(r"(\S+|(?!.*//).*[/\\].*)\.[A-Za-z][A-Za-z0-9]{0,7}")


def sources(value, what):
    """Sources from None, one path or text, or a list of them."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, os.PathLike, Source)):
        return [source(value, what)]
    return [source(v, "%s %d" % (what, i + 1)) for i, v in enumerate(value)]

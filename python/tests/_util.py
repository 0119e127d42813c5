"""Shared helpers of the tests: the hinge binary, the CLI, both table modes."""

import atexit
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(PYTHON_DIR)
EXAMPLES = os.path.join(REPO, "examples")

if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

_BINARY = None


def hinge_binary():
    """The binary every test runs, Python package and CLI alike: HINGE_BIN
    when set; else one built from this repository (when Go is installed);
    else hinge on PATH. It is put in HINGE_BIN for the package."""
    global _BINARY
    if _BINARY:
        return _BINARY
    path = os.environ.get("HINGE_BIN")
    if not path and shutil.which("go") and os.path.isfile(os.path.join(REPO, "go.mod")):
        d = tempfile.mkdtemp(prefix="hinge-pytest-bin-")
        atexit.register(shutil.rmtree, d, True)
        path = os.path.join(d, "hinge")
        env = dict(os.environ, CGO_ENABLED="0")
        subprocess.run(["go", "build", "-o", path, "./cmd/hinge"], cwd=REPO, env=env, check=True)
    if not path:
        path = shutil.which("hinge")
    if not path:
        raise unittest.SkipTest("no hinge binary: set HINGE_BIN, install Go, or put hinge on PATH")
    os.environ["HINGE_BIN"] = path
    _BINARY = path
    return path


def cli(*args, check=True, cwd=REPO):
    """Runs the hinge CLI; returns (stdout, stderr, status)."""
    p = subprocess.run([hinge_binary()] + [str(a) for a in args], cwd=cwd, capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    if check and p.returncode != 0:
        raise AssertionError("hinge %s: exit %d\n%s" % (" ".join(map(str, args)), p.returncode, p.stderr))
    return p.stdout, p.stderr, p.returncode


def have_pandas():
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def pandas_modes():
    """The table modes to test: with pandas (when installed and not turned
    off by HINGE_NO_PANDAS) and without."""
    off = os.environ.get("HINGE_NO_PANDAS", "") not in ("", "0")
    modes = [False]
    if not off and have_pandas():
        modes.insert(0, True)
    return modes


@contextlib.contextmanager
def pandas_mode(use):
    """Runs the package with pandas (use=True) or as if it were absent."""
    old = os.environ.get("HINGE_NO_PANDAS")
    os.environ["HINGE_NO_PANDAS"] = "0" if use else "1"
    try:
        yield
    finally:
        if old is None:
            del os.environ["HINGE_NO_PANDAS"]
        else:
            os.environ["HINGE_NO_PANDAS"] = old


def rows(table, use_pandas):
    """The rows of a returned table as tuples, checking that it is a
    DataFrame with pandas and Rows without."""
    if use_pandas:
        import pandas
        assert isinstance(table, pandas.DataFrame), type(table)
        return [tuple(r) for r in table.itertuples(index=False, name=None)]
    from hinge import Rows
    assert isinstance(table, Rows), type(table)
    return [tuple(r) for r in table]


def columns(table):
    return list(table.columns)


def read_tsv(path):
    """A file's lines split at tabs."""
    with open(path, encoding="utf-8") as f:
        return [tuple(l.rstrip("\n").split("\t")) for l in f if l.strip()]


class Case(unittest.TestCase):
    """A test case that has the binary and a temporary directory."""

    @classmethod
    def setUpClass(cls):
        hinge_binary()

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hinge-pytest-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, *names):
        return os.path.join(self.tmp, *names)


# hinge's warnings (an iteration limit a test sets on purpose) stay out of
# the test output: the package's logger gets a handler that drops them.
import logging  # noqa: E402

logging.getLogger("hinge").addHandler(logging.NullHandler())

"""Running the binary: finding it, Ctrl-C, and running without pandas."""

import os
import signal
import subprocess
import sys
import time
import unittest

from tests import _util
from tests._util import EXAMPLES, PYTHON_DIR

import hinge
from hinge import BinaryNotFoundError, _run


class TestFindBinary(_util.Case):
    def env(self, **values):
        old = {k: os.environ.get(k) for k in values}

        def restore():
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        self.addCleanup(restore)
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def test_order_and_errors(self):
        binary = _util.hinge_binary()
        self.env(HINGE_BIN=binary)
        self.assertEqual(hinge.find_binary(), binary)
        self.assertTrue(hinge.binary_version().startswith("hinge "))

        self.env(HINGE_BIN=self.path("missing"))
        with self.assertRaises(BinaryNotFoundError) as cm:
            hinge.find_binary()
        self.assertIn("HINGE_BIN=", str(cm.exception))

        plain = self.path("plain")
        open(plain, "w").close()
        self.env(HINGE_BIN=plain)
        with self.assertRaises(BinaryNotFoundError) as cm:
            hinge.find_binary()
        self.assertIn("not executable", str(cm.exception))

        if _run._bundled_binary():
            self.skipTest("this installation bundles a binary, which comes before PATH")
        bindir = self.path("bin")
        os.mkdir(bindir)
        os.symlink(binary, os.path.join(bindir, "hinge"))
        self.env(HINGE_BIN=None, PATH=bindir)
        self.assertEqual(hinge.find_binary(), os.path.join(bindir, "hinge"))

        self.env(HINGE_BIN=None, PATH=self.tmp)
        with self.assertRaises(BinaryNotFoundError) as cm:
            hinge.find_binary()
        msg = str(cm.exception)
        self.assertIn("HINGE_BIN is not set", msg)
        self.assertIn("PATH (%s)" % self.tmp, msg)
        with self.assertRaises(FileNotFoundError):  # BinaryNotFoundError is one
            hinge.mln.infer(os.path.join(EXAMPLES, "mln", "smokers.mln"), query="Cancer")


# A Python program that runs a long hinge job: marginals by MC-SAT (the
# smokers' are exact by default, at once) with a billion samples, which
# hinge stops only when cancelled.
LONG_RUN = r"""
import logging, sys
sys.path.insert(0, %(python_dir)r)
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr, format="%%(message)s")
from hinge import mln
try:
    mln.marginals(%(prog)r, %(db)r, query="Cancer", method="mcsat", samples=10**9)
except KeyboardInterrupt:
    print("KeyboardInterrupt reached Python", flush=True)
    raise
"""


class TestInterrupt(_util.Case):
    def test_ctrl_c_stops_hinge(self):
        """SIGINT to Python alone (a notebook's interrupt) or to its process
        group (Ctrl-C in a terminal): hinge gets one SIGINT, says it
        cancelled the run, is waited for, and then KeyboardInterrupt reaches
        the caller; no hinge is left running."""
        for target in ("process", "group"):
            with self.subTest(target=target):
                self.interrupt(target)

    def test_killed_python_stops_hinge(self):
        """Python killed outright (SIGTERM's and SIGHUP's default action, or
        SIGKILL: a scheduler, timeout, a notebook restart) runs no cleanup;
        hinge, in a session of its own, ran on to its end. It sees its
        parent gone (HINGE_PARENT_PID) and stops within a second."""
        for sig in (signal.SIGKILL, signal.SIGTERM):
            with self.subTest(signal=sig.name):
                proc, pid, _ = self.start_long_run()
                os.kill(proc.pid, sig)
                proc.wait(timeout=30)
                deadline = time.monotonic() + 10
                while alive(pid) and time.monotonic() < deadline:
                    time.sleep(0.1)
                self.assertFalse(alive(pid), "hinge (pid %d) still runs 10 s after Python was killed" % pid)

    def start_long_run(self):
        """Starts LONG_RUN in a Python process; returns it, hinge's pid and
        the lines Python logged, once hinge is sampling."""
        script = LONG_RUN % {"python_dir": PYTHON_DIR,
                             "prog": os.path.join(EXAMPLES, "mln", "smokers.mln"),
                             "db": os.path.join(EXAMPLES, "mln", "smokers.db")}
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True,
                                env=dict(os.environ, HINGE_BIN=_util.hinge_binary()))
        # Cleanups run last first: kill, wait, then close the pipes.
        self.addCleanup(proc.stderr.close)
        self.addCleanup(proc.stdout.close)
        self.addCleanup(lambda: proc.poll() is None and proc.kill() or proc.wait())
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if line.startswith("started hinge pid "):
                pid = int(line.split()[-1])
                self.addCleanup(lambda: alive(pid) and os.kill(pid, signal.SIGKILL))
                time.sleep(1.5)  # hinge is sampling by now
                self.assertTrue(alive(pid), "hinge ended before it was interrupted")
                return proc, pid, lines
        self.fail("".join(lines))

    def interrupt(self, target):
        proc, pid, lines = self.start_long_run()
        if target == "group":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        err = "".join(lines) + err
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("KeyboardInterrupt reached Python", out)
        self.assertIn("KeyboardInterrupt", err)
        self.assertIn("the run was cancelled (interrupt signal received)", err)
        self.assertFalse(alive(pid), "hinge (pid %d) still runs after Python exited" % pid)


class TestTimeout(_util.Case):
    def test_timeout_stops_hinge(self):
        """timeout=: a run past it is stopped as Ctrl-C stops it (hinge says
        it cancelled the run, nothing is written) and HingeTimeoutError, a
        TimeoutError, is raised within a few seconds; a bad timeout is a
        ValueError before hinge runs."""
        from hinge import HingeTimeoutError, mln
        prog = os.path.join(EXAMPLES, "mln", "smokers.mln")
        db = os.path.join(EXAMPLES, "mln", "smokers.db")
        start = time.monotonic()
        with self.assertRaises(HingeTimeoutError) as cm:
            mln.marginals(prog, db, query="Cancer", method="mcsat", samples=10**9, timeout=1)
        self.assertLess(time.monotonic() - start, 30)
        self.assertIsInstance(cm.exception, TimeoutError)
        self.assertIn("timeout of 1 s", str(cm.exception))
        self.assertIn("the run was cancelled", cm.exception.stderr)
        with self.assertRaises(ValueError):
            mln.infer(prog, db, query="Cancer", timeout=0)
        # A run within its timeout is unchanged.
        self.assertTrue(mln.infer(prog, db, query="Cancer", timeout=60).lines)


def alive(pid):
    """Whether a process runs (a zombie has ended)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class TestWithoutPandas(_util.Case):
    def test_pandas_is_not_imported(self):
        """HINGE_NO_PANDAS=1: a whole run returns Rows and never imports pandas."""
        code = ("import sys; sys.path.insert(0, %r)\n"
                "from hinge import mln, Rows\n"
                "r = mln.infer(%r, %r, query='Cancer')\n"
                "assert isinstance(r['Cancer'], Rows), type(r['Cancer'])\n"
                "print('pandas' in sys.modules)\n"
                % (PYTHON_DIR, os.path.join(EXAMPLES, "mln", "smokers.mln"),
                   os.path.join(EXAMPLES, "mln", "smokers.db")))
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ, HINGE_NO_PANDAS="1", HINGE_BIN=_util.hinge_binary()))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "False")


class TestRows(unittest.TestCase):
    def test_rows(self):
        r = hinge.Rows([("a", 0.5), ("bb", 1.0)], [0, "truth"])
        self.assertEqual(r.column("truth"), [0.5, 1.0])
        self.assertEqual(str(r).splitlines(), ["    0     truth", "0   a  0.500000", "1  bb  1.000000"])
        long = hinge.Rows([("x%d" % i, 0.0) for i in range(100)], [0, "truth"])
        lines = str(long).splitlines()
        self.assertEqual(len(lines), 1 + 5 + 1 + 5 + 2)
        self.assertEqual(lines[-1], "[100 rows x 2 columns]")


if __name__ == "__main__":
    unittest.main()

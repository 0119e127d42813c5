"""python/examples/smokers.py, the pslpython-style script, runs as written
with only python/ on its path and prints what the CLI computes."""

import json
import os
import re
import subprocess
import sys
import unittest

from tests import _util
from tests._util import EXAMPLES, PYTHON_DIR, cli
from tests.test_psl import printed_values

SCRIPT = os.path.join(PYTHON_DIR, "examples", "smokers.py")
PSL = os.path.join(EXAMPLES, "smokers", "smokers.psl")
DATA = os.path.join(EXAMPLES, "smokers", "smokers.data")


def sections(stdout):
    """{predicate: {argument: value text}} of each block of printed tables."""
    blocks = re.split(r"^(Inference with the initial weights:|Weight learning:|Inference with the learned weights:)$",
                      stdout, flags=re.M)
    out = {}
    for title, body in zip(blocks[1::2], blocks[2::2]):
        tables, pred = {}, None
        for line in body.splitlines():
            m = re.match(r"^--- (\w+) ---$", line)
            if m:
                pred = m.group(1)
                tables[pred] = {}
                continue
            m = re.match(r"^\s*\d+\s+(\S+)\s+([0-9.]+)$", line)
            if pred and m:
                tables[pred][m.group(1)] = m.group(2)
        out[title] = tables if title != "Weight learning:" else body
    return out


class TestSmokersScript(_util.Case):
    def run_script(self, no_pandas):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": PYTHON_DIR,
               "HINGE_BIN": _util.hinge_binary()}
        if no_pandas:
            env["HINGE_NO_PANDAS"] = "1"
        p = subprocess.run([sys.executable, SCRIPT], cwd=self.tmp, env=env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_script(self):
        stdout, _, _ = cli("infer", "--model", PSL, "--data", DATA)
        want = printed_values(stdout)
        learn = self.path("learn.json")
        cli("learn", "--model", PSL, "--data", DATA, "--output", self.path("l.psl"), "--report", learn)
        with open(learn) as f:
            weights = [r["learned_weight"] for r in json.load(f)["rules"]]
        for no_pandas in sorted({not m for m in _util.pandas_modes()}):
            with self.subTest(no_pandas=no_pandas):
                out = sections(self.run_script(no_pandas))
                first = out["Inference with the initial weights:"]
                got = {(pred, (arg,)): float(v) for pred, t in first.items() for arg, v in t.items()}
                self.assertEqual(set(got), set(want))
                for k, v in want.items():
                    self.assertEqual("%.6f" % got[k], "%.6f" % v, k)
                learned = re.findall(r"^\s*([0-9.]+) -> ([0-9.e-]+):", out["Weight learning:"], flags=re.M)
                self.assertEqual([float(w) for _, w in learned], weights)
                self.assertTrue(all(float(a) != float(b) for a, b in learned))
                second = out["Inference with the learned weights:"]
                self.assertNotEqual(second, first)
                self.assertEqual(second["SMOKES"].keys(), first["SMOKES"].keys())


if __name__ == "__main__":
    unittest.main()

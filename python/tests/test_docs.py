"""The Python blocks of docs/python.md run as written, from the repository
root, and print what the page says."""

import contextlib
import io
import os
import re
import unittest

from tests import _util
from tests._util import REPO, pandas_mode, pandas_modes

DOC = os.path.join(REPO, "docs", "python.md")


def python_blocks():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.M | re.S)


class TestDocs(_util.Case):
    def test_blocks_run(self):
        blocks = python_blocks()
        self.assertGreaterEqual(len(blocks), 4)
        old = os.getcwd()
        os.chdir(REPO)
        self.addCleanup(os.chdir, old)
        for use in pandas_modes():
            with self.subTest(pandas=use), pandas_mode(use):
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    for block in blocks:
                        exec(compile(block, DOC, "exec"), {"__name__": "docs"})
                text = out.getvalue()
                # The quick start, against its closed form and as the page prints it.
                m = re.search(r"Bob\s+([0-9.]+)\n.*Carl\s+([0-9.]+)", text)
                self.assertIsNotNone(m, text)
                self.assertAlmostEqual(float(m.group(1)), 20 / 29, delta=2e-5)
                self.assertAlmostEqual(float(m.group(2)), 16 / 29, delta=2e-5)
                self.assertEqual((m.group(1), m.group(2)), ("0.689644", "0.551710"))
                # The smokers block: inferred and learned as the page says.
                self.assertIn("0.824984", text)
                self.assertIn("0.15392324809283306: Smokes(X) -> Cancer(X) ^2", text)


if __name__ == "__main__":
    unittest.main()

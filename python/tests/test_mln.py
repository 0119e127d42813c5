"""hinge.mln against `hinge mln infer` on examples/mln."""

import json
import math
import os
import unittest

from tests import _util
from tests._util import EXAMPLES, cli, pandas_mode, pandas_modes, rows

from hinge import HingeInputError, mln

PROG = os.path.join(EXAMPLES, "mln", "smokers.mln")
DB = os.path.join(EXAMPLES, "mln", "smokers.db")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class TestMLN(_util.Case):
    def cli_result(self, *flags, program=PROG, evidence=DB):
        out = self.path("result-%d.txt" % len(os.listdir(self.tmp)))
        rep = out + ".json"
        cli("mln", "infer", "-i", program, "-e", evidence, "-r", out, "--report", rep, *flags)
        with open(rep) as f:
            report = json.load(f)
        return [l for l in read(out).splitlines() if l.strip()], report

    def check(self, res, lines, use, column):
        """res holds exactly the CLI's result lines, as tables and as a dict."""
        self.assertEqual(res.lines, lines)
        want = {}
        for line in lines:
            atom, value = line.rsplit(" ", 1)
            want[atom] = float(value)
        self.assertEqual(res.to_dict(), want)
        from_tables = {}
        for pred, table in res.items():
            self.assertEqual(_util.columns(table)[-1], column)
            for r in rows(table, use):
                args = ", ".join(a if a.isidentifier() and a[0].isupper() else json.dumps(a, ensure_ascii=False)
                                 for a in r[:-1])
                from_tables["%s(%s)" % (pred, args)] = float(r[-1])
        self.assertEqual(from_tables, want)

    def test_map_is_the_cli_world(self):
        lines, report = self.cli_result("-q", "Cancer,Smokes")
        self.assertIn("Cancer(Anna) 1", lines)
        for use in pandas_modes():
            with self.subTest(pandas=use), pandas_mode(use):
                res = mln.infer(PROG, DB, query=["Cancer", "Smokes"])
                self.check(res, lines, use, "truth")
                self.assertEqual(sorted(res), ["Cancer", "Smokes"])
                self.assertEqual((res.cost, res.lower_bound, res.optimal),
                                 (report["cost"], report["cost_lower_bound"], report["optimal"]))
                self.assertIsInstance(rows(res["Cancer"], use)[0][-1], int)

    def test_marginals_are_the_cli_marginals(self):
        flags = ["-q", "Cancer,Smokes", "--marginal", "--samples", "3000", "--seed", "7"]
        lines, report = self.cli_result(*flags)
        for use in pandas_modes():
            with self.subTest(pandas=use), pandas_mode(use):
                res = mln.marginals(PROG, DB, query="Cancer,Smokes", samples=3000, seed=7)
                self.check(res, lines, use, "probability")
                self.assertEqual(res.report["convergence"], report["convergence"])
        # Gary does not smoke by the evidence: P(Cancer(Gary)) = 1/(1 + e^0.5) = 0.3775.
        self.assertAlmostEqual(res.to_dict()["Cancer(Gary)"], 0.3775, delta=0.03)
        # A sampling method gives marginals without marginal=True, as in
        # hinge (they were read as a MAP world: every atom false).
        sampled = mln.infer(PROG, DB, query="Cancer,Smokes", method="mcsat", samples=3000, seed=7)
        mcsat, _ = self.cli_result(*flags, "--method", "mcsat")
        self.assertEqual((sampled.value_column, sampled.lines), ("probability", mcsat))
        with self.assertRaises(ValueError):
            mln.infer(PROG, DB, query="Cancer", digits=20)
        # Exact marginals to more decimals than hinge's 4 (digits=).
        exact = mln.marginals(PROG, DB, query="Cancer", method="exact", digits=12)
        self.assertAlmostEqual(exact.to_dict()["Cancer(Gary)"], 1 / (1 + math.exp(0.5)), places=11)

    def test_methods_and_lazy(self):
        for kwargs, flags in (({"method": "maxwalksat", "flips": 5000, "seed": 3},
                               ["--method", "maxwalksat", "--flips", "5000", "--seed", "3"]),
                              ({"lazy": True}, ["--lazy"]),
                              ({"lazy": True, "method": "maxwalksat", "flips": 10000},
                               ["--lazy", "--method", "maxwalksat", "--flips", "10000"]),
                              ({"lifted": True}, ["--lifted"]),
                              ({"method": "exact", "time_limit": "5s"}, ["--method", "exact", "--time-limit", "5s"]),
                              ({"marginal": True, "method": "gibbs", "samples": 500, "chains": 2, "burn_in": 20},
                               ["--marginal", "--method", "gibbs", "--samples", "500", "--chains", "2",
                                "--burn-in", "20"])):
            with self.subTest(kwargs=kwargs):
                lines, _ = self.cli_result("-q", "Cancer,Smokes", *flags)
                res = mln.infer(PROG, DB, query="Cancer,Smokes", **kwargs)
                self.assertEqual(res.lines, lines)
        # Lazy MAP's cutting planes (the default) come with a bound;
        # lazy MaxWalkSAT has none.
        res = mln.infer(PROG, DB, query="Cancer,Smokes", lazy=True)
        self.assertIsNotNone(res.lower_bound)
        self.assertLessEqual(res.lower_bound, res.cost + 1e-9)
        self.assertIsNone(mln.infer(PROG, DB, query="Cancer,Smokes", lazy=True, method="maxwalksat").lower_bound)

    def test_as_rrf(self):
        """options=['--as-rrf'] runs the RRF engine and reads its report
        (hinge wrote none: FileNotFoundError on report.json)."""
        for kwargs, flags, method in (({}, [], "icm"),
                                      ({"marginal": True, "samples": 500, "seed": 2}, ["--marginal", "--samples", "500", "--seed", "2"], "gibbs")):
            with self.subTest(kwargs=kwargs):
                lines, report = self.cli_result("-q", "Cancer,Smokes", "--as-rrf", *flags)
                res = mln.infer(PROG, DB, query="Cancer,Smokes", options=["--as-rrf"], **kwargs)
                self.assertEqual(res.lines, lines)
                self.assertEqual((res.report["engine"], res.report["method"]), ("rrf", method))
                self.assertEqual(res.report["unknown_atoms"], report["unknown_atoms"])

    def test_text_inputs_are_the_files(self):
        """A program and evidence given as strings (or a list of evidence)
        give what the files give."""
        lines, _ = self.cli_result("-q", "Cancer,Smokes")
        ev = read(DB).splitlines(keepends=True)
        half = len(ev) // 2
        for program, evidence in ((read(PROG), read(DB)),
                                  (PROG, ["".join(ev[:half]), "".join(ev[half:])]),
                                  (PROG, [DB, "\n"])):
            res = mln.infer(program, evidence, query=["Cancer", "Smokes"])
            self.assertEqual(res.lines, lines)

    def test_quoted_constants(self):
        evidence = ('Friends("Anna Bell", "Bob \\"B\\"")\nFriends("Bob \\"B\\"", "Anna Bell")\n'
                    'Smokes("Anna Bell")\nFriends(Cy, "über 東京")\n')
        ev = self.path("q.db")
        with open(ev, "w", encoding="utf-8") as f:
            f.write(evidence)
        lines, _ = self.cli_result("-q", "Smokes", evidence=ev)
        for use in pandas_modes():
            with pandas_mode(use):
                res = mln.infer(PROG, evidence, query="Smokes")
                self.assertEqual(res.lines, lines)
                got = {r[0]: r[1] for r in rows(res["Smokes"], use)}
                self.assertEqual(got, {'Bob "B"': 1, "über 東京": 0, "Cy": 0})

    def test_explain(self):
        why = self.path("why.json")
        cli("mln", "infer", "-i", PROG, "-e", DB, "-q", "Cancer,Smokes", "--explain", "Cancer(Bob)",
            "--explain-json", why)
        with open(why) as f:
            want = json.load(f)["explanations"]
        got = mln.infer(PROG, DB, query="Cancer,Smokes", explain="Cancer(Bob)").explanations

        self.assertEqual(got, want)
        self.assertEqual(got[0]["terms"][0]["where"], PROG + ":9:1")
        # A program given as text: its lines are named on <program>.
        got = mln.infer(read(PROG), DB, query="Cancer,Smokes", explain="Cancer(Bob)").explanations
        self.assertEqual(got[0]["terms"][0]["where"], "<program>:9:1")
        for g, w in zip(got[0]["terms"], want[0]["terms"]):
            g.pop("where")
            w.pop("where")
        self.assertEqual(got, want)

    def test_errors_name_the_text(self):
        bad = read(PROG).replace("1.5  Smokes(x) => Cancer(x)", "1.5  Smokes(x) => Cancer(x")
        path = self.path("bad.mln")
        with open(path, "w") as f:
            f.write(bad)
        _, stderr, status = cli("mln", "infer", "-i", path, "-e", DB, "-q", "Cancer", check=False)
        self.assertEqual(status, 2)
        with self.assertRaises(HingeInputError) as cm:
            mln.infer(bad, DB, query="Cancer")
        e = cm.exception
        self.assertEqual(e.message, stderr.strip().split("hinge mln infer: ", 1)[1].replace(path, "<program>"))
        self.assertEqual((e.file, e.line), ("<program>", 9))
        with self.assertRaises(FileNotFoundError):
            mln.infer("no-such-program.mln", DB, query="Cancer")
        # A mistyped path with a parenthesis is a missing file, not program
        # text (it was parsed as a program: "unexpected character '/'").
        for typo in (self.path("run(1)") + "/prgo.mln", self.path("my runs/run(1)") + "/prgo.mln"):
            with self.assertRaises(FileNotFoundError):
                mln.infer(typo, DB, query="Cancer")
        with self.assertRaises(ValueError):
            mln.infer(PROG, DB)

    def test_learn_is_the_cli_learn(self):
        """mln.learn writes the program hinge mln learn writes, with the
        report's exact weights beside the formulas hinge prints; the learned
        program runs as it is; bad input names <program> and its line."""
        for flags, kwargs in (([], {}), (["-q", "Cancer,Smokes", "--prior-stddev", "2"],
                                         {"query": ["Cancer", "Smokes"], "prior_stddev": 2})):
            with self.subTest(kwargs=kwargs):
                out = self.path("learned-%d.mln" % len(os.listdir(self.tmp)))
                rep = out + ".json"
                cli("mln", "learn", "-i", PROG, "-t", DB, "-o", out, "--report", rep, *flags)
                res = mln.learn(PROG, DB, **kwargs)
                self.assertEqual(res.program, read(out))
                with open(rep) as f:
                    report = json.load(f)
                self.assertEqual(res.report["params"], report["params"])
                self.assertEqual([w[1:] for w in res.weights],
                                 [(p["initial"], p["learned"]) for p in report["params"]])
                self.assertEqual(res.weights[0][0], "Smokes(x) => Cancer(x)")
        self.assertTrue(mln.infer(res.program, DB, query="Cancer").lines)
        with self.assertRaises(HingeInputError) as cm:
            mln.learn("P(t)\n1 P(x) => Q(x)\n", "P(A)\n")
        self.assertEqual((cm.exception.file, cm.exception.line), ("<program>", 2))

    def test_messages_name_keyword_arguments(self):
        """hinge's warnings and errors name this module's keyword arguments,
        not the CLI's flags (a new user was told --samples, --burn-in)."""
        ring = "".join("3 !A(N%d) v A(N%d)\n3 A(N%d) v !A(N%d)\n" % (v, v % 12 + 1, v, v % 12 + 1) for v in range(1, 13))
        with self.assertLogs("hinge", level="WARNING") as logs:
            mln.marginals("A(node)\n" + ring, "", query="A", method="gibbs", samples=40, burn_in=0, seed=2)
        text = "\n".join(logs.output)
        self.assertIn("samples=, burn_in=", text)
        self.assertNotIn("--samples", text)
        with self.assertRaises(HingeInputError) as cm:
            mln.infer(PROG, DB, query="Cancer", chains=0, marginal=True)
        self.assertIn("chains=", str(cm.exception))

    def test_parse_atom(self):
        for text, want in (("Cancer(Anna)", ("Cancer", ("Anna",))),
                           ('Friends("a, b", C)', ("Friends", ("a, b", "C"))),
                           ('P("q\\"x\\\\", "t\\tu")', ("P", ('q"x\\', "t\tu"))),
                           ("Z()", ("Z", ()))):
            self.assertEqual(mln.parse_atom(text), want)
        for bad in ("Cancer", 'P("x)'):
            with self.assertRaises(ValueError):
                mln.parse_atom(bad)


if __name__ == "__main__":
    unittest.main()

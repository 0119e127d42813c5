"""The pslpython-shaped API against `hinge infer` and `hinge learn` on the
repository's smokers example."""

import json
import logging
import os
import re
import unittest

from tests import _util
from tests._util import EXAMPLES, cli, pandas_mode, pandas_modes, rows

from hinge import (HingeError, HingeInputError, HingeRunError, Model, ModelError, Partition,
                   Predicate, PredicateError, Rule, RuleError)

SMOKERS = os.path.join(EXAMPLES, "smokers")
PSL = os.path.join(SMOKERS, "smokers.psl")
DATA = os.path.join(SMOKERS, "smokers.data")

FILES = [
    ("Friends", Partition.OBSERVATIONS, "friends_obs.txt"),
    ("Smokes", Partition.OBSERVATIONS, "smokes_obs.txt"),
    ("Smokes", Partition.TARGETS, "smokes_targets.txt"),
    ("Cancer", Partition.TARGETS, "cancer_targets.txt"),
    ("Smokes", Partition.TRUTH, "smokes_truth.txt"),
    ("Cancer", Partition.TRUTH, "cancer_truth.txt"),
]


def smokers(as_rows=False, rules=None):
    """The smokers example as a Model: its rules read from smokers.psl, its
    data as files, or (as_rows) read in Python and given as rows."""
    m = Model("smokers")
    m.add_predicate(Predicate("Friends", closed=True, size=2))
    m.add_predicate(Predicate("Smokes", closed=False, size=1))
    m.add_predicate(Predicate("Cancer", closed=False, size=1))
    for name, part, f in FILES:
        path = os.path.join(SMOKERS, f)
        if as_rows:
            data = [list(r) for r in _util.read_tsv(path)]
            for r in data:
                if len(r) > m.get_predicate(name).__len__():
                    r[-1] = float(r[-1])
            m.get_predicate(name).add_data(part, data)
        else:
            m.get_predicate(name).add_data_file(part, path)
    for r in rules or Rule.load_from_file(PSL):
        m.add_rule(r)
    return m


def cli_values(out_dir):
    """{(PRED, args): value text} of an infer --output directory."""
    vals = {}
    for entry in os.listdir(out_dir):
        if entry.endswith(".txt"):
            for r in _util.read_tsv(os.path.join(out_dir, entry)):
                vals[(entry[:-4], r[:-1])] = r[-1]
    return vals


def result_values(results, use_pandas):
    vals = {}
    for pred, table in results.items():
        assert _util.columns(table) == list(range(len(pred))) + ["truth"], _util.columns(table)
        for r in rows(table, use_pandas):
            vals[(pred.name(), tuple(str(a) for a in r[:-1]))] = r[-1]
    return vals


PRINTED = re.compile(r"^(\w+)\((.*)\) = ([0-9.]+)$")


def printed_values(stdout):
    """{(PRED, args): value} of the values `hinge infer` prints."""
    vals = {}
    for line in stdout.splitlines():
        m = PRINTED.match(line)
        if m:
            args = tuple(a.strip().strip("'") for a in m.group(2).split(","))
            vals[(m.group(1).upper(), args)] = float(m.group(3))
    return vals


class TestInfer(_util.Case):
    def check_same(self, results, flags, use_pandas):
        """results equal what `hinge infer FLAGS` writes, value for value."""
        out = self.path("cli-out-%d" % len(os.listdir(self.tmp)))
        cli("infer", "--model", PSL, "--data", DATA, "--output", out, *flags)
        want = cli_values(out)
        got = result_values(results, use_pandas)
        self.assertEqual(sorted(got), sorted(want))
        for k, v in want.items():
            self.assertEqual(got[k], float(v), k)
        return want

    def test_values_are_the_cli_values(self):
        stdout, _, _ = cli("infer", "--model", PSL, "--data", DATA)
        printed = printed_values(stdout)
        self.assertEqual(len(printed), 18)
        for use in pandas_modes():
            for as_rows in (False, True):
                with self.subTest(pandas=use, rows=as_rows), pandas_mode(use):
                    res = smokers(as_rows).infer()
                    self.check_same(res, [], use)
                    got = result_values(res, use)
                    for k, v in printed.items():
                        self.assertAlmostEqual(got[k], v, delta=6e-7, msg=k)
                    self.assertEqual([p.name() for p in res], ["SMOKES", "CANCER"])
                    self.assertIs(res.by_name("cancer"), res[next(p for p in res if p.name() == "CANCER")])
                    with self.assertRaisesRegex(KeyError, r"keyed by Predicate.*by_name\('Cancer'\)"):
                        res["Cancer"]
                    self.assertEqual(res.report["status"], "converged")
                    self.assertAlmostEqual(res.evaluation["Cancer"]["ACCURACY"], 10 / 12)

    def test_hinge_options(self):
        for use in pandas_modes():
            for kwargs, flags in (({"lifted": True}, ["--lifted"]),
                                  ({"discrete": True}, ["--discrete"]),
                                  ({"streaming": True}, ["--streaming"]),
                                  ({"method": "DCDStreamingInference"}, ["--streaming"]),
                                  ({"psl_config": {"admmreasoner.maxiterations": 7,
                                                   "admmreasoner.computeperiod": 1}},
                                   ["--max-iter", "7", "--check-every", "1"])):
                with self.subTest(pandas=use, kwargs=kwargs), pandas_mode(use):
                    res = smokers().infer(**kwargs)
                    self.check_same(res, flags, use)
            with pandas_mode(use):
                res = smokers().infer(psl_config={"admmreasoner.maxiterations": 7,
                                                  "admmreasoner.computeperiod": 1})
                self.assertEqual(res.report["iterations"], 7)
                res = smokers().infer(discrete=True)
                self.assertEqual(res.report["method"], "discrete")
                self.assertTrue(all(v in (0.0, 1.0) for v in result_values(res, use).values()))

    def test_explain(self):
        why = self.path("why.json")
        cli("infer", "--model", PSL, "--data", DATA, "--explain", "Cancer(Bob)", "--explain-json", why)
        with open(why) as f:
            want = json.load(f)["explanations"]
        got = smokers().infer(explain="Cancer(Bob)").explanations
        self.assertEqual(len(got), 1)

        # The rules file the package wrote is named <rules>, at the rule's line.
        self.assertEqual([t["where"] for t in got[0]["terms"]], ["<rules>:1:1", "<rules>:5:1"])

        def strip(e):
            e = json.loads(json.dumps(e))
            for t in e.get("terms", []):
                t.pop("where", None)
            return e
        self.assertEqual(strip(got[0]), strip(want[0]))
        self.assertAlmostEqual(got[0]["value"], 0.815, places=3)  # the optimum: Smokes(Bob) 0.825 less the prior's 0.01

    def test_evaluators(self):
        res = smokers().infer(evaluators=["AUCEvaluator"])
        self.assertIn("AUROC", res.evaluation["Smokes"])
        res = smokers().infer(psl_config={"discreteevaluator.threshold": 0.7})
        out, _, _ = cli("infer", "--model", PSL, "--data", DATA, "--report", self.path("r.json"),
                        "--eval-option", "discreteevaluator.threshold=0.7")
        with open(self.path("r.json")) as f:
            want = json.load(f)["evaluation"]
        self.assertEqual(res.evaluation["Smokes"], want["Smokes"])

    def test_legacy_signatures(self):
        """pslpython 2.2/2.3 (method, additional_cli_options, psl_config,
        jvm_options, logger, temp_dir, cleanup_temp) and 2.4 (method,
        psl_options, jvm_options) positions give the same run."""
        with pandas_mode(False):
            self.check_legacy()

    def check_legacy(self):
        base = result_values(smokers().infer(), False)
        runs = [
            smokers().infer("", [], {"log4j.threshold": "DEBUG"}, ["-Xmx1g"], False, self.tmp, True),
            smokers().infer("", {"log4j.threshold": "DEBUG"}, ["-Xms1g"]),
            smokers().infer(additional_cli_optons=["--int-ids"], jvm_options=["-Xmx512m"]),
            smokers().infer(additional_cli_options=["-D", "random.seed=3"]),
            smokers().infer("org.linqs.psl.application.inference.MPEInference"),
        ]
        for r in runs:
            self.assertEqual(result_values(r, False), base)
        self.assertEqual(os.listdir(self.tmp), [])  # cleanup_temp removed the run's files

    def test_options_reach_hinge(self):
        """-Xmx and hinge's own keywords become hinge's flags, psl_config
        PSL's -D, which hinge reads (cmd/hinge's TestPSLDefines)."""
        log = logging.getLogger("hinge-test-options")
        log.setLevel(logging.DEBUG)
        seen = []
        handler = logging.Handler()
        handler.emit = lambda record: seen.append(record.getMessage())
        log.addHandler(handler)
        smokers().infer(jvm_options=["-Xmx2g"], psl_config={"random.seed": 5, "parallel.numthreads": 1},
                        seed=None, logger=log)
        cmd = [s for s in seen if s.startswith("running ")][0]
        for want in ("--memory-limit 2GiB", "-D random.seed=5", "-D parallel.numthreads=1", "--quiet"):
            self.assertIn(want, cmd)
        self.assertTrue(any(s.startswith("ADMM: ") for s in seen), seen)  # stdout at INFO

    def test_keep_temp(self):
        res = smokers().infer(temp_dir=self.tmp, cleanup_temp=False)
        (kept,) = os.listdir(self.tmp)
        names = sorted(os.listdir(os.path.join(self.tmp, kept)))
        self.assertEqual(names, ["data", "inferred-predicates", "report.json", "smokers.data", "smokers.psl"])
        self.assertEqual(len(res), 2)

    def test_refused(self):
        m = smokers()
        for kwargs, words in (
                ({"jvm_options": ["-XX:+UseG1GC"]}, "not a Java program"),
                ({"method": "SGDStreamingInference"}, "no SGD solver"),
                ({"method": "LazyMPEInference"}, "lazy"),
                ({"method": "Bogus"}, "unknown inference method"),
                ({"additional_cli_options": ["--postgres", "psl"]}, "db='postgres://"),
                ({"additional_cli_options": ["--h2path", "/tmp/x"]}, "no H2"),
                ({"transform_config": lambda c: c}, "transform_config")):
            with self.subTest(kwargs=kwargs):
                with self.assertRaises(ModelError) as cm:
                    m.infer(**kwargs)
                self.assertIn(words, str(cm.exception))
                self.assertNotIsInstance(cm.exception, HingeError)
        # PSL's configuration keys are hinge's -D, which hinge refuses itself.
        for kwargs, words in (
                ({"psl_config": {"sgd.learningrate": 1}}, "sgd.learningrate"),
                ({"psl_config": {"inference.reasoner": "SGDReasoner"}}, "no SGD solver")):
            with self.subTest(kwargs=kwargs):
                with self.assertRaises(HingeInputError) as cm:
                    m.infer(**kwargs)
                self.assertIn(words, str(cm.exception))
        with self.assertRaises(ModelError):
            Model("empty").infer()

    def test_messages_name_keyword_arguments(self):
        """An error about a value given as a keyword names the keyword; the
        same value given as a flag keeps the flag's name."""
        with self.assertRaises(HingeInputError) as cm:
            smokers().infer(explain_top=-1)
        self.assertEqual("explain_top= -1: must be >= 0", cm.exception.message)
        with self.assertRaises(HingeInputError) as cm:
            smokers().infer(options=["--explain-top", "-1"])
        self.assertEqual("--explain-top -1: must be >= 0", cm.exception.message)
        with self.assertRaises(HingeInputError) as cm:
            smokers().infer(memory_limit="abc")
        self.assertTrue(cm.exception.message.startswith("memory_limit=: bad size"), cm.exception.message)
        with self.assertRaises(HingeInputError) as cm:
            smokers().learn(iterations=-1)
        self.assertIn("iterations=", cm.exception.message)

    def test_unknown_hinge_flag(self):
        with self.assertRaises(HingeInputError) as cm:
            smokers().infer(options=["--bogus"])
        self.assertEqual(cm.exception.status, 2)
        self.assertEqual(cm.exception.message, "unknown flag: --bogus")


class TestErrors(_util.Case):
    def test_rule_error_names_the_rule(self):
        """A rule hinge refuses: the message is the CLI's for the same rules
        file, its position on <rules>, and the hint names the rule."""
        rules = ["0.5: Smokes(X) -> Cancer(X) ^2", "0.4: Smokes(X) & Foo(X) -> Cancer(X)"]
        psl = self.path("bad.psl")
        with open(psl, "w") as f:
            f.write("\n".join(rules) + "\n")
        _, stderr, status = cli("infer", "--model", psl, "--data", DATA, check=False)
        self.assertEqual(status, 2)
        want = stderr.strip().replace("hinge infer: " + psl, "<rules>")
        with self.assertRaises(HingeInputError) as cm:
            smokers(rules=[Rule(r) for r in rules]).infer()
        e = cm.exception
        self.assertIsInstance(e, ValueError)
        self.assertEqual(e.status, 2)
        self.assertEqual(e.message, want)
        self.assertEqual((e.file, e.line, e.column), ("<rules>", 2, 18))
        self.assertIn("rule 1 of the model", e.hint)
        self.assertIn("Foo(X)", e.hint)
        self.assertIn("Foo is not a predicate of the model", e.hint)
        self.assertIn("exit status 2", str(e))

    def test_error_in_a_users_file(self):
        bad = self.path("smokes_obs.txt")
        with open(bad, "w") as f:
            f.write("Anna\t1\nCarl\t1.5\n")
        m = smokers()
        m.get_predicate("Smokes").clear_data().add_data_file(Partition.OBSERVATIONS, bad)
        with self.assertRaises(HingeInputError) as cm:
            m.infer()
        self.assertEqual((cm.exception.file, cm.exception.line, cm.exception.column), (bad, 2, 6))
        self.assertIn("1.5", cm.exception.message)

    def test_error_in_rows_names_the_row(self):
        m = smokers()
        # An atom both observed and a target: hinge finds it, in the rows file.
        m.get_predicate("Smokes").add_data(Partition.OBSERVATIONS, [["Bob", 1.0]])
        with self.assertRaises(HingeInputError) as cm:
            m.infer()
        self.assertIn("Bob", str(cm.exception))

    def test_bad_rows_refused_in_python(self):
        p = Predicate("Knows", closed=False, size=2)
        for data, words in (([["a", "b", 1.5]], "outside [0, 1]"),
                            ([["a", "b", "x"]], "not a number"),
                            ([["a"]], "1 columns"),
                            ([["a", None]], "missing value"),
                            ([["a", "b\x00"]], "NUL")):
            with self.subTest(data=data):
                with self.assertRaises((ValueError, PredicateError)) as cm:
                    p.add_data(Partition.OBSERVATIONS, data)
                self.assertIn(words, str(cm.exception))
        with self.assertRaises(PredicateError):
            p.add_data("observations", [["a", "b"]])
        with self.assertRaises(PredicateError):
            p.add_data_file(Partition.OBSERVATIONS, self.path("missing.txt"))

    def test_infeasible_constraints(self):
        """Infeasible hard constraints: exit status 1, the CLI's message, and
        the values hinge reached on the error."""
        rules = Rule.load_from_file(PSL) + [Rule("Smokes(X) + Cancer(X) >= 3 .")]
        psl = self.path("hard.psl")
        with open(psl, "w") as f:
            f.write("\n".join(str(r) for r in rules) + "\n")
        out = self.path("out")
        _, stderr, status = cli("infer", "--model", psl, "--data", DATA, "--output", out, check=False)
        self.assertEqual(status, 1)
        with self.assertRaises(HingeRunError) as cm:
            smokers(rules=rules).infer()
        e = cm.exception
        self.assertEqual(e.status, 1)
        self.assertIsInstance(e, RuntimeError)
        self.assertEqual(e.message, stderr.strip().split("hinge infer: ", 1)[1].replace(psl, "<rules>"))
        self.assertEqual(result_values(e.results, _util.have_pandas() and _util.pandas_modes()[0]),
                         {k: float(v) for k, v in cli_values(out).items()})


class TestLearn(_util.Case):
    def cli_learned(self, *flags):
        rep = self.path("learn-%d.json" % len(os.listdir(self.tmp)))
        cli("learn", "--model", PSL, "--data", DATA, "--output", self.path("l.psl"), "--force",
            "--report", rep, *flags)
        with open(rep) as f:
            return [r["learned_weight"] for r in json.load(f)["rules"]]

    def test_learn_sets_the_cli_weights(self):
        for method, flags in (("", []), ("MaxPseudoLikelihood", ["--method", "mple"]),
                              ("org.linqs.psl.application.learning.weight.maxlikelihood.MaxPiecewisePseudoLikelihood",
                               ["--method", "ppll"]),
                              ("VotedPerceptron", ["--method", "mle"])):
            with self.subTest(method=method):
                want = self.cli_learned(*flags)
                m = smokers()
                before = [r.weight() for r in m.get_rules()]
                self.assertIs(m.learn(method), m)
                got = [r.weight() for r in m.get_rules()]
                self.assertEqual(got, want)
                self.assertNotEqual(got, before)
                self.assertEqual([r["learned_weight"] for r in m.learn_report["rules"]], want)

    def test_learned_model_infers_as_the_cli(self):
        learned = self.path("learned.psl")
        cli("learn", "--model", PSL, "--data", DATA, "--output", learned,
            "--iterations", "10", "--report", self.path("r.json"))
        out = self.path("out")
        cli("infer", "--model", learned, "--data", DATA, "--output", out)
        m = smokers()
        m.learn(psl_config={"votedperceptron.numsteps": 10})
        for use in pandas_modes():
            with pandas_mode(use):
                got = result_values(m.infer(), use)
                self.assertEqual(got, {k: float(v) for k, v in cli_values(out).items()})

    def test_hard_rules_keep_no_weight(self):
        rules = Rule.load_from_file(PSL) + [Rule("Smokes(X) <= 1 .")]
        m = smokers(rules=rules)
        m.learn()
        self.assertFalse(m.get_rules()[-1].weighted())
        self.assertIsNone(m.get_rules()[-1].weight())
        self.assertEqual(str(m.get_rules()[-1]), "Smokes(X) <= 1 .")


class TestConstants(_util.Case):
    def test_awkward_constants_round_trip(self):
        """Constants with tabs, line breaks, blanks at their ends, quotes,
        backslashes and non-ASCII come back as they went in."""
        names = ["plain", "two words", " lead", "trail ", "tab\there", "line\nbreak", '"quoted"',
                 "back\\slash", "über 東京", "x'y", "1.5", "ctl\t\x01\x7f\u200b\U0001F600\\\"",
                 "\r", "\a\v\b\f\t"]
        m = Model("constants")
        p = Predicate("Tag", closed=False, size=2)
        m.add_predicate(p)
        p.add_data(Partition.TARGETS, [[n, "c"] for n in names])
        m.add_rule(Rule("0.3: !Tag(A, B)"))
        for use in pandas_modes():
            with self.subTest(pandas=use), pandas_mode(use):
                res = m.infer()
                got = sorted(r[0] for r in rows(res[p], use))
                self.assertEqual(got, sorted(names))

    def test_typed_columns(self):
        m = Model("typed")
        p = Predicate("Score", closed=False, arg_types=[Predicate.ArgType.UNIQUE_INT_ID,
                                                        Predicate.ArgType.DOUBLE])
        m.add_predicate(p)
        p.add_data(Partition.TARGETS, [[1, 0.5], [22, 1.25]])
        m.add_rule(Rule("0.3: !Score(A, B)"))
        for use in pandas_modes():
            with pandas_mode(use):
                got = sorted(rows(m.infer()[p], use))
                self.assertEqual(got, [(1, 0.5, 0.0), (22, 1.25, 0.0)])
                self.assertIsInstance(got[0][0], int)


class TestPostgres(_util.Case):
    def test_db_matches_the_cli(self):
        url = os.environ.get("HINGE_TEST_POSTGRES")
        if not url:
            self.skipTest("HINGE_TEST_POSTGRES is not set (a PostgreSQL URL; .ci/run sets one)")
        out = self.path("out")
        cli("infer", "--model", PSL, "--data", DATA, "--output", out, "--db", url,
            "--db-schema", "hinge_python_cli")
        res = smokers().infer(db=url, db_schema="hinge_python_test")
        self.assertEqual(result_values(res, _util.pandas_modes()[0]),
                         {k: float(v) for k, v in cli_values(out).items()})


class TestRule(unittest.TestCase):
    def test_parse(self):
        for text, weighted, weight, squared, string in (
                ("0.5: Smokes(X) -> Cancer(X) ^2", True, 0.5, True, "0.5: Smokes(X) -> Cancer(X) ^2"),
                ("1e-2: A(X) -> B(X)", True, 0.01, False, "0.01: A(X) -> B(X)"),
                ("2:A(X)->B(X)^1", True, 2.0, False, "2.0: A(X)->B(X)"),
                ("Knows(P1, P2) = Knows(P2, P1) .", False, None, False, "Knows(P1, P2) = Knows(P2, P1) ."),
                ("A(X) + B(X) <= 1 .", False, None, False, "A(X) + B(X) <= 1 ."),
                ("  .25: !A(X)  ", True, 0.25, False, "0.25: !A(X)")):
            with self.subTest(text=text):
                r = Rule(text)
                self.assertEqual((r.weighted(), r.weight(), r.squared(), str(r)),
                                 (weighted, weight, squared, string))
                self.assertEqual(str(Rule(str(r))), str(r))
        r = Rule("A(X) -> B(X)", weight=0.1, squared=True)
        self.assertEqual(str(r), "0.1: A(X) -> B(X) ^2")
        self.assertEqual(r.to_string(weight_places=3), "0.100: A(X) -> B(X) ^2")
        self.assertEqual(str(r.set_weight(0.7)), "0.7: A(X) -> B(X) ^2")

    def test_refused(self):
        for args, kwargs, words in (
                (("A(X) -> B(X)",), {}, "no weight"),
                (("0.5: A(X) -> B(X)",), {"weight": 0.6}, "do not match"),
                (("-1: A(X) -> B(X)",), {}, "non-negative"),
                (("A(X) -> B(X) .",), {"weighted": True}, "unweighted marker"),
                (("A(X) -> B(X) .",), {"weight": 1.0}, "unweighted"),
                (("0.5: A(X) ^2",), {"squared": False}, "does not match"),
                (("",), {}, "Empty"),
                ((3,), {}, "string")):
            with self.subTest(args=args, kwargs=kwargs):
                with self.assertRaises(RuleError) as cm:
                    Rule(*args, **kwargs)
                self.assertIn(words, str(cm.exception))
        with self.assertRaises(RuleError):
            Rule("A(X) .").set_weight(1)
        with self.assertRaises(RuleError):
            Rule("1: A(X)").set_weight(float("nan"))


class TestPredicate(unittest.TestCase):
    def test_names_and_model(self):
        m = Model("m")
        a = Predicate("Foo", closed=True, size=2)
        m.add_predicate(a).add_predicate(a)
        self.assertIs(m.get_predicate("foo"), a)
        self.assertEqual(a.name(), "FOO")
        for other in (Predicate("Foo", closed=True, size=2), Predicate("FOO", closed=False, size=3)):
            with self.assertRaises(PredicateError):
                m.add_predicate(other)
        with self.assertRaises(KeyError):
            m.get_predicate("Bar")

    def test_closed_from_targets(self):
        """pslpython 2.4's Predicate(name, size): open exactly when it has targets."""
        p = Predicate("Knows", 2)
        self.assertEqual(len(p), 2)
        self.assertTrue(p.closed())
        p.add_data(Partition.TARGETS, [["a", "b"]])
        self.assertFalse(p.closed())

    def test_sizes(self):
        for kwargs in ({}, {"size": 0}, {"size": 2, "arg_types": [Predicate.ArgType.STRING]},
                       {"arg_types": ["String"]}, {"closed": "yes", "size": 1}):
            with self.subTest(kwargs=kwargs), self.assertRaises(PredicateError):
                Predicate("P", **kwargs)
        with self.assertRaises(PredicateError):
            Predicate("P", 1, evaluations=[{"evaluator": "DiscreteEvaluator"}])

    def test_data_reads_back(self):
        for use in pandas_modes():
            with pandas_mode(use):
                p = Predicate("Smokes", closed=False, size=1)
                p.add_data_file(Partition.OBSERVATIONS, os.path.join(SMOKERS, "smokes_obs.txt"))
                p.add_data(Partition.OBSERVATIONS, [["Zed"], ["Yan", 0.25]])
                p.add_data_row(Partition.TARGETS, ["Bob"])
                d = p.data()
                self.assertEqual(rows(d[Partition.OBSERVATIONS], use)[-2:], [("Zed", 1.0), ("Yan", 0.25)])
                self.assertEqual(len(rows(d[Partition.OBSERVATIONS], use)), 8)
                self.assertEqual(rows(d[Partition.TARGETS], use)[0][0], "Bob")

    def test_load_rules_as_hinge_reads_them(self):
        # Comments, a rule over two lines and a hard rule after a weighted
        # one without a weight between: the file hinge infer reads (a line
        # per rule was assumed, and this file raised RuleError).
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".psl", delete=False) as f:
            f.write("/* a block\n   comment */\n0.5: Smokes(X)\n   -> Cancer(X) ^2\n"
                    "0.01: !Cancer(X) # prior\n// c\nSmokes(X) -> Cancer(X) .\n"
                    "Friends(A, +B) >= 0.5 . {B: Smokes(B)}\n1.0: Friends(A, +B) >= 0.5 ^2 {B: Smokes(B)}\n")
        self.addCleanup(os.remove, f.name)
        rules = Rule.load_from_file(f.name)
        self.assertEqual([str(r) for r in rules],
                         ["0.5: Smokes(X) -> Cancer(X) ^2", "0.01: !Cancer(X)", "Smokes(X) -> Cancer(X) .",
                          "Friends(A, +B) >= 0.5 . {B: Smokes(B)}", "1.0: Friends(A, +B) >= 0.5 ^2 {B: Smokes(B)}"])
        self.assertEqual([(r.weighted(), r.squared()) for r in rules[3:]], [(False, False), (True, True)])
        # Braces in a filter's quoted constant are text, not a clause's end.
        for text in ("1.0: Friends(A, +B) <= 1 ^2 {B: Knows(A, '{')}", "1.0: Friends(A, +B) <= 1 ^2 {B: Knows(A, '}')}"):
            r = Rule(text)
            self.assertEqual((str(r), r.squared(), r.body()), (text, True, "Friends(A, +B) <= 1"))
        self.assertEqual([r.source for r in rules], ["%s:%d" % (f.name, n) for n in (3, 5, 7, 8, 9)])
        # A syntax error names the file, line and column.
        with tempfile.NamedTemporaryFile("w", suffix=".psl", delete=False) as g:
            g.write("# header\n0.5: Smokes(X) -> \n")
        self.addCleanup(os.remove, g.name)
        with self.assertRaises(HingeInputError) as cm:
            Rule.load_from_file(g.name)
        self.assertIn("%s:2:18: " % g.name, str(cm.exception))
        # An error of a run names the file and line the rule came from.
        with tempfile.NamedTemporaryFile("w", suffix=".psl", delete=False) as h:
            h.write("# header\n\n0.5: Smokes(X) -> Cancr(X) ^2\n")
        self.addCleanup(os.remove, h.name)
        model = smokers(rules=Rule.load_from_file(h.name))
        with self.assertRaises(HingeInputError) as cm:
            model.infer()
        self.assertIn("(read from %s:3)" % h.name, str(cm.exception))

    def test_delimited_file_with_header(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write("a,b,truth\nAnna,Bob,1\nBob,Carl,0.5\n")
        self.addCleanup(os.remove, f.name)
        p = Predicate("Knows", closed=True, size=2)
        p.add_data_file(Partition.OBSERVATIONS, f.name, has_header=True, delim=",")
        self.assertEqual(list(p.chunks(Partition.OBSERVATIONS)[0][1]),
                         [("Anna", "Bob", 1.0), ("Bob", "Carl", 0.5)])
        # An error names the file's line (it said "row 1": counted from 0,
        # without the header, for the file's line 4).
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as g:
            g.write("a,b,truth\nAnna,Bob,1\n\nBob,Carl,x\n")
        self.addCleanup(os.remove, g.name)
        with self.assertRaises(PredicateError) as cm:
            p.add_data_file(Partition.OBSERVATIONS, g.name, has_header=True, delim=",")
        self.assertIn("%s:4: truth value 'x' is not a number" % g.name, str(cm.exception))


if __name__ == "__main__":
    unittest.main()

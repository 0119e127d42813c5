"""hinge.kgc against `hinge kgc` on examples/kgc, and its metrics recomputed
from the returned rankings."""

import json
import os
import unittest

from tests import _util
from tests._util import EXAMPLES, cli, pandas_mode, pandas_modes, rows

from hinge import HingeInputError, kgc

KGC = os.path.join(EXAMPLES, "kgc")
TRAIN, VALID, TEST = (os.path.join(KGC, n + ".txt") for n in ("train", "valid", "test"))


def triples(path):
    return [tuple(r) for r in _util.read_tsv(path)]


def filtered_metrics(predictions, known):
    """Filtered MRR and Hits@k computed from the rankings: a true answer's
    rank counts the candidates scored above it and half of those tied with
    it, known answers other than the query's own left out; a true answer
    not in its list is a miss."""
    lists = {}
    for t, h, r, tl, direction, rank, cand, score in predictions:
        lists.setdefault((t, direction), (h, r, tl, []))[3].append((rank, cand, score))
    ranks = []
    for (t, direction), (h, r, tl, cands) in lists.items():
        truth = h if direction == "head" else tl
        others = [(c, s) for _, c, s in sorted(cands)
                  if c == truth or ((c, r, tl) if direction == "head" else (h, r, c)) not in known]
        score = dict(others).get(truth)
        if score is None:
            ranks.append(None)
            continue
        above = sum(1 for c, s in others if s > score)
        tied = sum(1 for c, s in others if s == score and c != truth)
        ranks.append(1 + above + tied / 2)
    n = 2 * len({t for t, _ in lists})
    out = {"MRR": sum(1 / r for r in ranks if r) / n}
    for k in (1, 3, 10):
        out["Hits@%d" % k] = sum(1 for r in ranks if r and r <= k) / n
    return out, len(lists)


class TestKGC(_util.Case):
    def cli_run(self, *flags):
        pred, rules, rep = self.path("pred.txt"), self.path("rules.tsv"), self.path("kgc.json")
        cli("kgc", "--train", TRAIN, "--valid", VALID, "--test", TEST, "--predictions", pred,
            "--report", rep, *flags)
        with open(rep) as f:
            report = json.load(f)
        return pred, rules, report

    def test_results_are_the_clis(self):
        pred, rules, report = self.cli_run("--rounds", "2", "--rules", self.path("rules.tsv"))
        test = triples(TEST)
        want_pred = kgc.read_predictions(pred, test)
        want_rules = [(int(a), int(b), float(c), d) for a, b, c, d in _util.read_tsv(rules)]
        for use in pandas_modes():
            for inputs in ("files", "rows"):
                with self.subTest(pandas=use, inputs=inputs), pandas_mode(use):
                    if inputs == "files":
                        res = kgc.complete(TRAIN, TEST, valid=VALID, rounds=2)
                    else:
                        data = [triples(p) for p in (TRAIN, TEST, VALID)]
                        if use:
                            import pandas
                            data = [pandas.DataFrame(d, columns=["h", "r", "t"]) for d in data]
                        res = kgc.complete(data[0], data[1], valid=data[2], rounds=2)
                    self.assertEqual(_util.columns(res.predictions), kgc.PREDICTION_COLUMNS)
                    self.assertEqual(rows(res.predictions, use), want_pred)
                    self.assertEqual(rows(res.rules, use), want_rules)
                    self.assertEqual(res.metrics["MRR"], report["metrics"]["mrr"])
                    self.assertEqual(res.metrics["Hits@10"], report["metrics"]["hits10"])
                    self.assertEqual(res.metrics["queries"], 2 * len(test))

    def test_metrics_from_the_rankings(self):
        """The metrics hinge reports are those the returned rankings give."""
        known = set(triples(TRAIN)) | set(triples(VALID)) | set(triples(TEST))
        for score in ("learned", "noisy-or", "maxplus", "max"):
            with self.subTest(score=score), pandas_mode(False):
                res = kgc.complete(TRAIN, TEST, valid=VALID, rounds=2, score=score)
                got, queries = filtered_metrics(list(res.predictions), known)
                self.assertEqual(queries, res.metrics["queries"])
                for k, v in got.items():
                    self.assertAlmostEqual(v, res.metrics[k], places=12, msg=k)
        self.assertGreater(res.metrics["MRR"], 0.5)

    def test_rules_in(self):
        """Ranking with the returned rules is ranking with the CLI's rules file."""
        first = kgc.complete(TRAIN, TEST, valid=VALID, rounds=2, score="maxplus")
        rules = self.path("rules.tsv")
        cli("kgc", "--train", TRAIN, "--valid", VALID, "--test", TEST, "--rounds", "2", "--score", "maxplus",
            "--rules", rules)  # the rounds kept are chosen with the run's scoring
        pred, _, report = self.cli_run("--rules-in", rules, "--score", "max")
        for given in (first.rules, rules):
            res = kgc.complete(TRAIN, TEST, valid=VALID, rules_in=given, score="max")
            self.assertEqual(rows(res.predictions, _util.pandas_modes()[0]),
                             kgc.read_predictions(pred, triples(TEST)))
            self.assertEqual(res.metrics["MRR"], report["metrics"]["mrr"])

    def test_choose_rounds(self):
        """choose_rounds=False is the CLI's --choose-rounds=false: every
        round's rules kept; by default hinge keeps the rounds it chose."""
        for choose in (None, False):
            with self.subTest(choose_rounds=choose), pandas_mode(False):
                flags = ["--rounds", "2"] + ([] if choose is None else ["--choose-rounds=false"])
                _, _, report = self.cli_run(*flags)
                res = kgc.complete(TRAIN, TEST, valid=VALID, rounds=2, choose_rounds=choose)
                self.assertEqual(res.report["kept_rounds"], report["kept_rounds"])
                self.assertEqual(res.metrics["MRR"], report["metrics"]["mrr"])
                if choose is False:
                    self.assertEqual(res.report["kept_rounds"], 2)
                    self.assertNotIn("chosen_rounds", res.report)
                else:
                    self.assertIn("chosen_rounds", res.report)

    def test_explain(self):
        why = self.path("why.json")
        cli("kgc", "--train", TRAIN, "--valid", VALID, "--test", TEST, "--rounds", "2",
            "--explain", "parentOf(person00, person15)", "--explain-top", "2", "--explain-json", why)
        with open(why) as f:
            want = json.load(f)["explanations"]
        res = kgc.complete(TRAIN, TEST, valid=VALID, rounds=2, explain="parentOf(person00, person15)",
                           explain_top=2)
        self.assertEqual(res.explanations, want)

    def test_errors(self):
        bad = self.path("bad.txt")
        with open(bad, "w") as f:
            f.write("a\tr\tb\nc\tr\n")
        _, stderr, status = cli("kgc", "--train", bad, "--test", TEST, "--rounds", "1", check=False)
        self.assertEqual(status, 2)
        with self.assertRaises(HingeInputError) as cm:
            kgc.complete(bad, TEST, rounds=1)
        self.assertEqual(cm.exception.message, stderr.strip().split("hinge kgc: ", 1)[1])
        self.assertEqual((cm.exception.file, cm.exception.line, cm.exception.column), (bad, 2, 1))
        # A message about a whole file names it as e.file, line and column
        # None: the package's label for triples it wrote, a user's path.
        empty = self.path("empty.txt")
        open(empty, "w").close()
        for train, want in (([], "<train triples>"), (empty, empty)):
            with self.subTest(train=train), self.assertRaises(HingeInputError) as cm:
                kgc.complete(train, [])
            self.assertTrue(cm.exception.message.startswith(want + ": "), cm.exception.message)
            self.assertEqual((cm.exception.file, cm.exception.line, cm.exception.column), (want, None, None))
        with self.assertRaises(HingeInputError) as cm:
            kgc.complete([("a", "r", "b"), ("c", "r", "d")], TEST, rounds=1, options=["--max-length", "9"])
        self.assertIn("--max-length", cm.exception.message)
        # A keyword's value is named by the keyword, whole flags only.
        for kwargs, want in (({"max_length": 9}, "max_length="), ({"top_k": 0}, "top_k="),
                             ({"time": "abc"}, "time=")):
            with self.subTest(kwargs=kwargs), self.assertRaises(HingeInputError) as cm:
                kgc.complete([("a", "r", "b"), ("c", "r", "d")], TEST, rounds=1, **kwargs)
            self.assertIn(want, cm.exception.message)
            self.assertNotIn("--", cm.exception.message)
        for data in ([("a", "r")], [("a\tb", "r", "c")], [(" a", "r", "c")], "missing.txt"):
            with self.subTest(data=data), self.assertRaises((ValueError, FileNotFoundError)):
                kgc.complete(data, TEST, rounds=1)


if __name__ == "__main__":
    unittest.main()

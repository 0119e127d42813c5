"""Knowledge-graph completion from Python (`hinge kgc`): learn rules from
training triples, rank the answers of every test triple asked both ways,
(h, r, ?) and (?, r, t), and get the rankings, the rules and the filtered
MRR and Hits@k back.

    from hinge import kgc
    res = kgc.complete("train.txt", "test.txt", valid="valid.txt", rounds=2)
    res.metrics          # {"queries": 58, "MRR": 0.94, "Hits@1": ..., "Hits@3": ..., "Hits@10": ...}
    res.predictions      # DataFrame: triple, head, relation, tail, direction, rank, candidate, score
    res.rules            # DataFrame: body_groundings, support, confidence, rule
    again = kgc.complete(train, test, rules_in=res.rules, score="maxplus")

Triples are head<TAB>relation<TAB>tail files, DataFrames of three columns,
or lists of (head, relation, tail).
"""

import os

from . import _run, _table

__all__ = ["KGCResult", "complete", "read_predictions"]

PREDICTION_COLUMNS = ["triple", "head", "relation", "tail", "direction", "rank", "candidate", "score"]
RULE_COLUMNS = ["body_groundings", "support", "confidence", "rule"]

# Report metric names -> the names the result uses.
_METRICS = {"queries": "queries", "mrr": "MRR", "hits1": "Hits@1", "hits3": "Hits@3", "hits10": "Hits@10"}


class KGCResult(object):
    """What complete() returns.

    metrics: filtered MRR and Hits@1/3/10 over head and tail queries
        together, and the number of queries, as hinge computes them.
    predictions: one row per candidate of each test triple's two queries:
        triple (the test triple's index), head, relation, tail, direction
        ('head': the candidates for the head of (?, relation, tail);
        'tail': for the tail of (head, relation, ?)), rank (1 for the
        best; tied candidates have equal scores), candidate and score.
    rules: the rules learned (or given): body_groundings, support,
        confidence, rule (AnyBURL's notation).
    report: hinge's --report. explanations: those of explain=.
    """

    def __init__(self):
        self.metrics = {}
        self.predictions = None
        self.rules = None
        self.report = {}
        self.explanations = []

    def __repr__(self):
        return "KGCResult(metrics=%r)" % (self.metrics,)


def _write_triples(data, path, what):
    """Writes triples (a file path is used as it is) and returns the path
    hinge reads and the triples written (None for a file)."""
    if isinstance(data, (str, os.PathLike)):
        p = os.fspath(data)
        if not os.path.isfile(p):
            raise FileNotFoundError("%s %s: no such file" % (what, p))
        return p, None
    rows = _table.rows_of(data, what)
    out = []
    for i, row in enumerate(rows):
        if len(row) != 3:
            raise ValueError("%s, row %d: want (head, relation, tail), found %d columns" % (what, i, len(row)))
        t = tuple(_table.constant(v, "%s, row %d" % (what, i)) for v in row)
        for v in t:
            if not v.strip() or v != v.strip() or any(c in v for c in "\t\n\r"):
                raise ValueError("%s, row %d: %r: names in triple files cannot be empty, hold a tab or "
                                 "a line break, or start or end with blanks" % (what, i, v))
        out.append(t)
    with open(path, "w", encoding="utf-8") as f:
        for t in out:
            f.write("\t".join(t) + "\n")
    return path, out


def _read_test(path):
    """The triples of a triple file, as hinge reads them."""
    out = []
    with open(path, encoding="utf-8-sig") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            out.append(tuple(x.strip() for x in line.split("\t")))
    return out


def read_predictions(path, test):
    """The rows of a predictions file in AnyBURL's format (per test triple a
    "h r t" line, then "Heads: " and "Tails: " lines of tab-separated
    candidates and scores), for the given test triples, in order."""
    rows = []
    with open(path, encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f]
    if len(lines) != 3 * len(test):
        raise ValueError("%s: %d lines for %d test triples (want 3 each)" % (path, len(lines), len(test)))
    for i, t in enumerate(test):
        head_line, tails_line = lines[3 * i + 1], lines[3 * i + 2]
        if lines[3 * i] != " ".join(t):
            raise ValueError("%s:%d: %r is not test triple %d, %r" % (path, 3 * i + 1, lines[3 * i], i, t))
        for label, line, direction in (("Heads: ", head_line, "head"), ("Tails: ", tails_line, "tail")):
            if not line.startswith(label):
                raise ValueError("%s: want a %r line for test triple %d, found %r" % (path, label, i, line[:40]))
            fields = line[len(label):].split("\t")
            if fields and fields[-1] == "":
                fields.pop()
            if len(fields) % 2:
                raise ValueError("%s: odd number of fields in the %s line of test triple %d" % (path, direction, i))
            for k in range(0, len(fields), 2):
                rows.append((i, t[0], t[1], t[2], direction, k // 2 + 1, fields[k], float(fields[k + 1])))
    return rows


def _read_rules(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            body, support, conf, rule = line.split("\t", 3)
            rows.append((int(body), int(support), float(conf), rule))
    return rows


def _write_rules(rules, path):
    if isinstance(rules, (str, os.PathLike)):
        p = os.fspath(rules)
        if not os.path.isfile(p):
            raise FileNotFoundError("rules_in %s: no such file" % p)
        return p
    with open(path, "w", encoding="utf-8") as f:
        for i, row in enumerate(_table.rows_of(rules, "rules_in")):
            if len(row) != 4:
                raise ValueError("rules_in, row %d: want (body_groundings, support, confidence, rule)" % i)
            f.write("%s\t%s\t%r\t%s\n" % (int(row[0]), int(row[1]), float(row[2]), row[3]))
    return path


def complete(train, test, valid=None, facts=None, *, rounds=None, time=None, score=None,
             top_k=None, seed=None, rules_in=None, max_length=None, min_conf=None,
             min_support=None, pc=None, noisy_or_k=None, sample=None, threads=None,
             memory_limit=None, choose_rounds=None, explain=None, explain_top=None, options=None,
             logger=None, temp_dir=None, cleanup_temp=True, timeout=None):
    """Learns rules from train (and facts) and ranks the answers of the test
    triples, filtered by every known triple; returns a KGCResult.

    rounds: sampling rounds of learning (the same rules on any machine);
    time: a learning budget ('10s', or seconds as a number), hinge's default
    when neither is given. score: learned (the default with valid: noisy-or
    weighted by rule class and place, the weights fitted on valid), noisy-or
    (the default without valid), maxplus, max, clustered (needs valid) or
    psl. rules_in: rank with these rules instead
    of learning (a result's .rules, rows, or a rules file). top_k, seed,
    max_length, min_conf, min_support, pc, noisy_or_k, sample, threads,
    memory_limit: hinge kgc's flags of the same names. choose_rounds: False
    keeps every learning round's rules (by default, with valid, hinge keeps
    the rounds whose rules rank the validation triples best). explain: a triple
    'relation(head, tail)' or a list of them. options: more flags, a list.
    logger, temp_dir, cleanup_temp, timeout: as Model.infer.
    """
    flags = []
    given = {}  # the flags set from keywords, named so in hinge's messages
    if isinstance(time, (int, float)) and not isinstance(time, bool):
        time = "%gs" % time
    for name, value in (("--rounds", rounds), ("--time", time), ("--score", score),
                        ("--top-k", top_k), ("--seed", seed), ("--max-length", max_length),
                        ("--min-conf", min_conf), ("--min-support", min_support), ("--pc", pc),
                        ("--noisy-or-k", noisy_or_k), ("--sample", sample), ("--threads", threads),
                        ("--memory-limit", memory_limit), ("--explain-top", explain_top)):
        if value is not None:
            flags += [name, str(value)]
            given[name] = name[2:].replace("-", "_") + "="
    if choose_rounds is not None:
        flags.append("--choose-rounds=%s" % ("true" if choose_rounds else "false"))
        given["--choose-rounds"] = "choose_rounds="
    if rules_in is not None:
        given["--rules-in"] = "rules_in="
    atoms = [explain] if isinstance(explain, str) else list(explain or [])
    if atoms:
        given["--explain"] = "explain="
    flags += [str(o) for o in (options or [])]
    with _run.workdir("hinge-kgc", temp_dir, cleanup_temp, logger) as tmp:
        labels = _run.keyword_labels(given, options or [])
        args = ["kgc"]
        written = {}
        for flag, data, name in (("--train", train, "train"), ("--test", test, "test"),
                                 ("--valid", valid, "valid"), ("--facts", facts, "facts")):
            if data is None:
                continue
            path, rows = _write_triples(data, os.path.join(tmp, name + ".txt"), name)
            if rows is not None:
                labels[path] = "<%s triples>" % name
            written[name] = (path, rows)
            args += [flag, path]
        if rules_in is not None:
            rp = _write_rules(rules_in, os.path.join(tmp, "rules-in.tsv"))
            if rp.startswith(tmp):
                labels[rp] = "<rules_in>"
            args += ["--rules-in", rp]
        pred = os.path.join(tmp, "predictions.txt")
        rules = os.path.join(tmp, "rules.tsv")
        report = os.path.join(tmp, "report.json")
        why = os.path.join(tmp, "explain.json")
        args += ["--predictions", pred, "--report", report, "--quiet"]
        if rules_in is None:
            args += ["--rules", rules]
        for a in atoms:
            args += ["--explain", a]
        if atoms:
            args += ["--explain-json", why]
        labels[tmp] = "<temp dir>"
        _run.run(args + flags, logger=logger, labels=labels, timeout=timeout)

        res = KGCResult()
        res.report = _run.load_json(report, labels)
        for k, v in (res.report.get("metrics") or {}).items():
            res.metrics[_METRICS.get(k, k)] = v
        path, test_rows = written["test"]
        if test_rows is None:
            test_rows = _read_test(path)
        res.predictions = _table.frame(read_predictions(pred, test_rows), PREDICTION_COLUMNS)
        if rules_in is None:
            res.rules = _table.frame(_read_rules(rules), RULE_COLUMNS)
        else:
            res.rules = _table.frame(_read_rules(rp), RULE_COLUMNS)
        if atoms and os.path.isfile(why):
            res.explanations = _run.load_json(why, labels).get("explanations") or []
        return res

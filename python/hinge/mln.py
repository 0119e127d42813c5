"""Markov logic from Python: MAP worlds and marginals of an Alchemy program
(`hinge mln infer`).

    from hinge import mln
    world = mln.infer("smokers.mln", "smokers.db", query=["Cancer", "Smokes"])
    world["Cancer"]        # DataFrame: 0 (the argument), truth (0 or 1)
    world.to_dict()        # {"Cancer(Anna)": 1.0, ...}
    world.cost, world.lower_bound, world.optimal
    probs = mln.marginals("smokers.mln", "smokers.db", query="Cancer", samples=5000, seed=1)
    probs["Cancer"]        # DataFrame: 0, probability
    learned = mln.learn("smokers.mln", "smokers.db")     # hinge mln learn
    learned.program        # the program with the learned weights, as text
    learned.weights        # [(formula text, initial, learned), ...]

The program and the evidence are files or text (a string holding a line
break or an atom is text: "Friends(Anna, Bob)\\nSmokes(Anna)\\n"); evidence
may be a list of them. hinge's options are keyword arguments.
"""

import os

from . import _run, _table
from ._inputs import source, sources

__all__ = ["MLNLearnResult", "MLNResult", "infer", "learn", "marginals", "parse_atom"]


class MLNResult(dict):
    """{predicate name: table} for the query atoms: a DataFrame (or Rows)
    per query predicate with one column per argument (0, 1, ...) and the
    value column: 'truth' (0 or 1) for a MAP world, 'probability' for
    marginals. Predicates are keyed as hinge writes them (the program's
    spelling).

    report: hinge's --report (for MAP: cost, cost_lower_bound, optimal,
        ground_clauses, ...; for marginals: convergence, samples, ...).
    lines: the result file's lines, as hinge wrote them.
    explanations: the explanations of the atoms given to explain=.
    """

    def __init__(self, value_column):
        super().__init__()
        self.value_column = value_column
        self.report = {}
        self.lines = []
        self.explanations = []
        self._values = {}

    def to_dict(self):
        """{atom as hinge writes it, 'Cancer(Anna)': value}."""
        return dict(self._values)

    @property
    def cost(self):
        """The MAP world's cost (the weight of the ground clauses it violates)."""
        return self.report.get("cost")

    @property
    def lower_bound(self):
        """The certified lower bound on any world's cost (MAP; None after lazy MaxWalkSAT)."""
        return self.report.get("cost_lower_bound")

    @property
    def optimal(self):
        """Whether the MAP world is proven optimal."""
        return self.report.get("optimal")


def parse_atom(text):
    """(predicate, (arguments...)) of an atom as hinge writes one:
    Pred(A, "b c"): constants that are not plain names are double-quoted
    with backslash escapes."""
    text = text.strip()
    open_ = text.find("(")
    if open_ < 0 or not text.endswith(")"):
        raise ValueError("not an atom: %r" % text)
    name, inner = text[:open_].strip(), text[open_ + 1:-1]
    args, cur, i, quoted = [], [], 0, False
    while i < len(inner):
        c = inner[i]
        if quoted:
            if c == "\\" and i + 1 < len(inner):
                cur.append(inner[i:i + 2])
                i += 2
                continue
            if c == '"':
                quoted = False
            cur.append(c)
        elif c == '"':
            quoted = True
            cur.append(c)
        elif c == ",":
            args.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    if quoted:
        raise ValueError("unterminated quoted constant in %r" % text)
    if cur or args:
        args.append("".join(cur))
    out = []
    for a in args:
        a = a.strip()
        if len(a) >= 2 and a[0] == '"' and a[-1] == '"':
            a = _table.go_unquote(a[1:-1])
        out.append(a)
    return name, tuple(out)


# hinge's flags as this module's keyword arguments, for hinge's messages
# and warnings (take more samples: "--samples, --burn-in" reads
# "samples=, burn_in=").
_INFER_FLAGS = {
    "--marginal": "marginal=True", "--method": "method=", "--query-file": "query_file=",
    "--open": "open_predicates=", "--lazy": "lazy=True", "--lifted": "lifted=True",
    "--samples": "samples=", "--burn-in": "burn_in=", "--chains": "chains=", "--flips": "flips=",
    "--noise": "noise=", "--seed": "seed=", "--hard-weight": "hard_weight=", "--threads": "threads=",
    "--memory-limit": "memory_limit=", "--time-limit": "time_limit=", "--digits": "digits=",
    "--explain-top": "explain_top=", "--explain-resolve": "explain_resolve=True",
}
_LEARN_FLAGS = {
    "--method": "method=", "--prior-stddev": "prior_stddev=", "--max-iter": "max_iter=",
    "--atom-weights": "atom_weights=True", "--iterations": "iterations=", "--samples": "samples=",
    "--chains": "chains=", "--seed": "seed=", "--memory-limit": "memory_limit=",
}

# The methods that give marginals whether or not marginal=True is given
# (exact is MAP unless marginal=True asks for exact marginals).
_MARGINAL_METHODS = ("auto", "mcsat", "gibbs")


def _query_list(query):
    if query is None:
        return []
    if isinstance(query, str):
        return [q.strip() for q in query.split(",") if q.strip()]
    return [str(q) for q in query]


def infer(program, evidence=None, query=None, *, marginal=False, method=None, query_file=None,
          open_predicates=None, lazy=False, lifted=False, samples=None, burn_in=None, chains=None,
          flips=None, noise=None, seed=None, hard_weight=None, threads=None, memory_limit=None,
          time_limit=None, digits=None, explain=None, explain_top=None, explain_resolve=False, options=None,
          logger=None, temp_dir=None, cleanup_temp=True, timeout=None):
    """The MAP world (or with marginal=True each query atom's probability)
    of a Markov logic network, as MLNResult.

    program: the .mln program, a file or text. evidence: .db evidence, a
    file or text, or a list of them (None: no evidence). query: the query
    predicates, a list or "A,B" (or query_file: query atoms, a file or
    text). open_predicates: predicates that are open besides the queries
    (Alchemy's -ow, hinge's --open).

    method: MAP: lp-round (the default), lp-walksat, maxwalksat, exact
    (proven optimal, or at time_limit, e.g. '30s', the best world with the
    bound: report['exact'] has the status and the gap); marginals: auto
    (the default: exact where affordable, MC-SAT elsewhere), exact, mcsat
    or gibbs (auto, mcsat and gibbs give marginals without marginal=True).
    lazy, lifted, samples, burn_in, chains, flips, noise, seed, hard_weight,
    threads, memory_limit, time_limit, digits: hinge's flags of the same
    names (hinge mln infer --help). explain: an atom or a list of
    atoms to explain (explain_top, explain_resolve). options: more flags, a
    list. logger, temp_dir, cleanup_temp, timeout: as Model.infer.

    After lazy MAP only the true query atoms are listed (every other one is
    false), and after lazy marginals only the activated ones. Marginals come
    back as hinge writes them, to 4 decimals unless digits (up to 17) says
    otherwise.
    """
    if method in _MARGINAL_METHODS:
        marginal = True  # as hinge does: these methods give marginals
    if digits is not None and not (isinstance(digits, int) and 1 <= digits <= 17):
        raise ValueError("mln.infer: digits=%r: want an integer from 1 to 17" % (digits,))
    prog = source(program, "program")
    ev = sources(evidence, "evidence")
    queries = _query_list(query)
    qfile = source(query_file, "query file") if query_file is not None else None
    if not queries and qfile is None:
        raise ValueError("mln.infer: give query=[...] (the query predicates) or query_file=")
    flags = []
    if marginal:
        flags.append("--marginal")
    if queries:
        flags += ["--query", ",".join(queries)]
    flags += _value_flags((("--method", method), ("--samples", samples), ("--burn-in", burn_in),
                           ("--chains", chains), ("--flips", flips), ("--noise", noise),
                           ("--seed", seed), ("--hard-weight", hard_weight),
                           ("--threads", threads), ("--memory-limit", memory_limit),
                           ("--time-limit", time_limit), ("--digits", digits),
                           ("--explain-top", explain_top)))
    if open_predicates:
        flags += ["--open", ",".join(_query_list(open_predicates))]
    if lazy:
        flags.append("--lazy")
    if lifted:
        flags.append("--lifted")
    atoms = [explain] if isinstance(explain, str) else list(explain or [])
    if explain_resolve:
        flags.append("--explain-resolve")
    flags += [str(o) for o in (options or [])]

    with _run.workdir("hinge-mln", temp_dir, cleanup_temp, logger) as tmp:
        labels = dict(_INFER_FLAGS)
        args = ["mln", "infer", "--input", prog.materialise(tmp, "program.mln", labels, "<program>")]
        args += _databases("--evidence", ev, tmp, labels, "evidence")
        if qfile is not None:
            args += ["--query-file", qfile.materialise(tmp, "query.db", labels, "<query file>")]
        result = os.path.join(tmp, "result.txt")
        report = os.path.join(tmp, "report.json")
        args += ["--result", result, "--report", report, "--quiet"]
        why = os.path.join(tmp, "explain.json")
        for a in atoms:
            args += ["--explain", a]
        if atoms:
            args += ["--explain-json", why]
        labels[tmp] = "<temp dir>"
        _run.run(args + flags, logger=logger, labels=labels, timeout=timeout)
        out = MLNResult("probability" if marginal else "truth")
        rows = {}
        with open(result, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line.strip():
                    continue
                atom, _, value = line.rpartition(" ")
                name, atom_args = parse_atom(atom)
                v = float(value)
                out.lines.append(line)
                out._values[atom] = v
                rows.setdefault(name, []).append(atom_args + ((int(v) if not marginal else v),))
        for name, rs in rows.items():
            arity = len(rs[0]) - 1
            out[name] = _table.frame(rs, list(range(arity)) + [out.value_column])
        out.report = _run.load_json(report, labels)
        if atoms and os.path.isfile(why):
            out.explanations = _run.load_json(why, labels).get("explanations") or []
        return out


def _value_flags(pairs):
    """The flags of (flag, value) pairs whose value is given (not None)."""
    flags = []
    for name, value in pairs:
        if value is not None:
            flags += [name, str(value)]
    return flags


def _databases(flag, srcs, tmp, labels, what):
    """The flags naming .db files or texts, the texts written to tmp and
    labelled <what> (or <what N> when there are several) in errors."""
    args = []
    for i, src in enumerate(srcs):
        label = "<%s>" % what if len(srcs) == 1 else "<%s %d>" % (what, i + 1)
        args += [flag, src.materialise(tmp, "%s-%d.db" % (what, i + 1), labels, label)]
    return args


def marginals(program, evidence=None, query=None, **kwargs):
    """infer(..., marginal=True): each query atom's probability."""
    return infer(program, evidence, query, marginal=True, **kwargs)


class MLNLearnResult(object):
    """The weights hinge mln learn learned.

    program: the program with the learned weights, as text (comments kept),
        which infer() takes as it is.
    weights: [(formula, initial weight, learned weight), ...] in program
        order, one per learned weight (a +x formula one per constant, its
        instance written out), as hinge prints them.
    report: hinge's --report (pseudo_log_likelihood, converged, params,
        hard_violated, ...).
    """

    def __init__(self, program, weights, report):
        self.program = program
        self.weights = weights
        self.report = report

    def __repr__(self):
        return "MLNLearnResult(%d weights)" % len(self.weights)


def learn(program, training, query=None, *, method=None, prior_stddev=None, max_iter=None,
          atom_weights=False, iterations=None, samples=None, chains=None, seed=None,
          memory_limit=None, options=None, logger=None, temp_dir=None, cleanup_temp=True,
          timeout=None):
    """Learns the weights of a Markov logic program's soft formulas from a
    training world (`hinge mln learn`), as MLNLearnResult.

    program: the .mln program, a file or text. training: the training
    database(s), files or text. query: the predicates whose atoms the
    pseudo-likelihood sums over (default: every predicate; Alchemy's -ne).
    method: pll (pseudo-log-likelihood, the default, as Alchemy's learnwts
    -g) or dn (discriminative, diagonal Newton; needs query). prior_stddev,
    max_iter, atom_weights (pll), iterations, samples, chains, seed (dn),
    memory_limit: hinge's flags of the same names (hinge mln learn --help).
    options: more flags, a list. logger, temp_dir, cleanup_temp, timeout:
    as Model.infer.
    """
    prog = source(program, "program")
    train = sources(training, "training database")
    if not train:
        raise ValueError("mln.learn: give the training database(s)")
    flags = []
    queries = _query_list(query)
    if queries:
        flags += ["--query", ",".join(queries)]
    flags += _value_flags((("--method", method), ("--prior-stddev", prior_stddev), ("--max-iter", max_iter),
                           ("--iterations", iterations), ("--samples", samples), ("--chains", chains),
                           ("--seed", seed), ("--memory-limit", memory_limit)))
    if atom_weights:
        flags.append("--atom-weights")
    flags += [str(o) for o in (options or [])]
    with _run.workdir("hinge-mln", temp_dir, cleanup_temp, logger) as tmp:
        labels = dict(_LEARN_FLAGS)
        args = ["mln", "learn", "--input", prog.materialise(tmp, "program.mln", labels, "<program>")]
        args += _databases("--train", train, tmp, labels, "training")
        out = os.path.join(tmp, "learned.mln")
        report = os.path.join(tmp, "report.json")
        args += ["--output", out, "--report", report]
        labels[tmp] = "<temp dir>"
        _run.run(args + flags, logger=logger, labels=labels, timeout=timeout)
        with open(out, encoding="utf-8") as f:
            text = f.read()
        rep = _run.load_json(report, labels)
        weights = [(p["formula_text"], p["initial"], p["learned"]) for p in rep.get("params") or []]
        return MLNLearnResult(text, weights, rep)

"""A PSL model run by hinge (pslpython's Model).

A pslpython script ports by changing its imports (``pslpython.model`` to
``hinge.model`` and so on, or ``from hinge import Model, Predicate,
Partition, Rule``). Model.infer and Model.learn write the rules (a .psl
file), the predicates (a .data file) and the in-memory data (TSV files) to
a temporary directory, run ``hinge infer`` or ``hinge learn`` on them, and
read the results back. pslpython's arguments are accepted with their PSL
meaning where hinge has one (see Model.infer); the ones that mean nothing
here are refused with the reason rather than ignored.
"""

import json
import os
import re
import uuid

from . import _run, _table
from .errors import HingeError, ModelError, PredicateError
from .partition import Partition
from .predicate import Predicate
from .rule import Rule

__all__ = ["Model", "ModelError", "InferenceResults"]


class InferenceResults(dict):
    """What Model.infer returns: {Predicate: table}, a DataFrame (or Rows
    without pandas) per open predicate with targets, with one column per
    argument (named 0, 1, ...) and 'truth', the inferred value, in the
    order hinge writes them. Besides the mapping:

    report: hinge's --report (objective, lower_bound, iterations, status,
        evaluation, seconds, and for discrete/lifted runs their sections).
    evaluation: {predicate name, as given to Predicate: {metric: value}} for
        the predicates with truth data.
    explanations: the explanations of the atoms given to explain=, as
        hinge's --explain-json writes them (a list), else [].
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.report = {}
        self.evaluation = {}
        self.explanations = []

    def __missing__(self, key):
        if isinstance(key, str):
            raise KeyError("%r: the results are keyed by Predicate, as pslpython's are; "
                           "results.by_name(%r) finds a predicate's table by its name" % (key, key))
        raise KeyError(key)

    def by_name(self, name):
        """The table of the predicate with this name (any case)."""
        want = Predicate.normalize_name(name)
        for p, t in self.items():
            if p.name() == want:
                return t
        raise KeyError(name)


_INFER_METHODS = {
    "": None, "mpeinference": None, "admminference": None, "admmreasoner": None, "admm": None,
    "dcdstreaminginference": "--streaming", "dcdinference": "--streaming",
    "dcdreasoner": "--streaming", "dcd": "--streaming", "streaming": "--streaming",
}
_INFER_REFUSED = {
    "lazympeinference": "hinge grounds PSL models in full (lazy grounding is for Markov logic: hinge.mln with lazy=True)",
    "sgdstreaminginference": "hinge has no SGD solver for PSL; its streaming solver is dual coordinate descent (method='DCDStreamingInference' or streaming=True)",
    "sgdinference": "hinge has no SGD solver for PSL; use the default ADMM or streaming=True (dual coordinate descent)",
    "sgdreasoner": "hinge has no SGD solver for PSL; use the default ADMM or streaming=True (dual coordinate descent)",
}
_LEARN_METHODS = {"maxpiecewisepseudolikelihood": "ppll"}

# Options of PSL's command line (additional_cli_options) that hinge's lacks.
_CLI_HARMLESS = {"--int-ids": 0, "-int": 0, "--skipAtomCommit": 0, "--log4j": 1, "-4j": 1}
_CLI_REFUSED = {
    "--postgres": "PSL's --postgres DBNAME: give hinge a PostgreSQL URL instead, db='postgres://user@host/DBNAME'",
    "--h2path": "hinge keeps the atoms in memory (or in PostgreSQL with db=...); there is no H2 database",
    "-p": "a PSL properties file: pass its keys in psl_config instead",
    "--properties": "a PSL properties file: pass its keys in psl_config instead",
    "--infer": "the command is chosen by calling infer() or learn()",
    "--learn": "the command is chosen by calling infer() or learn()",
    "--model": "the model is the one built in Python", "-m": "the model is the one built in Python",
    "--data": "the data are the predicates' data", "-d": "the data are the predicates' data",
    "--output": "the results are returned", "-o": "the results are returned",
}


def _java_size(value):
    """A JVM heap size (-Xmx4g) as a hinge --memory-limit (4GiB)."""
    m = re.fullmatch(r"(\d+)([kKmMgGtT]?)", value)
    if not m:
        raise ValueError("jvm_options: cannot read the heap size %r" % value)
    unit = {"": "", "k": "KiB", "m": "MiB", "g": "GiB", "t": "TiB"}[m.group(2).lower()]
    return m.group(1) + unit


def _flag_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class Model(object):
    """A PSL model: predicates (with their data) and rules.

    Model(name) as in pslpython; a name is made up when none is given.
    """

    CLI_INFERRED_OUTPUT_DIR = "inferred-predicates"
    DATA_STORAGE_DIR = "data"
    TRUTH_COLUMN_NAME = "truth"

    def __init__(self, name=None):
        self._name = str(name) if name is not None else str(uuid.uuid4())
        self._rules = []
        self._predicates = {}  # normalised name -> Predicate
        self._options = {}
        self.learn_report = None

    def add_predicate(self, predicate):
        """Adds a predicate; two different predicates may not share a name.
        Returns the model."""
        if predicate is None:
            raise ModelError("Cannot add a None predicate.")
        if not isinstance(predicate, Predicate):
            raise ModelError("add_predicate takes a Predicate, got %s." % type(predicate).__name__)
        name = predicate.name()
        if name in self._predicates and predicate is not self._predicates[name]:
            raise PredicateError("Within a model, predicates must have unique names. Got a duplicate: %s." % name)
        self._predicates[name] = predicate
        return self

    def add_rule(self, rule):
        """Adds a rule (a Rule, or a rule string); rules keep their order.
        Returns the model."""
        if isinstance(rule, str):
            rule = Rule(rule)
        if not isinstance(rule, Rule):
            raise ModelError("add_rule takes a Rule or a rule string, got %s." % type(rule).__name__)
        self._rules.append(rule)
        return self

    def get_rules(self):
        return self._rules

    def get_predicates(self):
        """The predicates, keyed by their normalised (upper-case) name."""
        return self._predicates

    def get_predicate(self, name):
        """The predicate of this name (any case); KeyError when there is none."""
        return self._predicates[Predicate.normalize_name(name)]

    def get_name(self):
        return self._name

    # pslpython 2.4 keeps options on the model.
    def add_options(self, options):
        self._options.update(options)

    def get_options(self):
        return self._options

    def clear_options(self):
        self._options = {}

    # Running.

    def infer(self, method="", additional_cli_options=None, psl_config=None, jvm_options=None,
              logger=None, temp_dir=None, cleanup_temp=True, *,
              additional_cli_optons=None, psl_options=None, transform_config=None,
              lifted=False, discrete=False, streaming=False, db=None, db_schema=None,
              explain=None, explain_top=None, evaluators=None, seed=None, threads=None,
              memory_limit=None, options=None, timeout=None):
        """Runs MAP inference (`hinge infer`) and returns InferenceResults,
        {Predicate: DataFrame} with columns 0..n-1 and 'truth'.

        pslpython's arguments:
            method: '' (ADMM, PSL's MPEInference) or PSL's
                DCDStreamingInference (hinge's --streaming); SGD and lazy
                inference are refused, as hinge has neither for PSL.
            additional_cli_options: flags for hinge's command line (hinge
                infer --help), such as ['--eval', 'AUCEvaluator']; PSL's -D
                key=value goes to psl_config, --int-ids and --skipAtomCommit
                are ignored (hinge needs neither), --postgres and --h2path
                are refused with what to use instead.
            psl_config (psl_options): PSL configuration keys: admmreasoner.*
                (or admm.*) maxiterations, stepsize, epsilonabs, epsilonrel,
                computeperiod; random.seed; parallel.numthreads;
                eval.includeobs, eval.closetruth; any EVALUATOR.option
                (hinge's --eval-option); inference.reasoner (ADMMReasoner,
                DCDReasoner). Logging keys are ignored; learning keys too
                (so one dict serves infer and learn); others are refused.
            jvm_options: -Xmx sets hinge's --memory-limit; -Xms, -Xss and
                -server are ignored; other JVM options are refused.
            logger: a logging.Logger for hinge's output (its warnings at
                WARNING, the rest at INFO); None the "hinge" logger, which
                shows only warnings unless logging is configured; False
                nothing.
            temp_dir, cleanup_temp: where the run's files go, and whether
                they are removed afterwards.
            timeout: seconds hinge may run (None: no limit); past it hinge
                is stopped as Ctrl-C stops it and HingeTimeoutError (a
                TimeoutError) is raised.
        hinge's own options:
            lifted, discrete, streaming: --lifted, --discrete, --streaming.
            db, db_schema: ground in PostgreSQL at this URL (--db); db=''
                grounds in memory even when HINGE_DB is set.
            explain: an atom ('Cancer(Bob)') or a list of them; their
                explanations are in the result's .explanations.
            explain_top: ground rules per explanation (0: all).
            evaluators: PSL evaluator names for predicates with truth data.
            seed, threads, memory_limit ('4GiB'): --seed, --threads,
                --memory-limit.
            options: more hinge flags, as a list.
        A failed run raises HingeError with hinge's message and exit status
        (a HingeInputError for bad input); for infeasible hard constraints
        its .results holds the values hinge reached.
        """
        cli, psl_opts, jvm = self._legacy_args(
            additional_cli_options, additional_cli_optons, psl_config, psl_options,
            jvm_options, transform_config)
        flags = []
        key = re.sub(r"^org\.linqs\.psl\.application\.inference\.", "", method or "").lower()
        if key in _INFER_REFUSED:
            raise ModelError("infer(method=%r): %s." % (method, _INFER_REFUSED[key]))
        if key not in _INFER_METHODS:
            raise ModelError("infer(method=%r): unknown inference method; hinge runs MPEInference "
                             "(ADMM, the default) or DCDStreamingInference (streaming=True)." % method)
        if _INFER_METHODS[key]:
            flags.append(_INFER_METHODS[key])
        written = self._option_flags(psl_opts, jvm, cli)
        flags += written
        given = _keywords_given(lifted=lifted, discrete=discrete, streaming=streaming, db=db,
                                db_schema=db_schema, seed=seed, threads=threads,
                                memory_limit=memory_limit, explain_top=explain_top, evaluators=evaluators)
        labels = _run.keyword_labels(given, written + [str(o) for o in (options or [])])
        if lifted:
            flags.append("--lifted")
        if discrete:
            flags.append("--discrete")
        if streaming and "--streaming" not in flags:
            flags.append("--streaming")
        flags += _common_flags(db=db, db_schema=db_schema, seed=seed, threads=threads,
                               memory_limit=memory_limit)
        for e in ([evaluators] if isinstance(evaluators, str) else evaluators or []):
            flags += ["--eval", e]
        atoms = [explain] if isinstance(explain, str) else list(explain or [])
        if explain_top is not None:
            flags += ["--explain-top", str(int(explain_top))]
        flags += [str(o) for o in (options or [])]

        with _run.workdir("hinge-" + self._name, temp_dir, cleanup_temp, logger) as tmp:
            files = self._write(tmp)
            files.labels.update(labels)
            out_dir = os.path.join(tmp, Model.CLI_INFERRED_OUTPUT_DIR)
            report = os.path.join(tmp, "report.json")
            args = ["infer", "--model", files.rules, "--data", files.data, "--output", out_dir,
                    "--report", report, "--quiet"]
            if atoms:
                why = os.path.join(tmp, "explain.json")
                for a in atoms:
                    args += ["--explain", a]
                args += ["--explain-json", why]
            try:
                _run.run(args + flags, logger=logger, labels=files.labels, describe=files.describe,
                         timeout=timeout)
            except HingeError as e:
                if e.status == 1 and os.path.isfile(report) and os.path.isdir(out_dir):
                    e.results = self._collect(out_dir, report, None, files.labels)
                raise
            return self._collect(out_dir, report, why if atoms else None, files.labels)

    def learn(self, method="", additional_cli_options=None, psl_config=None, jvm_options=None,
              logger=None, temp_dir=None, cleanup_temp=True, *,
              additional_cli_optons=None, psl_options=None, transform_config=None,
              db=None, db_schema=None, seed=None, threads=None, memory_limit=None,
              iterations=None, options=None, timeout=None):
        """Learns the weights of the weighted rules from the truth data
        (`hinge learn`) and sets them on this model's rules; returns the
        model. hinge's report (initial and learned weights, iterations) is
        kept in model.learn_report.

        method: '' (hinge's default, mle: PSL's MaxLikelihoodMPE and
        VotedPerceptron), mle, mple (MaxPseudoLikelihood), ppll
        (MaxPiecewisePseudoLikelihood); PSL's class names work with or
        without their package. iterations: perceptron steps or optimiser
        iterations. The other arguments are infer's.
        """
        cli, psl_opts, jvm = self._legacy_args(
            additional_cli_options, additional_cli_optons, psl_config, psl_options,
            jvm_options, transform_config)
        flags = []
        key = re.sub(r"^org\.linqs\.psl\.application\.learning\.weight\.(\w+\.)*", "", method or "")
        if key:
            flags += ["--method", _LEARN_METHODS.get(key.lower(), key)]
        written = self._option_flags(psl_opts, jvm, cli)
        flags += written
        given = _keywords_given(method=method, db=db, db_schema=db_schema, seed=seed, threads=threads,
                                memory_limit=memory_limit, iterations=iterations)
        labels = _run.keyword_labels(given, written + [str(o) for o in (options or [])])
        flags += _common_flags(db=db, db_schema=db_schema, seed=seed, threads=threads,
                               memory_limit=memory_limit)
        if iterations is not None:
            flags += ["--iterations", str(int(iterations))]
        flags += [str(o) for o in (options or [])]
        with _run.workdir("hinge-" + self._name, temp_dir, cleanup_temp, logger) as tmp:
            files = self._write(tmp)
            files.labels.update(labels)
            learned = os.path.join(tmp, "learned.psl")
            files.labels[learned] = "<learned rules: model.get_rules()>"
            report = os.path.join(tmp, "learn.json")
            args = ["learn", "--model", files.rules, "--data", files.data, "--output", learned,
                    "--report", report, "--quiet"]
            _run.run(args + flags, logger=logger, labels=files.labels, describe=files.describe,
                     timeout=timeout)
            rep = _run.load_json(report, files.labels)
        rules = rep.get("rules") or []
        if len(rules) != len(self._rules):
            raise ModelError("hinge learned %d rules for a model of %d." % (len(rules), len(self._rules)))
        for rule, r in zip(self._rules, rules):
            if rule.weighted() and r.get("learned_weight") is not None:
                rule.set_weight(r["learned_weight"])
        self.learn_report = rep
        return self

    # Arguments.

    @staticmethod
    def _legacy_args(cli, cli_typo, psl_config, psl_options, jvm, transform):
        """Sorts pslpython's arguments, whose positions differ between 2.2/2.3
        (method, additional_cli_options, psl_config, jvm_options, ...) and 2.4
        (method, psl_options, jvm_options, transform_config), by their types.
        Returns the CLI options, the PSL options, the JVM options."""
        cli_list, opts, jvm_list = [], {}, []
        if isinstance(cli, dict):      # 2.4: psl_options second
            opts.update(cli)
        elif cli is not None:
            cli_list += list(cli)
        if cli_typo is not None:       # 2.2's spelling
            cli_list += list(cli_typo)
        if isinstance(psl_config, dict):
            opts.update(psl_config)
        elif psl_config is not None:   # 2.4: jvm_options third
            jvm_list += list(psl_config)
        if callable(jvm) and not isinstance(jvm, (list, tuple)):
            transform = jvm            # 2.4: transform_config fourth
        elif jvm is not None:
            jvm_list += list(jvm)
        if psl_options:
            opts.update(psl_options)
        if transform is not None:
            raise ModelError("transform_config: hinge has no PSL runtime configuration to transform; "
                             "give hinge's options as keyword arguments (lifted=True, options=[...]).")
        return cli_list, opts, jvm_list

    def _option_flags(self, psl_opts, jvm, cli):
        """hinge flags for PSL configuration keys, JVM options and PSL CLI
        options; raises ModelError for those that mean nothing here."""
        opts = dict(self._options)
        opts.update(psl_opts)
        cli = list(cli)
        flags = []
        i = 0
        while i < len(cli):
            a = str(cli[i])
            if a == "-D" and i + 1 < len(cli):
                flags += ["-D", str(cli[i + 1])]  # hinge reads PSL's -D itself
                i += 2
                continue
            if a in _CLI_HARMLESS:
                i += 1 + _CLI_HARMLESS[a]
                continue
            if a in _CLI_REFUSED:
                raise ModelError("additional_cli_options %s: %s." % (a, _CLI_REFUSED[a]))
            flags.append(a)
            i += 1
        # PSL's configuration keys go to hinge as PSL's -D key=value, which
        # hinge translates into its flags (or refuses, naming the keys it
        # reads), as it does on its own command line.
        for k, v in opts.items():
            flags += ["-D", "%s=%s" % (k, _flag_value(v))]
        for o in jvm:
            o = str(o)
            if o.startswith("-Xmx"):
                flags += ["--memory-limit", _java_size(o[4:])]
            elif o.startswith("-Xms") or o.startswith("-Xss") or o == "-server":
                continue
            else:
                raise ModelError("jvm_options %r: hinge is not a Java program; -Xmx sets its memory "
                                 "limit, and memory_limit='4GiB' does too." % o)
        return flags

    # Files.

    def _write(self, tmp):
        """Writes the rules, the .data file and the in-memory data into tmp."""
        if not self._rules:
            raise ModelError("No rules specified to the model.")
        if not self._predicates:
            raise ModelError("No predicates added to the model.")
        files = _Files()
        base = re.sub(r"[^\w.-]", "_", self._name)[:64] or "model"
        files.rules = os.path.join(tmp, base + ".psl")
        files.labels[files.rules] = "<rules>"
        line = 1
        with open(files.rules, "w", encoding="utf-8") as f:
            for i, rule in enumerate(self._rules):
                text = str(rule)
                n = text.count("\n") + 1
                shown = text + ("   (read from %s)" % rule.source if rule.source else "")
                files.rule_lines.append((line, line + n - 1, i, shown))
                f.write(text + "\n")
                line += n
        data_dir = os.path.join(tmp, Model.DATA_STORAGE_DIR)
        os.makedirs(data_dir)
        doc = {"predicates": {}}
        for p in Partition:
            doc[p.value] = {}
        for pred in self._predicates.values():
            doc["predicates"]["%s/%d" % (pred.raw_name(), len(pred))] = "closed" if pred.closed() else "open"
            for p in Partition:
                paths = []
                for k, (kind, content) in enumerate(pred.chunks(p)):
                    if kind == "file":
                        paths.append(content)
                        continue
                    path = os.path.join(data_dir, "%s_%s_%d.txt" % (pred.name(), p.value, k))
                    with open(path, "w", encoding="utf-8") as f:
                        for row in content:
                            fields = [_table.quote_field(a) for a in row[:-1]]
                            if row[-1] is not None:
                                fields.append(repr(row[-1]))
                            f.write("\t".join(fields) + "\n")
                    label = "<%s %s rows>" % (pred.raw_name(), p.value)
                    files.labels[path] = label
                    files.rows[label] = content
                    paths.append(path)
                if paths:
                    doc[p.value][pred.raw_name()] = paths
        for p in Partition:
            if not doc[p.value]:
                del doc[p.value]
        files.data = os.path.join(tmp, base + ".data")
        files.labels[files.data] = "<data>"
        with open(files.data, "w", encoding="utf-8") as f:
            # JSON is YAML: hinge reads it as a .data file.
            json.dump(doc, f, indent=1, ensure_ascii=False)
        files.labels[tmp] = "<temp dir>"
        return files

    def _collect(self, out_dir, report_path, explain_path, labels):
        """The values hinge wrote, as InferenceResults, in hinge's order."""
        results = InferenceResults()
        if os.path.isfile(report_path):
            results.report = _run.load_json(report_path, labels)
            results.evaluation = results.report.get("evaluation") or {}
        by_file = {p.name() + ".txt": p for p in self._predicates.values()}
        entries = [os.path.basename(p) for p in results.report.get("outputs") or []]
        if not entries and os.path.isdir(out_dir):
            entries = sorted(e for e in os.listdir(out_dir) if e.endswith(".txt") and not e.startswith("."))
        for entry in entries:
            pred = by_file.get(entry)
            if pred is None:
                raise ModelError("hinge wrote values for %s, which is not a predicate of the model." % entry[:-4])
            size = len(pred)
            rows = _table.read_atoms(os.path.join(out_dir, entry), size, require_value=True)
            conv = [int if t in Predicate.INT_TYPES else float if t in Predicate.FLOAT_TYPES else None
                    for t in pred.types()]
            if any(conv):
                rows = [tuple(c(v) if c else v for c, v in zip(conv, r[:size])) + (r[size],) for r in rows]
            results[pred] = _table.frame(rows, list(range(size)) + [Model.TRUTH_COLUMN_NAME])
        if explain_path and os.path.isfile(explain_path):
            results.explanations = _run.load_json(explain_path, labels).get("explanations") or []
        return results


class _Files(object):
    """The files of one run and how to name their lines in errors."""

    def __init__(self):
        self.rules = self.data = None
        self.labels = {}
        self.rule_lines = []  # (first line, last line, index, text)
        self.rows = {}  # label -> rows

    def describe(self, label, line, message):
        if label == "<rules>":
            for first, last, i, text in self.rule_lines:
                if first <= line <= last:
                    hint = "<rules>:%d is rule %d of the model (get_rules()[%d]): %s" % (line, i, i, text)
                    m = re.search(r"unknown predicate (\w+)", message)
                    if m:
                        hint += "\n%s is not a predicate of the model: add it with model.add_predicate()" % m.group(1)
                    return hint
        rows = self.rows.get(label)
        if rows is not None and 1 <= line <= len(rows):
            return "%s:%d is row %d of those added: %r" % (label, line, line - 1, rows[line - 1])
        return None


# The flags Model's keyword arguments set, as those arguments are named in
# hinge's messages (see _run.keyword_labels).
_KEYWORD_FLAGS = {
    "lifted": ("--lifted", "lifted=True"), "discrete": ("--discrete", "discrete=True"),
    "streaming": ("--streaming", "streaming=True"), "db": ("--db", "db="),
    "db_schema": ("--db-schema", "db_schema="), "seed": ("--seed", "seed="),
    "threads": ("--threads", "threads="), "memory_limit": ("--memory-limit", "memory_limit="),
    "explain_top": ("--explain-top", "explain_top="), "evaluators": ("--eval", "evaluators="),
    "method": ("--method", "method="), "iterations": ("--iterations", "iterations="),
}


def _keywords_given(**kwargs):
    """{flag: keyword label} of the keyword arguments given (not None,
    False or empty)."""
    return dict(_KEYWORD_FLAGS[k] for k, v in kwargs.items() if v is not None and v is not False and v != "")


def _common_flags(db=None, db_schema=None, seed=None, threads=None, memory_limit=None):
    flags = []
    if db is not None:
        flags += ["--db", str(db)]
    if db_schema is not None:
        flags += ["--db-schema", str(db_schema)]
    if seed is not None:
        flags += ["--seed", str(int(seed))]
    if threads is not None:
        flags += ["--threads", str(int(threads))]
    if memory_limit is not None:
        flags += ["--memory-limit", str(memory_limit)]
    return flags

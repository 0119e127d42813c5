"""Finding the hinge binary and running it.

A run is one child process in its own process group, so that a Ctrl-C in
the terminal (or a notebook's interrupt) reaches Python alone; Python then
sends hinge exactly one SIGINT, which makes hinge stop within about a second
and write nothing, waits for it, and raises KeyboardInterrupt. No child is
left behind: a hinge that has not stopped after STOP_GRACE seconds, or a
second Ctrl-C while waiting, kills it (SIGKILL) and waits for that.
"""

import json
import logging
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
from contextlib import contextmanager

from .errors import BinaryNotFoundError, HingeTimeoutError, from_status

__all__ = ["find_binary", "load_json", "run", "workdir", "version", "STOP_GRACE"]

# How long a hinge that was sent SIGINT may take to stop before it is killed.
STOP_GRACE = 30.0

_LOG = logging.getLogger("hinge")

# Where a platform wheel puts the binary it bundles (see docs/python.md).
_BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


def _bundled_binary():
    name = "hinge.exe" if os.name == "nt" else "hinge"
    path = os.path.join(_BUNDLED, name)
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    return None


def find_binary():
    """The path of the hinge binary this package runs.

    In order: the environment variable HINGE_BIN (which must then name an
    executable file), the binary bundled in a platform wheel
    (hinge/bin/hinge), then `hinge` on PATH. Raises BinaryNotFoundError
    naming both HINGE_BIN and PATH when none is found.
    """
    env = os.environ.get("HINGE_BIN")
    if env:
        if not os.path.isfile(env):
            raise BinaryNotFoundError(
                "HINGE_BIN=%s: no such file (HINGE_BIN must name the hinge binary; "
                "unset it to use the hinge found on PATH)" % env)
        if not os.access(env, os.X_OK):
            raise BinaryNotFoundError("HINGE_BIN=%s: the file is not executable" % env)
        return env
    bundled = _bundled_binary()
    if bundled:
        return bundled
    found = shutil.which("hinge")
    if found:
        return found
    raise BinaryNotFoundError(
        "the hinge binary was not found: HINGE_BIN is not set and no 'hinge' is on "
        "PATH (%s). Build it with `CGO_ENABLED=0 go install ./cmd/hinge` in the "
        "hinge repository (it goes to $(go env GOPATH)/bin), then put that directory "
        "on PATH or set HINGE_BIN to the binary's path."
        % (os.environ.get("PATH") or "empty"))


class _Reader(threading.Thread):
    """Reads one of the child's streams line by line, keeping every line and
    passing each to a callback (the logger)."""

    def __init__(self, stream, emit):
        super().__init__(daemon=True)
        self.stream = stream
        self.emit = emit
        self.lines = []

    def run(self):
        for line in self.stream:
            self.lines.append(line)
            if self.emit is not None:
                try:
                    self.emit(line.rstrip("\n"))
                except Exception:  # a failing handler must not stop the draining
                    pass
        self.stream.close()

    def text(self):
        return "".join(self.lines)


def _resolve_logger(logger):
    """pslpython's logger argument: None the package's logger ("hinge",
    silent unless logging is configured), False nothing, else the given one."""
    if logger is False:
        return None
    if logger is None:
        return _LOG
    return logger


def _log_stderr(log, line):
    """hinge's standard error: its warnings at WARNING, the rest (summaries,
    notes, progress) at INFO."""
    if "warning:" in line:
        log.warning("%s", line)
    else:
        log.info("%s", line)


def _stop(proc):
    """Stops a running child: one SIGINT, a wait, SIGKILL if it lingers or
    if the user interrupts the wait."""
    if proc.poll() is not None:
        return
    try:
        if os.name == "nt":
            proc.terminate()
        else:
            proc.send_signal(signal.SIGINT)
        proc.wait(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    except BaseException:
        proc.kill()
        proc.wait()
        raise


def _error_message(stderr, command):
    """hinge's error message: from the last line that starts with the
    command's prefix ("hinge infer: ") to the end, without the prefix."""
    words = []
    for w in command[1:]:
        if w.startswith("-"):
            break
        words.append(w)
    lines = stderr.splitlines()
    for n in range(len(words), 0, -1):
        prefix = "hinge " + " ".join(words[:n]) + ": "
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].startswith(prefix):
                return "\n".join([lines[i][len(prefix):]] + lines[i + 1:]).strip()
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("hinge: "):
            return "\n".join([lines[i][len("hinge: "):]] + lines[i + 1:]).strip()
    tail = [l for l in lines if l.strip()][-20:]
    return "\n".join(tail) if tail else "(hinge printed no message)"


_FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*")


def relabel(text, labels):
    """Replaces the paths of files the package wrote by what they hold, and
    hinge's flags (keys starting with --, matched whole: --time is not
    --time-limit) by the keyword arguments that set them."""
    flags = {k: v for k, v in labels.items() if k.startswith("--")}
    paths = [(k, v) for k, v in labels.items() if not k.startswith("--")]
    for path, label in sorted(paths, key=lambda kv: -len(kv[0])):
        text = text.replace(path, label)
    if flags:
        text = _FLAG.sub(lambda m: flags.get(m.group(0), m.group(0)), text)
    return text


def keyword_labels(given, user_flags):
    """The labels (see relabel) of the flags a call set from its keyword
    arguments: given maps a flag to its keyword ('--seed': 'seed=') when
    the keyword was given. A flag the caller also wrote as a flag
    (user_flags: options, additional_cli_options) keeps its name."""
    written = {str(f).split("=", 1)[0] for f in user_flags}
    return {flag: kw for flag, kw in given.items() if flag not in written}


def load_json(path, labels):
    """A JSON file hinge wrote (a report, explanations), with the paths of
    the files the package wrote replaced by what they hold, as in errors."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return json.loads(relabel(text, {json.dumps(k)[1:-1]: v for k, v in labels.items()}))


_POS = re.compile(r"(<[^<>\n]+>):(\d+):(\d+)")


def run(args, logger=None, labels=None, describe=None, timeout=None):
    """Runs `hinge ARGS...` and returns its standard output and error.

    labels maps paths the package wrote to what they hold ("<rules>"); they
    are replaced in hinge's message. describe(label, line, message) may
    name what a labelled file's line holds (a rule, a row); it is added to
    the error as its hint.
    A non-zero exit raises HingeError (HingeInputError for status 2); a
    KeyboardInterrupt while hinge runs stops it (see the module doc) and is
    raised again once hinge has exited. timeout (seconds, None: none) stops
    hinge the same way once it has run that long and raises
    HingeTimeoutError.
    """
    if timeout is not None and not (float(timeout) > 0):
        raise ValueError("timeout %r: want a number of seconds > 0, or None" % (timeout,))
    binary = find_binary()
    command = [binary] + [str(a) for a in args]
    log = _resolve_logger(logger)
    kwargs = {}
    if os.name == "nt":
        kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
    else:
        kwargs["start_new_session"] = True
    # hinge stops, as Ctrl-C stops it, once this process has ended: a
    # Python killed by SIGTERM or SIGHUP (a scheduler, timeout, a notebook
    # restart) runs no cleanup, and hinge, in its own session, ran on.
    kwargs["env"] = dict(os.environ, HINGE_PARENT_PID=str(os.getpid()))
    if log is not None:
        log.debug("running %s", " ".join(shlex.quote(c) for c in command))
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        encoding="utf-8", errors="replace", **kwargs)
    if log is not None:
        log.debug("started hinge pid %d", proc.pid)
    out = _Reader(proc.stdout, (lambda line: log.info("%s", line)) if log is not None else None)
    # Logged lines name the package's files as errors do (<rules>, ...): a
    # temporary path would be gone by the time anyone reads it.
    err = _Reader(proc.stderr, (lambda line: _log_stderr(log, relabel(line, labels or {}))) if log is not None else None)
    out.start()
    err.start()
    try:
        status = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(proc)
        out.join()
        err.join()
        raise HingeTimeoutError("hinge ran past the timeout of %g s and was stopped (nothing written)" % float(timeout),
                                proc.returncode, command, relabel(err.text(), labels or {}))
    except BaseException:
        _stop(proc)
        out.join()
        err.join()
        raise
    out.join()
    err.join()
    stdout, stderr = out.text(), err.text()
    if status != 0:
        if status < 0:
            try:
                name = signal.Signals(-status).name
            except ValueError:
                name = "signal %d" % -status
            message = "hinge was killed by %s" % name
        else:
            message = _error_message(stderr, command)
        labels = labels or {}
        message = relabel(message, labels)
        hint = None
        if describe is not None:
            m = _POS.search(message)
            if m:
                hint = describe(m.group(1), int(m.group(2)), message)
        raise from_status(message, status, command, relabel(stderr, labels), hint)
    return stdout, stderr


def version():
    """The hinge binary's version line (`hinge --version`)."""
    stdout, _ = run(["--version"], logger=False)
    return stdout.strip()


@contextmanager
def workdir(prefix, temp_dir=None, cleanup=True, logger=None):
    """A fresh directory for one run's files: under temp_dir (created when
    missing) or the system's temporary directory; removed at the end unless
    cleanup is False (its path is then logged)."""
    if temp_dir is not None:
        os.makedirs(temp_dir, exist_ok=True)
    prefix = re.sub(r"[^\w.-]", "_", prefix)[:64] or "hinge"
    path = tempfile.mkdtemp(prefix=prefix + "-", dir=temp_dir)
    try:
        yield path
    finally:
        if cleanup:
            shutil.rmtree(path, ignore_errors=True)
        else:
            log = _resolve_logger(logger)
            if log is not None:
                log.info("hinge: the run's files are kept in %s", path)

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hinge-srl/hinge/config"
	"github.com/hinge-srl/hinge/internal/atomicfile"
	"github.com/hinge-srl/hinge/internal/textfile"
	"github.com/hinge-srl/hinge/pipeline"
)

// output is a path a command will write, named by its flag.
type output struct {
	flag, path string
	dir        bool // a directory of files (--output of infer)
}

// checkOutputs runs before any long work: each output must be writable
// where it is named (its parent directory exists and a file can be created
// there, as the temporary file of atomicfile.Write or the sibling
// directory and lock of atomicfile.WriteDir will be; a file is not a
// directory and a directory is not a file), a directory must be one that
// hinge may replace (atomicfile.CheckDir: nothing in it that hinge did not
// write), none may be one of the inputs, which a run would otherwise
// overwrite silently, and no two outputs may name one file (the last one
// written would win). Paths are compared as writing them resolves them
// (atomicfile.Resolve): a symlink by the file it names; a device, FIFO or
// descriptor (/dev/null, /dev/stdout) is written through, so it needs no
// directory to write in and may take two outputs.
func checkOutputs(inputs []string, outs ...output) error {
	type in struct {
		path string
		info os.FileInfo
	}
	var ins []in
	for _, p := range inputs {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil {
			ins = append(ins, in{p, st})
		}
	}
	type resolved struct {
		output
		t atomicfile.Target
	}
	var rs []resolved
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if o.path == "-" {
			return badInput(fmt.Errorf("%s -: hinge does not read - as standard output; give /dev/stdout for standard output, or ./- for a file named -", o.flag))
		}
		t, err := atomicfile.Resolve(o.path)
		if err != nil {
			return badInput(fmt.Errorf("%s %s: %w", o.flag, clipPath(o.path), err))
		}
		rs = append(rs, resolved{o, t})
	}
	// A directory output is replaced as a whole, so a file output inside
	// it would be lost with the old set, or be a file hinge did not write
	// there (and, inside the current directory when that is the output,
	// written into a directory no longer in place).
	for _, o := range rs {
		if o.dir || o.t.Through() {
			continue
		}
		for _, d := range rs {
			if rel, err := filepath.Rel(d.t.Path, o.t.Path); d.dir && d.flag != o.flag && err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return badInput(fmt.Errorf("%s %s is inside the directory of %s, which hinge replaces as a whole: write it elsewhere", o.flag, clipPath(o.path), d.flag))
			}
		}
	}
	for i, o := range rs {
		if !o.dir && strings.HasSuffix(o.path, string(filepath.Separator)) {
			// As the shell's > refuses it: hinge made a file "new" of
			// "new/", or replaced the file r.json given as "r.json/".
			return badInput(fmt.Errorf("%s %s ends in %c, which names a directory; give a file name", o.flag, clipPath(o.path), filepath.Separator))
		}
		if o.t.Through() {
			if o.dir {
				return badInput(fmt.Errorf("%s %s is not a directory", o.flag, clipPath(o.path)))
			}
			if err := atomicfile.CheckThrough(o.t); err != nil {
				return badInput(fmt.Errorf("%s %s: %w", o.flag, clipPath(o.path), err))
			}
			// Its content is kept in the temporary directory until the
			// run ends (atomicfile.File).
			if err := canCreate(os.TempDir()); err != nil {
				return badInput(fmt.Errorf("%s %s: hinge keeps an output to a device or standard output in the temporary directory %s until the run ends, and cannot write there (%w): set TMPDIR to a writable directory", o.flag, clipPath(o.path), clipPath(os.TempDir()), err))
			}
			continue
		}
		for _, d := range rs {
			if d.dir && !o.dir && o.t.Path == d.t.Path+".lock" {
				return badInput(fmt.Errorf("%s %s is the lock file of %s %s, which hinge takes and removes: write it elsewhere", o.flag, clipPath(o.path), d.flag, clipPath(d.path)))
			}
		}
		// The directory the file (or, for --output DIR, the sibling
		// directory and lock) is written in: where the path leads, but
		// named as given when no symlink changed it.
		parent, shown := filepath.Dir(o.t.Path), filepath.Dir(o.path)
		if abs, err := filepath.Abs(o.path); err != nil || abs != o.t.Path || o.dir {
			shown = parent
		}
		if st, err := os.Stat(parent); err != nil || !st.IsDir() {
			return badInput(fmt.Errorf("%s %s: directory %s does not exist", o.flag, clipPath(o.path), clipPath(shown)))
		}
		if err := canCreate(parent); err != nil {
			return badInput(fmt.Errorf("%s %s: cannot write in directory %s (%w)", o.flag, clipPath(o.path), clipPath(shown), err))
		}
		for _, p := range rs[:i] {
			// One flag's outputs too (an export and its side file: g.txt.atoms
			// a symlink to g.txt had the atoms replace the problem, exit 0);
			// an output listed twice as given is one output.
			if (p.flag != o.flag || p.path != o.path) && !p.t.Through() && sameFile(p.t, o.t) {
				return badInput(fmt.Errorf("%s %s and %s %s name the same file: give each output its own", p.flag, clipPath(p.path), o.flag, clipPath(o.path)))
			}
		}
		if !o.t.Exists {
			continue // to be created
		}
		switch {
		case o.t.Dir && !o.dir:
			return badInput(fmt.Errorf("%s %s is a directory; give a file name", o.flag, clipPath(o.path)))
		case !o.dir && atomicfile.IsMountPoint(o.t.Path):
			return badInput(fmt.Errorf("%s %s is a mount point (a bind-mounted file): hinge replaces an output by renaming, which a mount point does not allow; give another path", o.flag, clipPath(o.path)))
		case !o.t.Dir && o.dir:
			return badInput(fmt.Errorf("%s %s is a file; give a directory", o.flag, clipPath(o.path)))
		case o.dir:
			// The set replaced is deleted as a whole: an input in it (a
			// model, data file or earlier result the run reads, listed in
			// its marker) would be gone once the run ends, exit 0.
			for _, i := range ins {
				if inside(o.t.Path, i.path) {
					return badInput(fmt.Errorf("%s %s: the input file %s is inside it, and hinge replaces the directory as a whole, which would delete that file: give another output directory, or move the input out of it", o.flag, clipPath(o.path), clipPath(i.path)))
				}
			}
			if err := atomicfile.CheckDir(o.path); err != nil {
				return badInput(fmt.Errorf("%s: %w", o.flag, err))
			}
		default:
			if err := atomicfile.Writable(o.t.Path); err != nil {
				return badInput(fmt.Errorf("%s %s: %w", o.flag, clipPath(o.path), err))
			}
		}
		st, err := os.Stat(o.t.Path)
		if err != nil {
			continue
		}
		for _, i := range ins {
			if os.SameFile(st, i.info) {
				return badInput(fmt.Errorf("%s %s is the input file %s: refusing to overwrite it", o.flag, clipPath(o.path), clipPath(i.path)))
			}
		}
	}
	return nil
}

// inside reports whether the file input, its symlinks followed, lies in
// the directory dir (absolute, symlinks followed, as atomicfile.Resolve
// gives it).
func inside(dir, input string) bool {
	p, err := filepath.Abs(input)
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "."
}

// sameFile reports whether two resolved outputs are one file: one path,
// or two names (hard links) of one existing file.
func sameFile(a, b atomicfile.Target) bool {
	if a.Path == b.Path {
		return true
	}
	if !a.Exists || !b.Exists {
		return false
	}
	sa, err1 := os.Stat(a.Path)
	sb, err2 := os.Stat(b.Path)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// lockOutputDir takes the lock of an output directory (--output DIR,
// --psl-out DIR) for the whole run, once its outputs are checked: a second
// run writing the same directory is refused at its start, naming this
// one's process, instead of both running and the later silently replacing
// the earlier's set. unlock releases it; for no directory it does nothing.
func lockOutputDir(flag, dir string) (unlock func(), err error) {
	if dir == "" {
		return func() {}, nil
	}
	unlock, err = atomicfile.LockDir(dir)
	if err != nil {
		return nil, badInput(fmt.Errorf("%s: %w", flag, err))
	}
	return unlock, nil
}

// canCreate reports whether a file can be created in dir, by creating a
// probe file there and removing it: permissions, a read-only file system,
// or a directory such as /proc where even root cannot create files.
func canCreate(dir string) error {
	f, err := os.CreateTemp(dir, ".hinge-probe-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return pe.Err
		}
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// programInputs lists the files a loaded PSL program was read from: the
// rules, the .data or JSON config and every data file it names (a JSON
// config's in every partition, read or not).
func programInputs(f *programFlags, prog *pipeline.Program) []string {
	files := []string{f.model, f.data, f.config, prog.RulesFrom}
	switch {
	case f.config != "":
		files = append(files, config.JSONFiles(f.config)...) // every partition's
	case prog.Config != nil:
		for _, s := range prog.Config.Sources {
			files = append(files, s.File)
		}
	}
	return files
}

// configInputs lists the input files that a program's .data file or JSON
// config names, read without loading any data (cheap, unlike
// programFlags.load), so that an output naming one of them is refused as
// an input before anything else: the data file itself and every data file
// it lists.
func configInputs(f *programFlags) ([]string, error) {
	var cfg *config.Config
	var err error
	switch {
	case f.data != "":
		cfg, err = config.ReadData(f.data)
	case f.config != "":
		part := f.partition
		if part == "" {
			part = "infer"
		}
		cfg, err = config.ReadJSON(f.config, part)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, badInput(err)
	}
	files := []string{f.data, f.config}
	if f.config != "" {
		return append(files, config.JSONFiles(f.config)...), nil // every partition's
	}
	for _, s := range cfg.Sources {
		files = append(files, s.File)
	}
	return files, nil
}

// outputFiles lists the files infer --output DIR writes (one per open
// predicate), so that none of them may be an input either.
func outputFiles(dir string, prog *pipeline.Program) []output {
	if dir == "" {
		return nil
	}
	outs := []output{{flag: "--output", path: dir, dir: true}}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return outs // a new directory holds no input
	}
	for _, p := range prog.Model.Predicates {
		if !p.Closed {
			outs = append(outs, output{flag: "--output", path: filepath.Join(dir, pipeline.OutputName(p))})
		}
	}
	return outs
}

// clipPath shortens a path echoed in a message.
func clipPath(p string) string { return textfile.Clip(p) }

// learnedPath is a learning command's default output: input with its
// extension replaced by "-learned"+ext (M.psl -> M-learned.psl). An input
// that is not a regular file (/dev/stdin, a pipe, a device) has no such
// place beside it (/dev/stdin-learned.psl would be a file in /dev): flag,
// the output's, must be given then.
func learnedPath(input, ext, flag string) (string, error) {
	if st, err := os.Stat(input); err == nil && !st.Mode().IsRegular() {
		return "", badInput(fmt.Errorf("%s is not a regular file (a pipe or a device), so the learned model has no default place beside it: give %s", clipPath(input), flag))
	}
	return strings.TrimSuffix(input, filepath.Ext(input)) + "-learned" + ext, nil
}

// learnedOutput is the file a learning command writes: given, else
// learnedPath(input, ext), refused when it is the input model itself or
// one of the other inputs (the training databases), --force or not, and
// then when it exists (see refuseExisting).
func learnedOutput(given, input, ext, flag string, force bool, others ...string) (string, error) {
	out := given
	if out == "" {
		var err error
		if out, err = learnedPath(input, ext, flag); err != nil {
			return "", err
		}
	}
	if err := checkOutputs(append([]string{input}, others...), output{flag: flag, path: out}); err != nil {
		return out, err
	}
	return out, refuseExisting(out, flag, force)
}

// refuseExisting refuses to replace an existing learned model unless
// force, naming the output flag (a device or standard output replaces
// nothing and is written through). Callers refuse an output that is one of
// the inputs first (checkOutputs), which --force does not change, so that
// the suggestion to give --force is only made where it helps.
func refuseExisting(path, flag string, force bool) error {
	if t, err := atomicfile.Resolve(path); err == nil && t.Through() {
		return nil // a device, FIFO or standard output: written through, nothing replaced
	}
	if _, err := os.Stat(path); err == nil && !force {
		return badInput(fmt.Errorf("%s exists (an earlier learned model?): give another %s, or --force to overwrite it", clipPath(path), flag))
	}
	return nil
}

// writeLearned writes a learned model to path. Without force it never
// replaces a file (atomicfile.WriteNew): refuseExisting found none at the
// start, and one that appeared while the run learned (a second run's
// model, written meanwhile) is left as it is, the run failing with the
// place of its own result; with force an existing file is replaced.
func writeLearned(path string, force bool, fill func(io.Writer) error) error {
	if testHookBeforeLearnedWrite != nil {
		testHookBeforeLearnedWrite(path)
	}
	if force {
		return atomicfile.Write(path, fill)
	}
	return atomicfile.WriteNew(path, fill)
}

// testHookBeforeLearnedWrite, when set (by tests), is called with the
// path of a learned model just before it is written: what another run
// does while this one learns.
var testHookBeforeLearnedWrite func(path string)

// toStdout reports whether one of paths names this process's standard
// output (/dev/stdout, /dev/fd/1, a symlink to one of them): a command
// writing an output there says everything else on standard error, so
// that the output stays whole for the program reading it.
func toStdout(paths ...string) bool { return toFD(1, paths...) }

// toStderr reports whether one of paths names this process's standard
// error (/dev/stderr, /dev/fd/2, a symlink to one of them).
func toStderr(paths ...string) bool { return toFD(2, paths...) }

// toFD reports whether one of paths names this process's descriptor fd.
func toFD(fd int, paths ...string) bool {
	for _, p := range paths {
		if p == "" {
			continue
		}
		if t, err := atomicfile.Resolve(p); err == nil && t.FD == fd {
			return true
		}
	}
	return false
}

// routeMessages returns where a command that writes its outputs to paths
// prints everything else it says: out for its summary lines (what it
// prints on standard output when no output is there) and msgs for its
// messages (progress, notes and warnings, printed on standard error), so
// that an output written to either stream stays whole for the program
// reading it:
//
//   - an output on standard output (toStdout): the summary lines go with
//     the messages, to standard error;
//   - an output on standard error (toStderr): the messages go to standard
//     output, with the summary lines;
//   - outputs on both, or one on standard error while the command prints
//     an output of its own on standard output (stdoutHeld: mln infer's
//     result without -r): the messages and summary lines are dropped.
//
// The error that ends a failing run is never dropped. When an output is on
// standard error and standard output is free, main prints it on standard
// output with the messages (ctx records that, see withRoute), so that a
// run writing its report to 2>report.json shows its error where the user
// looks and the report stays whole even when a run fails after writing it
// (maxsat's UNSATISFIABLE, with its report). Otherwise it is printed on
// standard error, as always: a failed run writes none of its outputs
// (atomicfile.Batch), so there it stands alone, save for a run that fails
// after its outputs are complete while standard output holds one too,
// whose error then follows the output on standard error.
func routeMessages(ctx context.Context, stdout, stderr io.Writer, stdoutHeld bool, paths ...string) (out, msgs io.Writer) {
	onOut, onErr := toStdout(paths...), toStderr(paths...)
	switch {
	case onErr && (onOut || stdoutHeld):
		msgs = io.Discard
		if r := routeOf(ctx); r != nil {
			r.errors = nil // standard error, after the output
		}
	case onErr:
		msgs = stdout
		if r := routeOf(ctx); r != nil {
			r.errors = stdout
		}
	default:
		msgs = stderr
	}
	out = stdout
	if onOut {
		out = msgs
	}
	if r := routeOf(ctx); r != nil {
		for _, n := range r.notes {
			fmt.Fprintln(msgs, n)
		}
		r.notes = nil
	}
	return out, msgs
}

// messageRoute is where main prints the error of a failing run: errors,
// when a command set it (routeMessages), else standard error; and the
// notes main has for the run (PSL's -D keys it ignores), which
// routeMessages prints with the command's messages, so that they stay off
// an output on standard error (main prints those a command never routed
// on standard error).
type messageRoute struct {
	errors io.Writer
	notes  []string
}

type routeKey struct{}

// withRoute returns ctx carrying r, for routeMessages to fill in.
func withRoute(ctx context.Context, r *messageRoute) context.Context {
	return context.WithValue(ctx, routeKey{}, r)
}

// routeOf is the messageRoute ctx carries, or nil (a nil ctx too).
func routeOf(ctx context.Context) *messageRoute {
	if ctx == nil {
		return nil
	}
	r, _ := ctx.Value(routeKey{}).(*messageRoute)
	return r
}

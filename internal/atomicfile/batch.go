package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
)

// A Batch holds the outputs of one run until the run ends, so that they
// are put in place together or not at all. While a batch is active
// (Begin), File.Commit and Write finish their temporary files (every byte
// written, flushed and synced: a full disk or a file size limit fails
// them then, inside the run) but leave them aside, WriteDir prepares its
// new set beside the directory, and the locks of LockDir and WriteDir
// are held on; End then puts every output in place, or, when one of them
// failed or was aborted (a write that failed, a cancelled run), removes
// every one and leaves each path as it was. Without a batch each output
// is put in place as soon as it is committed, and a run that failed
// part-way had replaced the outputs written before the failure. The batch
// fails when an output does (or the caller says so, Fail); a run that
// ends with an error of its own after its outputs are complete (maxsat's
// 's UNSATISFIABLE', with its report) keeps them. A File belongs to the
// batch active when it was created. One batch is active at a time in a
// process, and the writes that go directly (WriteNow, a WriteDir fill)
// are counted process-wide: outputs are written by one command at a time.
type Batch struct {
	mu     sync.Mutex
	failed bool
	ended  bool // End has run: what comes later is refused
	// through, commits and files are the staged outputs, in the order
	// they are put in place: written through a device, committed (a
	// database table: Stage), renamed into place; after runs once they
	// are settled (lock releases).
	through, commits, files []staged
	after                   []func()
}

// stageKind says where an output goes in a batch's order.
type stageKind int

const (
	stageThrough stageKind = iota
	stageCommit
	stageFile
)

// staged is an output ready to be put in place, or removed.
type staged struct {
	place func() error
	drop  func()
}

var active atomic.Pointer[Batch]

// direct counts the writes under way that must not wait for the batch
// (WriteNow, and the files WriteDir's fill writes into its new set, which
// must be there when the set is listed).
var direct atomic.Int32

// Begin starts a batch for this process's outputs; the caller ends it
// with End. Only one batch is active at a time (one command runs at a
// time in a process).
func Begin() *Batch {
	b := &Batch{}
	active.Store(b)
	return b
}

// errPlaceInterrupted is End's error when the run was interrupted while
// waiting for another run to put its files in place: none of its files is
// put in place.
var errPlaceInterrupted = errors.New("interrupted while waiting for another hinge run to put its files in place: this run's files were not written")

// current is the active batch, nil when none or while writes go directly.
func current() *Batch {
	if direct.Load() > 0 {
		return nil
	}
	return active.Load()
}

// WriteNow is Write putting the file in place at once even while a batch
// is active: for a file the run reads back (a cache), not an output.
func WriteNow(path string, fill func(w io.Writer) error) error {
	direct.Add(1)
	defer direct.Add(-1)
	return Write(path, fill)
}

// Stage adds an output that is not a file (a database table) to the
// active batch: place puts it in place after the outputs written through
// devices (a full device stops it) and before the files are renamed
// (outside the placement lock, and where its failure still stops the
// renames), and drop gives it up when the run fails. Without a batch,
// place runs at once. name names it in messages.
func Stage(name string, place func() error, drop func()) error {
	if b := current(); b != nil {
		return b.stage(stageCommit, place, drop, name)
	}
	return place()
}

// batchKey is the context key of WithBatch.
type batchKey struct{}

// WithBatch returns ctx carrying b, the batch of the run ctx belongs to
// (for AfterEnd: runs in one process, as in tests, each find their own).
func WithBatch(ctx context.Context, b *Batch) context.Context {
	return context.WithValue(ctx, batchKey{}, b)
}

// AfterEnd runs f once the batch of ctx's run (WithBatch) has ended, its
// outputs put in place or dropped, or at once when ctx carries none: for a
// lock that must cover the outputs' placing too, such as the PostgreSQL
// schema lock under a table the batch commits.
func AfterEnd(ctx context.Context, f func()) {
	if b, _ := ctx.Value(batchKey{}).(*Batch); b != nil {
		b.later(f)
		return
	}
	f()
}

// FailActive marks the active batch failed, if there is one: for a run
// that learns after writing its outputs that they cannot be trusted (the
// PostgreSQL lock it held was lost).
func FailActive() {
	if b := active.Load(); b != nil {
		b.Fail()
	}
}

// Fail marks the batch failed (an output that failed, a cancelled run):
// End removes its outputs.
func (b *Batch) Fail() {
	b.mu.Lock()
	b.failed = true
	b.mu.Unlock()
}

// stage adds an output (name for messages); through ones (a device,
// FIFO or descriptor) are put in place first, where a failure (a full
// device, a closed pipe) can still stop the renames. After End the output
// is dropped and an error returned: the run's outputs are settled.
func (b *Batch) stage(kind stageKind, place func() error, drop func(), name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		drop()
		return fmt.Errorf("writing %s: the run's outputs were already put in place (or given up)", name)
	}
	switch kind {
	case stageThrough:
		b.through = append(b.through, staged{place, drop})
	case stageCommit:
		b.commits = append(b.commits, staged{place, drop})
	default:
		b.files = append(b.files, staged{place, drop})
	}
	return nil
}

// later runs f once the batch has ended (at once when it has).
func (b *Batch) later(f func()) {
	b.mu.Lock()
	if b.ended {
		b.mu.Unlock()
		f()
		return
	}
	b.after = append(b.after, f)
	b.mu.Unlock()
}

// End ends the batch: every output is put in place, through outputs
// first, the files then under the placement lock (placeLock: two runs
// writing the same files leave one run's whole set), or, when the batch
// failed, none is and each is removed (dropped
// counts them). An error putting an output in place stops the rest (which
// are removed) and is returned, naming it. The locks held for the batch
// are released.
func (b *Batch) End() (dropped int, err error) {
	active.CompareAndSwap(b, nil)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ended = true
	defer func() {
		for _, f := range b.after {
			f()
		}
		b.after = nil
	}()
	all := slices.Concat(b.through, b.commits, b.files)
	renames := len(b.through) + len(b.commits) // where the renames start
	b.through, b.commits, b.files = nil, nil, nil
	unlock := func() {}
	defer func() { unlock() }()
	for i, s := range all {
		if b.failed {
			s.drop()
			dropped++
			continue
		}
		if i == renames {
			// The renames under the placement lock; not the writes through
			// devices before them, which may wait for a FIFO's reader.
			if unlock, err = placeLock(); err != nil {
				unlock = func() {}
				for _, r := range all[i:] {
					r.drop()
				}
				return len(all) - i, err
			}
		}
		if err = s.place(); err != nil {
			for _, r := range all[i+1:] {
				r.drop()
			}
			if i > 0 {
				err = fmt.Errorf("%w (%d output(s) put in place before it are kept)", err, i)
			}
			return len(all) - i, err
		}
	}
	return dropped, nil
}

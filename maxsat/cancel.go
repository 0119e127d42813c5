package maxsat

import "context"

// pollEvery is how many units of work (literal visits, mostly) a long pass
// over the clauses does between looks at its context: a few tens of
// microseconds of work, so that a cancelled run stops within milliseconds
// of its context being done, for one ctx.Err call per pollEvery units.
const pollEvery = 1 << 14

// poll counts the work of a pass and looks at ctx every pollEvery units.
// The first call to add looks at once, so that a pass started under a
// context already done does no work.
type poll struct {
	ctx  context.Context
	work int
}

func newPoll(ctx context.Context) poll { return poll{ctx: ctx, work: pollEvery} }

// add counts n units of work and, when pollEvery units have been done since
// the last look, returns ctx.Err().
func (p *poll) add(n int) error {
	p.work += n
	if p.work < pollEvery {
		return nil
	}
	p.work = 0
	return p.ctx.Err()
}

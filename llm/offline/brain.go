package offline

import (
	"context"
	"strings"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk"
	"github.com/switchboard/switchboard/kb/words"
)

// Names is what the offline Brain reads of the knowledge graph: the index
// of its entity names and labels, which the graph stores keep
// (sqlite.GraphStore and neo4j.Graph build it once per graph version). It
// lets the router send "Who makes Chai?" to the graph because Chai is a
// known product, and lets the grader and generator recognise the entities
// a question names.
//
// EntityIndex may be called from several goroutines at once (the agent
// grades documents concurrently). An error is not fatal: the Brain then
// decides from the words alone.
type Names interface {
	EntityIndex(ctx context.Context) (*graphwalk.Index, error)
}

// Brain is the offline agent.Brain. It holds no mutable state, so one Brain
// may serve many runs at once.
type Brain struct {
	names Names // may be nil
}

var _ agent.Brain = (*Brain)(nil)

// New returns an offline Brain. names may be nil, in which case graph
// questions are recognised from their wording alone.
func New(names Names) *Brain {
	return &Brain{names: names}
}

// index returns the graph's entity index, or nil when there is no graph
// or it cannot be read. Its failures are swallowed, because entities only
// sharpen a decision the words can make alone; only the cancellation of
// ctx is returned. A nil *graphwalk.Index matches nothing.
func (b *Brain) index(ctx context.Context) (*graphwalk.Index, error) {
	if b == nil || b.names == nil {
		return nil, nil
	}
	idx, err := b.names.EntityIndex(ctx)
	if err != nil {
		return nil, ctx.Err()
	}
	return idx, nil
}

// GraphEmpty reports whether the knowledge graph is known to hold nothing
// (agent.GraphKeeper); without an entity index it is not known.
func (b *Brain) GraphEmpty(ctx context.Context) bool {
	if b == nil || b.names == nil {
		return false
	}
	idx, err := b.index(ctx)
	return err == nil && idx.Empty()
}

// entities returns the graph entities text names (mentioned).
func (b *Brain) entities(ctx context.Context, text string) ([]*graphwalk.Entity, error) {
	idx, err := b.index(ctx)
	if err != nil || idx == nil {
		return nil, err
	}
	text = clip(text, maxQuestion)
	return mentioned(text, words.Tokens(text), idx), nil
}

// nameIn returns the name of the first of ents that text contains, or "".
func nameIn(text string, ents []*graphwalk.Entity) string {
	lower := strings.ToLower(text)
	for _, e := range ents {
		if strings.Contains(lower, strings.ToLower(e.Name)) {
			return e.Name
		}
	}
	return ""
}

package offline

import (
	"context"
	"strings"

	"github.com/switchboard/switchboard/agent"
)

// EntityMatcher finds the knowledge-graph entities a text mentions. The
// graph stores implement it; it lets the router send "Who supplies Acme
// Corp?" to the graph because Acme Corp is a known entity.
//
// MatchEntities returns the names of the entities mentioned in text, as the
// graph spells them. It may be called from several goroutines at once (the
// agent grades documents concurrently). An error is not fatal: the Brain
// then decides from the words alone.
type EntityMatcher interface {
	MatchEntities(ctx context.Context, text string) ([]string, error)
}

// Brain is the offline agent.Brain. It holds no mutable state, so one Brain
// may serve many runs at once.
type Brain struct {
	entities EntityMatcher // may be nil
}

var _ agent.Brain = (*Brain)(nil)

// New returns an offline Brain. entities may be nil, in which case graph
// questions are recognised from their wording alone.
func New(entities EntityMatcher) *Brain {
	return &Brain{entities: entities}
}

// matchEntities asks the EntityMatcher, if any, which entities text
// mentions. Its failures are swallowed, because entities only sharpen a
// decision the words can make alone; only the cancellation of ctx is
// returned. Names are trimmed, de-duplicated and capped.
func (b *Brain) matchEntities(ctx context.Context, text string) ([]string, error) {
	if b == nil || b.entities == nil {
		return nil, nil
	}
	names, err := b.entities.MatchEntities(ctx, clip(text, maxQuestion))
	if err != nil {
		return nil, ctx.Err()
	}
	var out []string
	seen := make(map[string]bool)
	for _, n := range names {
		if len(out) >= maxEntities {
			break
		}
		n = strings.TrimSpace(clip(n, 200))
		if n == "" || seen[strings.ToLower(n)] {
			continue
		}
		seen[strings.ToLower(n)] = true
		out = append(out, n)
	}
	return out, nil
}

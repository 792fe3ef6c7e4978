package graphwalk

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Bounds of the path search: "Which suppliers are connected to our top 3
// customers?" is answered by paths Customer → Product ← Supplier, which are
// two hops; three allows one intermediate more without exploding.
const (
	maxPathHops  = 3
	maxPaths     = 30
	pathFrontier = 200 // partial paths kept per hop
)

// writeConnections adds, for each label the question names other than the
// starts' own ("suppliers" in "suppliers connected to our top customers"),
// the paths from the starts to entities of that label, listed first
// because they answer the question directly.
func (w Walker) writeConnections(ctx context.Context, b *strings.Builder, idx *Index, starts []Node, qtoks []string, own string) error {
	labels, _ := labelWords(qtoks, idx)
	for _, l := range labels {
		if strings.EqualFold(l, own) {
			continue
		}
		lines, err := w.connections(ctx, starts, l)
		if err != nil {
			return err
		}
		if len(lines) == 0 {
			fmt.Fprintf(b, "\nNo %s entity is connected to these within %d hops.\n", l, maxPathHops)
			continue
		}
		fmt.Fprintf(b, "\nConnections to %s entities:\n", l)
		for _, line := range lines {
			b.WriteString(line + "\n")
		}
	}
	return nil
}

// step is one edge of a path, in the direction it was walked.
type step struct {
	f       Fact
	forward bool // walked from f.Src to f.Dst
}

// connections finds up to maxPaths shortest paths from starts to nodes
// labelled target, breadth first, and renders them as lines such as
// "Halvorsen Freight (Customer) -[BUYS]-> ColdChain Probe (Product) <-[SUPPLIES]- Kestrel (Supplier)".
// Each hop reads the edges of the distinct nodes the frontier stands on
// with one Store.EdgesOf.
func (w Walker) connections(ctx context.Context, starts []Node, target string) ([]string, error) {
	// A partial path is its last step and a pointer to the path before it,
	// so that extending one copies neither its steps nor its nodes: a hop
	// extends up to pathFrontier paths by nodeFanout edges each.
	type partial struct {
		origin string // id of the start node
		at     Node
		last   step     // the edge that reached at; none for a start
		prev   *partial // nil for a start
	}
	// on reports whether the path p passes through node id.
	on := func(p *partial, id string) bool {
		for ; p != nil; p = p.prev {
			if p.at.ID == id {
				return true
			}
		}
		return false
	}
	// steps returns the path p extended by s, first step first.
	steps := func(p *partial, s step) []step {
		out := []step{s}
		for ; p.prev != nil; p = p.prev {
			out = append(out, p.last)
		}
		slices.Reverse(out)
		return out
	}
	var frontier []*partial
	for _, n := range starts {
		frontier = append(frontier, &partial{origin: n.ID, at: n})
	}
	var lines []string
	found := map[string]bool{} // start+end pairs already connected by a shorter path
	for hop := 1; hop <= maxPathHops && len(frontier) > 0 && len(lines) < maxPaths; hop++ {
		pos := map[string]int{}
		var ids []string
		for _, p := range frontier {
			if _, ok := pos[p.at.ID]; !ok {
				pos[p.at.ID] = len(ids)
				ids = append(ids, p.at.ID)
			}
		}
		edges, err := w.Store.EdgesOf(ctx, ids, nodeFanout)
		if err != nil {
			return nil, fmt.Errorf("paths, hop %d: %w", hop, err)
		}
		var next []*partial
		for _, p := range frontier {
			for _, f := range edges[pos[p.at.ID]] {
				fwd := f.Src.ID == p.at.ID
				other := f.Dst
				if !fwd {
					other = f.Src
				}
				if on(p, other.ID) {
					continue
				}
				if strings.EqualFold(other.Label, target) {
					key := p.origin + "\x00" + other.ID
					if !found[key] && len(lines) < maxPaths {
						found[key] = true
						lines = append(lines, renderPath(steps(p, step{f, fwd})))
					}
					continue
				}
				if len(next) < pathFrontier {
					next = append(next, &partial{origin: p.origin, at: other, last: step{f, fwd}, prev: p})
				}
			}
		}
		frontier = next
	}
	return lines, nil
}

// renderPath writes a path with arrows in the direction of each edge.
func renderPath(steps []step) string {
	var b strings.Builder
	for i, s := range steps {
		from, to := s.f.Src, s.f.Dst
		if !s.forward {
			from, to = s.f.Dst, s.f.Src
		}
		if i == 0 {
			b.WriteString(from.Ref())
		}
		if s.forward {
			b.WriteString(" -[" + s.f.Type + "]-> ")
		} else {
			b.WriteString(" <-[" + s.f.Type + "]- ")
		}
		b.WriteString(to.Ref())
	}
	return b.String()
}

package agent

import (
	"context"
	"fmt"
)

// Router is the port of the route node.
type Router interface {
	// Route decides where the answer to question (the standalone
	// question) lives, and says why in a short phrase shown to the user
	// ("asks who supplies whom").
	//
	// The route must be one of the four (Route.Valid): any other is
	// taken as the Brain's failure. The router only proposes: a retrieval
	// route with nothing relevant can still be rewritten onto another
	// route (Rewriter).
	Route(ctx context.Context, question string) (RouteDecision, error)
}

// RouteDecision is the router's choice and its reason.
type RouteDecision struct {
	Route  Route  `json:"route"`
	Reason string `json:"reason"`
}

// EvidentRouter is implemented by an offline Brain whose rules can decide
// some routes from the question's words alone: a calculation that parses,
// a name of the knowledge graph with a relation, a question bound to now.
// Such evidence is taken before a model is asked: a small model's router
// sends arithmetic and current events to the documents as readily as
// anything else, and asking it costs a call.
type EvidentRouter interface {
	EvidentRoute(ctx context.Context, question string) (RouteDecision, bool, error)
}

// GraphKeeper is implemented by an offline Brain that knows whether the
// knowledge graph holds anything. A model's router does not: asked about
// documents with no graph behind them, a small model sent one question in
// ten to the graph.
type GraphKeeper interface {
	GraphEmpty(ctx context.Context) bool
}

// route decides where the answer lives; the route's edges (graph.go)
// lead to the node that serves it. The documents are searched meanwhile
// (ahead.go), a step the loop starts alongside this one. Evidence the
// offline engine finds plain (EvidentRouter) decides before the model.
func (r *run) route(ctx context.Context, s *State, p port[Router]) error {
	var d RouteDecision
	evident := false
	if ev, ok := p.offline.(EvidentRouter); ok {
		var err error
		d, evident, err = ev.EvidentRoute(ctx, s.Standalone)
		evident = evident && err == nil // on an error, the router decides
	}
	if !evident {
		err := p.ask(r, ctx, s, func(rt Router) (err error) {
			d, err = rt.Route(ctx, s.Standalone)
			if err == nil && !d.Route.Valid() {
				err = fmt.Errorf("router chose unknown route %q", d.Route)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	if g, ok := p.offline.(GraphKeeper); ok && d.Route == RouteGraph && g.GraphEmpty(ctx) {
		// The graph has nothing to answer from: the offline router
		// decides among the other routes.
		if od, err := p.offline.Route(ctx, s.Standalone); err == nil && od.Route != RouteGraph {
			d = od
		}
	}
	if d.Route == RouteGraph && r.retrievers[RouteGraph] == nil {
		// No graph to search here (the channel's sources leave it out):
		// the documents are searched instead, and a rewrite may go on.
		d.Route = RouteVector
	}
	s.Route, s.RouteReason = d.Route, d.Reason
	r.emit(Event{Kind: EventRouted, Step: StepRoute, Route: d.Route, Reason: d.Reason})
	return nil
}

package agent

import (
	"context"
	"fmt"
)

// route decides where the answer lives.
func (r *run) route(ctx context.Context, s *State) (Step, error) {
	var d RouteDecision
	err := r.think(ctx, s, func(b Brain) (err error) {
		d, err = b.Route(ctx, s.Standalone)
		if err == nil && !d.Route.Valid() {
			err = fmt.Errorf("router chose unknown route %q", d.Route)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	s.Route, s.RouteReason = d.Route, d.Reason
	r.emit(Event{Kind: EventRouted, Step: StepRoute, Route: d.Route, Reason: d.Reason})
	return retrievalStep(d.Route), nil
}

// retrievalStep maps a route to the node that serves it.
func retrievalStep(route Route) Step {
	switch route {
	case RouteGraph:
		return StepGraph
	case RouteWeb:
		return StepWeb
	case RouteDirect:
		return StepDirect
	default:
		return StepVector
	}
}

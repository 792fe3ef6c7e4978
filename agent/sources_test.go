package agent_test

import (
	"context"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/channels"
)

// A channel whose sources leave out the graph and the web (issue 26) is
// answered from its documents: the graph the router chose is not
// searched, and the web is treated as not configured, so the run ends in
// no answer rather than a web fallback.
func TestSourcesLeaveOutTheGraphAndTheWeb(t *testing.T) {
	graph, web := returns(), returns(webDoc)
	h := setup(t, returns(refundDoc), graph, web)
	h.model.RouteFunc = routes(agent.RouteGraph, "asks who supplies what")
	h.model.GradeFunc = grades(irrelevant)
	h.model.RewriteFunc = rewrites(nil, onVector("refund window"), onVector("refund days"), onVector("refund policy"))
	scope := agent.Scope{Workspace: "T1", Channel: "C1", Sources: []string{"docs/"}}

	res, err := h.agent.Ask(context.Background(), agent.Question{Text: "Who supplies refunds?", Scope: scope}, func(agent.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(graph.queries) != 0 || len(web.queries) != 0 {
		t.Errorf("searched the graph %d times and the web %d times, which the channel leaves out", len(graph.queries), len(web.queries))
	}
	if len(h.vector.queries) == 0 || res.Route != agent.RouteVector || res.Outcome != agent.OutcomeNotFound {
		t.Errorf("route %s, outcome %q, %d document searches; want the documents searched and no answer", res.Route, res.Outcome, len(h.vector.queries))
	}

	// With the graph and the web among its sources, both are searched.
	scope.Sources = append(scope.Sources, channels.SourceGraph, channels.SourceWeb)
	if _, err := h.agent.Ask(context.Background(), agent.Question{Text: "Who supplies refunds?", Scope: scope}, func(agent.Event) {}); err != nil {
		t.Fatal(err)
	}
	if len(graph.queries) == 0 || len(web.queries) == 0 {
		t.Errorf("searched the graph %d times and the web %d times, which the channel allows", len(graph.queries), len(web.queries))
	}
}

// The routes the agent leaves out by name are the names channels uses.
func TestRouteNamesAreSourceNames(t *testing.T) {
	if string(agent.RouteGraph) != channels.SourceGraph || string(agent.RouteWeb) != channels.SourceWeb {
		t.Errorf("routes %q, %q; sources %q, %q", agent.RouteGraph, agent.RouteWeb, channels.SourceGraph, channels.SourceWeb)
	}
}

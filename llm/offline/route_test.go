package offline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/graphwalk"
)

// fakeNames is a Names over a fixed index, or one that fails with err.
type fakeNames struct {
	idx *graphwalk.Index
	err error
}

var _ Names = (*fakeNames)(nil)

func (f *fakeNames) EntityIndex(ctx context.Context) (*graphwalk.Index, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.idx, nil
}

// namesOf indexes entities written "Label:Name" (or just "Name"), in a
// graph whose relationship types and property keys are the words of schema.
func namesOf(schema string, entities ...string) *fakeNames {
	var entries []graphwalk.Entry
	for i, e := range entities {
		label, name, ok := strings.Cut(e, ":")
		if !ok {
			label, name = "Thing", e
		}
		entries = append(entries, graphwalk.Entry{ID: fmt.Sprintf("n%d", i), Name: name, Labels: []string{label}})
	}
	return &fakeNames{idx: graphwalk.NewIndex(entries, strings.Fields(schema)...)}
}

func testBrain() *Brain {
	return New(namesOf("SUPPLIES BUYS DEPENDS_ON REPORTS_TO revenue",
		"Customer:Acme Corp", "Customer:Globex", "Customer:Initech", "System:billing service", "Supplier:Hooli", "Employee:Maria"))
}

func TestRoute(t *testing.T) {
	tests := []struct {
		question string
		route    agent.Route
		reason   string // substring of the reason, if set
	}{
		// Arithmetic goes to the calculator.
		{"What is 15% of 340?", agent.RouteDirect, "arithmetic"},
		{"12 * (3+4)", agent.RouteDirect, "arithmetic"},
		{"what's 2^10", agent.RouteDirect, "arithmetic"},
		{"sqrt 144", agent.RouteDirect, "arithmetic"},
		{"What is the square root of 144?", agent.RouteDirect, "arithmetic"},
		{"calculate 1,200 divided by 4", agent.RouteDirect, "arithmetic"},
		{"What is 5/0?", agent.RouteDirect, "arithmetic"},
		// Small talk is answered directly.
		{"hi", agent.RouteDirect, "greeting"},
		{"Good morning!", agent.RouteDirect, "greeting"},
		{"Who are you?", agent.RouteDirect, "Switchboard"},
		{"help", agent.RouteDirect, "Switchboard"},
		{"help with refunds", agent.RouteVector, ""},
		// Current events go to the web.
		{"What did the Fed announce this morning?", agent.RouteWeb, "current events"},
		{"What's the weather in Berlin today?", agent.RouteWeb, "current events"},
		{"What is the current price of bitcoin?", agent.RouteWeb, "current events"},
		{"Latest news about OpenAI", agent.RouteWeb, "current events"},
		{"How is the Apple stock doing today?", agent.RouteWeb, "current events"},
		// A news word in a question about our own rules is not news.
		{"The snow closed my office: is there weather leave for me?", agent.RouteVector, ""},
		// Relations go to the graph.
		{"Which suppliers are connected to our top 3 customers?", agent.RouteGraph, "suppliers relate to customers"},
		{"Who supplies Acme Corp?", agent.RouteGraph, "Acme Corp"},
		{"How are Acme Corp and Globex related?", agent.RouteGraph, "Acme Corp and Globex"},
		{"What depends on the billing service?", agent.RouteGraph, "billing service"},
		{"Who are our suppliers?", agent.RouteGraph, "suppliers"},
		{"List our top five customers", agent.RouteGraph, "customers"},
		{"Who does Maria report to?", agent.RouteGraph, ""},
		{"Which vendors does Initech buy from?", agent.RouteGraph, "Initech"},
		{"Who supplies Acme Corp now?", agent.RouteGraph, "Acme Corp"}, // graph before weak time words
		// General knowledge with no sign of the company goes direct.
		{"Who wrote Pride and Prejudice?", agent.RouteDirect, "general-knowledge"},
		{"What is the capital of France?", agent.RouteDirect, "general-knowledge"},
		{"How far is the moon?", agent.RouteDirect, "general-knowledge"},
		{"Who invented the telephone?", agent.RouteDirect, "general-knowledge"},
		{"What year did the Berlin Wall fall?", agent.RouteDirect, "general-knowledge"},
		{"How tall is the Eiffel Tower?", agent.RouteDirect, "general-knowledge"},
		// …but any company, entity or current-events cue keeps it out.
		{"Who wrote our refund policy?", agent.RouteVector, ""},
		{"Who wrote the employee handbook?", agent.RouteVector, ""},
		{"How big is the team?", agent.RouteVector, ""},
		{"How far is the office from the station?", agent.RouteVector, ""},
		{"What year did we move to the new process?", agent.RouteVector, ""},
		{"Who invented the billing service?", agent.RouteVector, ""},
		{"Who wrote the latest article on inflation?", agent.RouteWeb, ""},
		{"What does SLA mean?", agent.RouteVector, ""},
		{"What does P1 mean?", agent.RouteVector, ""},
		{"Define RTO", agent.RouteVector, ""},
		{"What is the name of Brightline's CEO?", agent.RouteVector, ""},
		// Everything else is in the documents.
		{"What is our refund policy?", agent.RouteVector, "internal documents"},
		{"How many vacation days do employees get?", agent.RouteVector, "internal documents"},
		{"What is our data retention policy for EU customers?", agent.RouteVector, ""},
		{"Which customers are eligible for refunds?", agent.RouteVector, ""},
		{"What is Acme Corp's refund policy?", agent.RouteVector, ""},
		{"What's the latest version of our security policy?", agent.RouteVector, ""},
		{"How do I reset my VPN password?", agent.RouteVector, ""},
		{"What is 2024 revenue?", agent.RouteVector, ""},
		{"Can I use my own laptop?", agent.RouteVector, ""},
		{"", agent.RouteVector, ""},
	}
	b := testBrain()
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			got, err := b.Route(context.Background(), tt.question)
			if err != nil {
				t.Fatal(err)
			}
			if got.Route != tt.route || !strings.Contains(got.Reason, tt.reason) {
				t.Errorf("Route(%q) = %s %q, want %s with reason containing %q", tt.question, got.Route, got.Reason, tt.route, tt.reason)
			}
			if got.Reason == "" {
				t.Error("empty reason")
			}
		})
	}
}

func TestRouteWithoutEntities(t *testing.T) {
	// Without a graph, or with one that cannot be read, nothing says a
	// question is about it: its words alone are no evidence.
	for _, b := range []*Brain{New(nil), New(&fakeNames{err: errors.New("graph down")})} {
		for _, q := range []string{"Which suppliers are connected to our top 3 customers?", "Who supplies Chai?", "Which products have been discontinued?"} {
			got, err := b.Route(context.Background(), q)
			if err != nil || got.Route != agent.RouteVector {
				t.Errorf("Route(%q) = %v, %v; want vector", q, got, err)
			}
		}
	}
}

func TestRouteCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := testBrain().Route(ctx, "hi"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

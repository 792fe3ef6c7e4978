// Package bot turns an agent run into what people see, independent of the
// chat platform: a status line per progress event, and a finished view
// with the answer, the route, numbered sources and the confidence badge.
// The console, Slack and Discord adapters only render these values.
package bot

import (
	"fmt"
	"strings"

	"github.com/switchboard/switchboard/agent"
)

// Status returns the one-line progress text for e, and false for events
// that people need not see.
func Status(e agent.Event) (string, bool) {
	switch e.Kind {
	case agent.EventCondensed:
		return fmt.Sprintf("understood as: %q", e.Query), true
	case agent.EventRouted:
		return fmt.Sprintf("→ %s: %s", e.Route, e.Reason), true
	case agent.EventRetrieved:
		return fmt.Sprintf("searched %s for %q: %d found", e.Route, e.Query, e.Total), true
	case agent.EventGraded:
		return fmt.Sprintf("%d of %d relevant", e.Count, e.Total), true
	case agent.EventRewriting:
		if e.Reason != "" { // the rewriter switched route
			return fmt.Sprintf("rewriting query… (%d/%d) → %s: %s (%s)", e.Attempt, e.Max, e.Route, e.Query, e.Reason), true
		}
		return fmt.Sprintf("rewriting query… (%d/%d): %s", e.Attempt, e.Max, e.Query), true
	case agent.EventWebFallback:
		return "searching the web as a fallback (" + e.Reason + ")", true
	case agent.EventGenerating:
		return fmt.Sprintf("writing the answer from %d source%s…", e.Total, plural(e.Total)), true
	case agent.EventChecking:
		return "checking the answer against its sources…", true
	case agent.EventRegenerating:
		return fmt.Sprintf("regenerating (%d/%d): %s", e.Attempt, e.Max, e.Reason), true
	case agent.EventDegraded:
		return "⚠ " + e.Reason, true
	case agent.EventNotice:
		return e.Reason, true
	}
	return "", false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Badge is the confidence line shown under an answer, with the offline
// marker when any step of the run used the offline engine.
func Badge(r agent.Result) string {
	var b string
	switch {
	case r.Confidence == agent.ConfidenceHigh:
		b = "🟢 High confidence: grounded on the first check in " + fmt.Sprint(len(r.Sources)) + " sources"
	case r.Confidence == agent.ConfidenceMedium:
		b = "🟡 Medium confidence: " + mediumWhy(r)
	case r.Confidence == agent.ConfidenceLow && r.Partial:
		b = "🔴 Low confidence: related text only, it does not answer the question"
	case r.Confidence == agent.ConfidenceLow:
		b = "🔴 Low confidence: some claims could not be verified against the sources"
	case r.Confidence == agent.ConfidenceGeneral:
		b = "⚪ General knowledge: not checked against any source"
	default:
		b = "⚫ No answer found"
	}
	if r.Offline {
		b += " · offline mode"
	}
	return b
}

func mediumWhy(r agent.Result) string {
	var why []string
	if r.Rewrites > 0 {
		why = append(why, fmt.Sprintf("found after %d query rewrite%s", r.Rewrites, plural(r.Rewrites)))
	}
	if r.Regenerations > 0 {
		why = append(why, fmt.Sprintf("grounded after %d regeneration%s", r.Regenerations, plural(r.Regenerations)))
	}
	if len(r.Sources) == 1 {
		why = append(why, "a single source")
	}
	if len(why) == 0 {
		return "grounded"
	}
	return strings.Join(why, ", ")
}

// RouteLine says which route answered and why.
func RouteLine(r agent.Result) string {
	if r.RouteReason == "" {
		return "Route: " + string(r.Route)
	}
	return fmt.Sprintf("Route: %s (%s)", r.Route, r.RouteReason)
}

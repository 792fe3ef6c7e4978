package agent

import (
	"regexp"
	"strconv"
)

// confidence derives the badge from what the run checked (DESIGN.md).
func confidence(s *State) Confidence {
	switch {
	case s.Route == RouteDirect && !s.NoAnswer:
		if s.DirectOK {
			return ConfidenceGeneral
		}
		return ConfidenceNone
	case s.NoAnswer:
		return ConfidenceNone
	case !s.Grounded:
		return ConfidenceLow
	case s.Regenerations == 0 && s.Rewrites == 0 && !s.Fallback && len(s.Relevant) >= 2:
		return ConfidenceHigh
	default:
		return ConfidenceMedium
	}
}

var citation = regexp.MustCompile(`\[(\d{1,3})\]`)

// sources numbers the relevant documents as the generator saw them and
// keeps those the answer cites; if it cites none, all of them, since all
// of them were its evidence.
func sources(s *State) []Source {
	if s.NoAnswer || s.Route == RouteDirect {
		return nil
	}
	cited := map[int]bool{}
	for _, m := range citation.FindAllStringSubmatch(s.Answer, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			cited[n] = true
		}
	}
	var out []Source
	for i, d := range s.Relevant {
		n := i + 1
		if len(cited) > 0 && !cited[n] {
			continue
		}
		out = append(out, Source{N: n, Title: d.Title, Location: d.Location, Snippet: snippet(d.Content, 240), Route: d.Route})
	}
	return out
}

// snippet shortens s to at most n runes at a word boundary.
func snippet(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := n
	for cut > n/2 && r[cut] != ' ' {
		cut--
	}
	return string(r[:cut]) + "…"
}

// result turns a finished state into what Ask returns.
func (a *Agent) result(s *State) Result {
	route := s.Route
	return Result{
		Question:      s.Question,
		Standalone:    s.Standalone,
		Route:         route,
		RouteReason:   s.RouteReason,
		Rewrites:      s.Rewrites,
		Regenerations: s.Regenerations,
		Answer:        s.Answer,
		Sources:       append([]Source{}, sources(s)...),
		Confidence:    confidence(s),
		Unsupported:   s.Unsupported,
		Offline:       s.Offline,
		OfflineReason: s.OfflineReason,
		Attempts:      s.Attempts,
		LLMCalls:      s.Usage.Calls,
		Tokens:        s.Usage.PromptTokens + s.Usage.CompletionTokens,
		Trace:         s.Trace,
	}
}

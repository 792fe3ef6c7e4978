package agent

import (
	"context"
	"fmt"
	"strings"
)

// noAnswer ends a run that found nothing relevant, saying what was
// searched so that the asker can judge where else to look.
func (r *run) noAnswer(_ context.Context, s *State) (Step, error) {
	s.NoAnswer = true
	var b strings.Builder
	b.WriteString("I couldn't find an answer to that.")
	if len(s.Attempts) > 0 {
		b.WriteString(" Here is what I tried:")
		for _, a := range s.Attempts {
			b.WriteString("\n• ")
			switch {
			case a.Note != "" && a.Query == "":
				b.WriteString(a.Note)
			case a.Note != "":
				fmt.Fprintf(&b, "%s search for %q: %s", a.Route, a.Query, a.Note)
			default:
				fmt.Fprintf(&b, "%s search for %q: %d found, %d relevant", a.Route, a.Query, a.Found, a.Relevant)
			}
		}
	}
	s.Answer = b.String()
	return StepEnd, nil
}

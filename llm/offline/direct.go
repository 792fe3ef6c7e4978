package offline

import (
	"context"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/calc"
	"github.com/switchboard/switchboard/kb/words"
)

// introAnswer is the direct route's answer to a greeting.
const (
	introAnswer = "Hi! I'm Switchboard. I answer questions from your team's documents and knowledge graph, " +
		"and cite my sources. No language model is configured, so I quote the sources instead of " +
		"summarising them, and I can do arithmetic."
)

var thanks = setOf(`thanks thank thx ty cheers`)

// Direct answers without retrieval. Offline that means arithmetic and unit
// conversions, which the calculator evaluates ("15% of 340 is 51.", "2.5
// minutes is 150 seconds."), and greetings, which get a short
// introduction; these come back with ok true, as does an arithmetic
// question without an answer ("can't divide by zero"), because saying so is
// the answer. Everything else comes back with ok false: it needs a model,
// which the presenter tells the asker how to configure (agent.OutcomeNoModel).
func (b *Brain) Direct(ctx context.Context, question string, history []agent.Turn) (string, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	q := clip(question, maxQuestion)
	if answer, _, ok := calc.Answer(q); ok {
		return answer, true, nil
	}
	toks := words.Tokens(q)
	if _, ok := smallTalk(toks, padded(toks)); ok {
		for _, t := range toks {
			if thanks[t.Lower] {
				return "You're welcome!", true, nil
			}
		}
		return introAnswer, true, nil
	}
	return "", false, nil
}

package agent

// Budgets bound every loop of a run (docs/DESIGN.md, rule 1). Zero fields
// take the defaults below.
type Budgets struct {
	MaxRewrites      int // query rewrites before the web fallback (3)
	MaxRegenerations int // regenerations after a failed grounding check (2)
	MaxSteps         int // nodes one run may visit, a guard against table bugs (40)
	GradeWorkers     int // documents graded at once (TopK: all of a retrieval in one wave)
	TopK             int // documents asked of a retriever (6)
	MaxQuestionChars int // longer questions are refused with a clear message (4000)
	// MaxAnswerChars cuts longer answers at a paragraph and says so
	// (ShortenedNote); 0 means no limit, since the edges split long
	// answers into several messages anyway.
	MaxAnswerChars int
}

func (b Budgets) withDefaults() Budgets {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&b.MaxRewrites, 3)
	def(&b.MaxRegenerations, 2)
	def(&b.MaxSteps, 40)
	def(&b.TopK, 6)
	def(&b.GradeWorkers, b.TopK)
	def(&b.MaxQuestionChars, 4000)
	return b
}

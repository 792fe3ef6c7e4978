package agent

// Allowance is what a run may spend on the model: in the chat bot, the
// daily token budgets of the asker and of their workspace. The run asks it
// before every model call (StartCall), so that it stops before the call
// that would pass a budget, and goes on with the offline engine, rather
// than learning after its answer that it passed it. It must be safe for
// concurrent use: a run grades documents at once.
type Allowance interface {
	// Reserve holds tokens for one model call about to be made and
	// returns the function that settles the hold with the tokens the
	// call used (0 when it failed), called once. When the call would pass
	// a budget it holds nothing and returns a *BudgetError: the call is
	// not made.
	Reserve(tokens int) (settle func(used int), err error)
}

// BudgetError is an Allowance's refusal of a model call. The run goes on
// with the offline engine, and says why.
type BudgetError struct {
	// Reason is why the answer is offline, shown with it to everyone in
	// the thread, e.g. "this workspace has used today's model budget,
	// which renews in 3 h".
	Reason string
	// Detail is for the asker alone: what they can do about it.
	Detail string
}

func (e *BudgetError) Error() string { return e.Reason }

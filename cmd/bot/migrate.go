package main

import (
	"context"
	"fmt"
)

// migrate applies the stores' migrations. Open already did, under an
// advisory lock so that replicas starting together apply them once; this
// command exists to run it as a deployment step and to say what is in use.
func (m *Main) migrate(_ context.Context, app *App, args []string) error {
	if len(args) > 0 {
		fmt.Fprintln(m.Stderr, "Usage: switchboard migrate")
		return errUsage
	}
	for _, b := range app.Backends {
		fmt.Fprintln(m.Stdout, "migrated", b)
	}
	return nil
}

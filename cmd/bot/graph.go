package main

import (
	"context"
	"fmt"

	"github.com/switchboard/switchboard/ingest"
)

// graph imports a knowledge graph from two CSV files.
func (m *Main) graph(ctx context.Context, app *App, args []string) error {
	fs := m.newFlags("graph", "graph import NODES.csv EDGES.csv")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 3 || fs.Arg(0) != "import" {
		fs.Usage()
		return errUsage
	}
	if err := app.dropDemo(ctx); err != nil { // a user's graph never holds the demo's
		return err
	}
	rep, err := ingest.ImportGraph(ctx, app.Graph, fs.Arg(1), fs.Arg(2))
	fmt.Fprintln(m.Stdout, rep.String())
	if err != nil {
		return err
	}
	if n := len(rep.NodeErrors) + len(rep.EdgeErrors); n > 0 {
		return fmt.Errorf("%d rows were not imported (listed above); the other rows were", n)
	}
	return nil
}

package main

import (
	"context"
	"fmt"
)

// ingest loads files and folders into the document store.
func (m *Main) ingest(ctx context.Context, app *App, args []string) error {
	fs := m.newFlags("ingest", "ingest PATH...")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	rep, err := app.Ingest.IngestFiles(ctx, fs.Args())
	fmt.Fprintln(m.Stdout, rep.String())
	if err != nil {
		return err
	}
	if n := len(rep.Errors); n > 0 {
		return fmt.Errorf("%d of the paths failed (listed above); the rest were ingested", n)
	}
	return nil
}

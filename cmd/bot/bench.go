package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/switchboard/switchboard/bench"
)

// modulePath names the source tree bench must run in.
const modulePath = "github.com/switchboard/switchboard"

// goCommand runs the go tool with args in dir. Tests replace it.
var goCommand = func(ctx context.Context, dir string, args []string, stdout, stderr io.Writer) error {
	if _, err := exec.LookPath("go"); err != nil {
		return errors.New("bench needs the Go toolchain: go is not on PATH")
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, stdout, stderr
	return cmd.Run()
}

// bench runs the benchmarks of package bench with go test, from the
// source tree: they are Go benchmarks, because the fakes of Slack, Discord
// and the model they drive are test code. go test's output goes to stderr
// as it comes; the report's table is printed at the end and its JSON
// written to --out.
func (m *Main) bench(ctx context.Context, args []string) error {
	fs := m.newFlags("bench", "bench [--quick] [--out FILE] [--run REGEXP]\n\n"+
		"Runs the benchmarks of bench/ (see bench/doc.go) with go test, from the source tree;\n"+
		"the full run takes a few minutes. Set TEST_DATABASE_URL (scripts/services.sh) to include PostgreSQL.\n\nFlags:")
	quick := fs.Bool("quick", false, "small workloads and a 20 ms model: checks the harness in seconds; not for figures")
	out := fs.String("out", "", "write the JSON report to `FILE` (default bench/results.json; with --quick, the temporary folder)")
	only := fs.String("run", ".", "run only the benchmarks matching `REGEXP`: CriticalPath, Overhead, Load, Stores")
	if err := parse(fs, args); err != nil {
		if errors.Is(err, errHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	results := *out
	switch {
	case results != "":
		if results, err = filepath.Abs(results); err != nil {
			return fmt.Errorf("bench: --out: %w", err)
		}
	case *quick:
		results = filepath.Join(os.TempDir(), "switchboard-bench-quick.json")
	default:
		results = filepath.Join(root, "bench", "results.json")
	}
	goArgs := []string{"test", "./bench", "-run", "^$", "-bench", *only, "-benchtime", "1x", "-count", "1", "-timeout", "30m"}
	if *quick {
		goArgs = append(goArgs, "-short")
	}
	cmdline := "go run ./cmd/bot bench"
	if *quick {
		cmdline += " --quick"
	}
	goArgs = append(goArgs, "-args", "-results", results, "-table=false", "-command", cmdline)
	fmt.Fprintf(m.Stderr, "Running go %s in %s…\n", joinArgs(goArgs), root)
	if err := goCommand(ctx, root, goArgs, m.Stderr, m.Stderr); err != nil {
		return fmt.Errorf("bench: go test ./bench failed (output above): %w", err)
	}
	data, err := os.ReadFile(results)
	if err != nil {
		return fmt.Errorf("bench: the benchmarks wrote no report: %w", err)
	}
	rep, err := bench.ReadReport(bytes.NewReader(data))
	if err != nil {
		return err
	}
	fmt.Fprintln(m.Stdout)
	if err := rep.WriteTable(m.Stdout); err != nil {
		return err
	}
	fmt.Fprintln(m.Stdout, "\nReport:", results)
	return nil
}

// moduleRoot finds the Switchboard source tree from the working folder
// up: the folder whose go.mod declares the module.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("bench: %w", err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(data, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("bench runs go test in the Switchboard source tree; run it from inside a checkout")
		}
		dir = parent
	}
}

// joinArgs quotes arguments with spaces or shell characters for display.
func joinArgs(args []string) string {
	var b bytes.Buffer
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "" || bytes.ContainsAny([]byte(a), " ^$*'\"") {
			fmt.Fprintf(&b, "'%s'", a)
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}

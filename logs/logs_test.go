package logs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/switchboard/switchboard/logs"
)

func TestContextAttributesOnEveryLine(t *testing.T) {
	var buf bytes.Buffer
	log, err := logs.New(&buf, logs.FormatAuto, slog.LevelInfo) // a buffer is no terminal: JSON
	if err != nil {
		t.Fatal(err)
	}
	ctx := logs.With(context.Background(), "thread", "slack:T1:C1:1.0")
	ctx = logs.With(ctx, "run", "ab12")
	log.With("component", "retriever").InfoContext(ctx, "searched", "found", 3)
	log.Info("no context")
	log.DebugContext(ctx, "hidden")

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("lines:\n%s", buf.String())
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, lines[0])
	}
	for k, want := range map[string]any{"thread": "slack:T1:C1:1.0", "run": "ab12", "component": "retriever", "found": 3.0, "msg": "searched"} {
		if first[k] != want {
			t.Errorf("%s = %v, want %v", k, first[k], want)
		}
	}
	if strings.Contains(lines[1], "run") {
		t.Errorf("a line without the context carries its attributes: %s", lines[1])
	}
}

func TestTextAndBadFormat(t *testing.T) {
	var buf bytes.Buffer
	log, err := logs.New(&buf, logs.FormatText, slog.LevelInfo)
	if err != nil {
		t.Fatal(err)
	}
	log.InfoContext(logs.With(context.Background(), "run", "x1"), "hello")
	if got := buf.String(); !strings.Contains(got, "msg=hello") || !strings.Contains(got, "run=x1") {
		t.Errorf("text line = %q", got)
	}
	if _, err := logs.New(&buf, "xml", slog.LevelInfo); err == nil {
		t.Error("format xml accepted")
	}
}

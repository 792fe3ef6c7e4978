package main

import (
	"strings"
	"testing"

	"github.com/switchboard/switchboard/internal/testenv"
)

// A workspace's admin sets two channels from the command line; `channels
// show` lists every channel with who changed it last, flags not given keep
// their value, and a channel's own view lists its changes. On both stores.
func TestChannelsSetAndShow(t *testing.T) {
	for _, store := range []struct {
		name string
		env  func(t *testing.T) map[string]string
	}{
		{"sqlite", func(t *testing.T) map[string]string { return map[string]string{"SWITCHBOARD_DATA_DIR": t.TempDir()} }},
		{"postgres", func(t *testing.T) map[string]string {
			return map[string]string{"DATABASE_URL": testenv.PostgresURL(t), "SWITCHBOARD_DATA_DIR": t.TempDir()}
		}},
	} {
		t.Run(store.name, func(t *testing.T) {
			env := store.env(t)
			sb := func(user string, args ...string) string {
				t.Helper()
				env["USER"] = user
				out, stderr, err := run(t, env, args...)
				if err != nil {
					t.Fatalf("switchboard %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
				}
				return out
			}
			if out := sb("ana", "channels", "show"); !strings.Contains(out, "No channel has settings") {
				t.Errorf("show on a new store:\n%s", out)
			}
			sb("ana", "channels", "set", "C1", "--sources", "handbook/docs/hr/,slack:C42", "--replies", "all")
			sb("ana", "channels", "set", "C2", "--private", "true", "--replies", "mention-only")
			sb("bo", "channels", "set", "C1", "--experts", "U1,S2") // keeps C1's sources and replies

			lines := strings.Split(strings.TrimSpace(sb("ana", "channels", "show")), "\n")
			if len(lines) != 3 {
				t.Fatalf("show lists %d lines, want a header and 2 channels:\n%s", len(lines), strings.Join(lines, "\n"))
			}
			for _, want := range [][]string{
				{"C1", "handbook/docs/hr/,slack:C42", "all", "false", "U1,S2", "cli:bo"},
				{"C2", "(all)", "mention", "true", "cli:ana"},
			} {
				line := lines[1]
				if want[0] == "C2" {
					line = lines[2]
				}
				for _, w := range want {
					if !strings.Contains(line, " "+w+" ") && !strings.HasPrefix(line, w+" ") {
						t.Errorf("the line of %s lacks %q: %s", want[0], w, line)
					}
				}
			}
			one := sb("ana", "channels", "show", "C1")
			if !strings.Contains(one, "Changes, oldest first:") || strings.Count(one, "cli:ana") != 1 || strings.Count(one, "cli:bo") != 2 {
				t.Errorf("C1's changes are not listed:\n%s", one)
			}

			if _, stderr, err := run(t, env, "channels", "set", "C1", "--replies", "sometimes"); err == nil || !strings.Contains(stderr+err.Error(), "replies must be") {
				t.Errorf("a bad mode was taken: %v %s", err, stderr)
			}
			if _, _, err := run(t, env, "channels", "set", "--private", "true"); err == nil {
				t.Error("set without a channel was taken")
			}
		})
	}
}

package main

import (
	"strings"
	"testing"
)

// loadConfig is LoadConfig of the settings in env, the others unset but
// for the data folder, which is the test's own unless env sets it.
func loadConfig(t *testing.T, env map[string]string) (Config, error) {
	t.Helper()
	dir := t.TempDir()
	return LoadConfig(func(name string) string {
		if v, ok := env[name]; ok {
			return v
		}
		if name == "SWITCHBOARD_DATA_DIR" {
			return dir
		}
		return ""
	})
}

// A setting's value is taken, or refused at start with one line that
// names the setting and says what is wrong with it.
func TestSettingsChecked(t *testing.T) {
	for _, c := range []struct {
		setting, value string
		refusal        string // "": taken
	}{
		{"DOCS_BASE_URL", "", ""},
		{"DOCS_BASE_URL", "https://github.com/acme/handbook/blob/main/", ""},
		{"DOCS_BASE_URL", "http://docs.internal:8080/kb", ""},
		{"DOCS_BASE_URL", "github.com/acme/handbook", "not an http(s) URL"},
		{"DOCS_BASE_URL", "javascript:alert(1)//", "not an http(s) URL"},
		{"DOCS_BASE_URL", "https://docs.example.com/?ref=main", "query or fragment"},
		{"DOCS_BASE_URL", "https://docs.example.com/#top", "query or fragment"},
		{"DOCS_BASE_URL", "https://bot:secret@docs.example.com/", "user name"},
		{"GRAPH_EXTRACT", "sometimes", "is not auto, rules or off"},
		{"GRAPH_LABELS", "bad label!", "use letters, digits and underscores"},
		{"GRAPH_RELATIONS", ",", "no relationship types"},
		{"INGEST_MAX_FILE_MB", "0", "outside 1..1024"},
		{"INGEST_ADMINS", "teams:U1", "write slack:U123, discord:123456 or a bare user id"},
		{"INGEST_ADMINS", "slack:U1,7", ""},
		{"SLACK_THREAD_REPLIES", "asker", ""},
		{"SLACK_THREAD_REPLIES", "anyone", ""},
		{"SLACK_THREAD_REPLIES", "mention-only", ""},
		{"SLACK_THREAD_REPLIES", "everyone", "is not asker, anyone or mention-only"},
		{"SLACK_THREAD_REPLIES", "Asker", "is not asker, anyone or mention-only"},
		{"SWITCHBOARD_DEMO", "maybe", "is not auto, true or false"},
	} {
		_, err := loadConfig(t, map[string]string{c.setting: c.value})
		switch {
		case c.refusal == "" && err != nil:
			t.Errorf("%s=%q: %v", c.setting, c.value, err)
		case c.refusal != "" && (err == nil || !strings.Contains(err.Error(), c.setting) || !strings.Contains(err.Error(), c.refusal)):
			t.Errorf("%s=%q: error %v, want one naming the setting and saying %q", c.setting, c.value, err, c.refusal)
		}
	}
}

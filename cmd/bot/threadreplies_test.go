package main

import (
	"strings"
	"testing"

	"github.com/switchboard/switchboard/bot/slack"
)

func TestSlackThreadRepliesSetting(t *testing.T) {
	for value, ok := range map[string]bool{"": true, "asker": true, "anyone": true, "mention-only": true, "everyone": false, "Asker": false} {
		cfg, err := LoadConfig(func(name string) string {
			switch name {
			case "SLACK_THREAD_REPLIES":
				return value
			case "SWITCHBOARD_DATA_DIR":
				return t.TempDir()
			}
			return ""
		})
		switch {
		case ok && err != nil:
			t.Errorf("SLACK_THREAD_REPLIES=%q: %v", value, err)
		case ok && value == "" && cfg.SlackThreadReplies != slack.RepliesAsker:
			t.Errorf("default SLACK_THREAD_REPLIES = %q, want %q", cfg.SlackThreadReplies, slack.RepliesAsker)
		case !ok && (err == nil || !strings.Contains(err.Error(), "SLACK_THREAD_REPLIES")):
			t.Errorf("SLACK_THREAD_REPLIES=%q: error %v, want one naming the setting", value, err)
		}
	}
}

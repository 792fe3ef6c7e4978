package main

import (
	"testing"

	"github.com/switchboard/switchboard/bot/slack"
)

// SLACK_THREAD_REPLIES unset answers the people the bot answered in the
// thread (TestSettingsChecked has the values it takes and refuses).
func TestSlackThreadRepliesDefault(t *testing.T) {
	cfg, err := loadConfig(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SlackThreadReplies != slack.RepliesAsker {
		t.Errorf("default SLACK_THREAD_REPLIES = %q, want %q", cfg.SlackThreadReplies, slack.RepliesAsker)
	}
}

package discordhist_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot/discord/discordtest"
	"github.com/switchboard/switchboard/ingest/chat"
	"github.com/switchboard/switchboard/ingest/discordhist"
)

// A 429 is waited out for the retry_after its body names, at most
// MaxRetries times; the waits are recorded, not spent.
func TestRateLimitRetriesAreBounded(t *testing.T) {
	fake := discordtest.New(t)
	fake.AddChannel("G1", "C1", "general", false)
	fake.RateLimit("GET", "/channels/C1/messages", 100)
	var waits []time.Duration
	src, err := discordhist.New(discordhist.Config{BotToken: fake.Token, APIURL: fake.APIURL, MaxRetries: 2,
		Sleep: func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	ch := chat.Channel{Platform: "discord", Workspace: "G1", ID: "C1"}
	err = src.History(context.Background(), ch, time.Time{}, time.Time{}, func([]chat.Message) error { return nil })
	var rl *discordgo.RateLimitError
	if !errors.As(err, &rl) || !strings.HasPrefix(err.Error(), "discord: read messages of C1: ") {
		t.Fatalf("History = %v, want the 429 after the retries", err)
	}
	if want := []time.Duration{50 * time.Millisecond, 50 * time.Millisecond}; !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v (the body's retry_after)", waits, want)
	}
	if n := limited(fake); n != 3 {
		t.Errorf("%d requests rate limited, want 3", n)
	}
}

// Cancelling the context while a 429 is waited out ends the read with
// the context's error.
func TestRateLimitWaitEndsWithContext(t *testing.T) {
	fake := discordtest.New(t)
	fake.AddChannel("G1", "C1", "general", false)
	fake.RateLimit("GET", "/channels/C1/messages", 100)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := discordhist.New(discordhist.Config{BotToken: fake.Token, APIURL: fake.APIURL,
		Sleep: func(ctx context.Context, _ time.Duration) error { cancel(); return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	ch := chat.Channel{Platform: "discord", Workspace: "G1", ID: "C1"}
	err = src.History(ctx, ch, time.Time{}, time.Time{}, func([]chat.Message) error { return nil })
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "rate limited, then context canceled") {
		t.Errorf("History = %v, want the cancel during the wait", err)
	}
	if n := limited(fake); n != 1 {
		t.Errorf("%d requests rate limited, want 1", n)
	}
}

func limited(fake *discordtest.Server) int {
	n := 0
	for _, c := range fake.Calls() {
		if c.Status == 429 {
			n++
		}
	}
	return n
}

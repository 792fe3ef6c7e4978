package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/internal/retry"
)

// Retry limits for rate-limited requests. Discord asks for waits of
// milliseconds to a few seconds; a longer wait means a deeper problem, and
// the presenter would rather drop one progress edit than stall.
const (
	maxAttempts  = 4
	maxRetryWait = 10 * time.Second
)

// do runs one REST call, retrying it when Discord answers 429 Too Many
// Requests, at most maxAttempts times, waiting what Discord asks and no
// longer than ctx allows. discordgo keeps a bucket per route (per channel,
// per interaction token), so a rate-limited thread waits alone.
func (a *Adapter) do(ctx context.Context, op string, call func(...discordgo.RequestOption) error) error {
	p := retry.Policy{Attempts: maxAttempts, OnRetry: func(attempt int, _ error, wait time.Duration) {
		a.log.Debug("rate limited; retrying", "op", op, "after", wait, "attempt", attempt)
	}}
	err := retry.Do(ctx, p, func(attempt int) retry.Outcome {
		err := call(discordgo.WithContext(ctx))
		var rl *discordgo.RateLimitError
		if !errors.As(err, &rl) || attempt == maxAttempts {
			return retry.Stop(err)
		}
		wait := max(rl.RetryAfter, 10*time.Millisecond)
		if wait > maxRetryWait {
			return retry.Stop(fmt.Errorf("rate limited for %v: %w", rl.RetryAfter, err))
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return retry.Stop(fmt.Errorf("rate limited past the deadline: %w", err))
		}
		return retry.Later(err, wait)
	})
	if stopped := (*retry.StoppedError)(nil); errors.As(err, &stopped) {
		err = stopped.Ctx
	}
	if err != nil {
		return fmt.Errorf("discord: %s: %w", op, err)
	}
	return nil
}

// isGone reports whether err says an interaction's webhook can no longer
// be used: its 15-minute token expired (Unknown Webhook, Invalid Webhook
// Token) or the response it would edit is not there.
func isGone(err error) bool {
	var re *discordgo.RESTError
	if !errors.As(err, &re) || re.Response == nil {
		return false
	}
	if re.Message != nil {
		switch re.Message.Code {
		case discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeInvalidWebhookTokenProvided,
			discordgo.ErrCodeUnknownInteraction, discordgo.ErrCodeUnknownMessage:
			return true
		}
	}
	return re.Response.StatusCode == http.StatusNotFound || re.Response.StatusCode == http.StatusUnauthorized
}

// editOriginal edits an interaction's original response. It calls the
// endpoint itself because discordgo's WebhookMessageEdit puts every
// webhook edit of the process in one rate-limit bucket, which would let
// one slow or rate-limited thread hold up all the others.
func (a *Adapter) editOriginal(ctx context.Context, ia *discordgo.Interaction, m Message) error {
	uri := discordgo.EndpointInteractionResponseActions(ia.AppID, ia.Token)
	content := m.Content
	body := &discordgo.WebhookEdit{
		Content:         &content,
		Embeds:          &m.Embeds,
		Components:      &m.Components,
		AllowedMentions: noMentions(),
	}
	return a.do(ctx, "edit the response", func(opts ...discordgo.RequestOption) error {
		_, err := a.s.RequestWithBucketID(http.MethodPatch, uri, body, uri, opts...)
		return err
	})
}

// deleteOriginal deletes an interaction's original response.
func (a *Adapter) deleteOriginal(ctx context.Context, ia *discordgo.Interaction) error {
	return a.do(ctx, "delete the response", func(opts ...discordgo.RequestOption) error {
		return a.s.InteractionResponseDelete(ia, opts...)
	})
}

// followup posts a follow-up message to an interaction; flags may make it
// ephemeral.
func (a *Adapter) followup(ctx context.Context, ia *discordgo.Interaction, m Message, flags discordgo.MessageFlags) error {
	p := &discordgo.WebhookParams{
		Content:         m.Content,
		Embeds:          m.Embeds,
		Components:      m.Components,
		AllowedMentions: noMentions(),
		Flags:           flags,
	}
	return a.do(ctx, "post a follow-up", func(opts ...discordgo.RequestOption) error {
		_, err := a.s.FollowupMessageCreate(ia, true, p, opts...)
		return err
	})
}

// send posts a channel message with the bot token and returns its id.
func (a *Adapter) send(ctx context.Context, channel string, m *discordgo.MessageSend) (string, error) {
	var id string
	err := a.do(ctx, "post a message", func(opts ...discordgo.RequestOption) error {
		msg, err := a.s.ChannelMessageSendComplex(channel, m, opts...)
		if err == nil && msg != nil {
			id = msg.ID
		}
		return err
	})
	return id, err
}

// edit edits a channel message the bot posted.
func (a *Adapter) edit(ctx context.Context, channel, id string, m Message) error {
	content := m.Content
	e := &discordgo.MessageEdit{
		ID: id, Channel: channel,
		Content: &content, Embeds: &m.Embeds, Components: &m.Components,
		AllowedMentions: noMentions(),
	}
	return a.do(ctx, "edit a message", func(opts ...discordgo.RequestOption) error {
		_, err := a.s.ChannelMessageEditComplex(e, opts...)
		return err
	})
}

// noMentions keeps answers from pinging anyone: they quote documents,
// and a quoted "@everyone" must stay text.
func noMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/channels"
)

// This file serves /switchboard settings (issue 26): a modal to change the
// channel's settings, which only the workspace's admins and owners, or the
// users Config.SettingsAdmin names, may submit. Slack's Web API does not
// say who manages a channel, so channel managers are not recognised.

// SettingsCommand is the slash command of the settings modal.
const SettingsCommand = "/switchboard"

// settingsCallback names the settings modal in its view_submission.
const settingsCallback = "channel_settings"

// The block ids of the modal's inputs; each input's action id is the
// same.
const (
	blockSources = "sources"
	blockReplies = "replies"
	blockPrivate = "private"
	blockExperts = "experts"
)

// settingsHint answers /switchboard with anything but "settings".
const settingsHint = "Try /switchboard settings to change how I answer in this channel."

// settingsUnavailable answers /switchboard settings when no store keeps
// settings.
const settingsUnavailable = "Channel settings are not available: this Switchboard keeps no settings."

// submitWithin bounds the handling of a modal's submission: Slack waits 3
// seconds for the response that closes the modal or shows its errors.
const submitWithin = 2500 * time.Millisecond

// onSettingsCommand opens the settings modal of the command's channel for
// someone who may change them, and tells anyone else why not.
func (a *Adapter) onSettingsCommand(ctx context.Context, c command) {
	tell := func(text string) {
		if err := respond(ctx, a, c.ResponseURL, false, nil, escape(text)); err != nil {
			a.log.Warn("could not answer a settings command", "err", err)
		}
	}
	switch {
	case strings.TrimSpace(strings.ToLower(c.Text)) != "settings":
		tell(settingsHint)
		return
	case a.cfg.Channels == nil:
		tell(settingsUnavailable)
		return
	case !a.maySetSettings(ctx, c.UserID):
		tell(bot.SettingsNotAllowed)
		return
	}
	s, err := a.cfg.Channels.Settings(ctx, c.ChannelID)
	if err != nil {
		a.log.Error("could not read a channel's settings", "channel", c.ChannelID, "err", err)
		tell(bot.SettingsFailed)
		return
	}
	// The trigger is valid for 3 seconds: one attempt, no waiting.
	if _, err := a.api.OpenViewContext(ctx, c.TriggerID, settingsModal(s)); err != nil {
		a.log.Error("could not open the settings modal", "channel", c.ChannelID, "err", err)
		tell(bot.SettingsFailed)
	}
}

// maySetSettings reports whether user may change channels' settings: one
// Config.SettingsAdmin names, or a workspace admin or owner (users.info).
// A failed look-up says no, logged.
func (a *Adapter) maySetSettings(ctx context.Context, user string) bool {
	if a.cfg.SettingsAdmin != nil && a.cfg.SettingsAdmin(user) {
		return true
	}
	var u *slack.User
	err := a.retry(ctx, "users.info", func() (err error) {
		u, err = a.api.GetUserInfoContext(ctx, user)
		return err
	})
	if err != nil {
		a.log.Warn("could not tell whether a user may change settings; refusing", "user", user, "err", err)
		return false
	}
	return u.IsAdmin || u.IsOwner || u.IsPrimaryOwner
}

// settingsModal is the modal that edits s, the channel in its
// private_metadata.
func settingsModal(s channels.Settings) slack.ModalViewRequest {
	plain := func(t string) *slack.TextBlockObject {
		return slack.NewTextBlockObject(slack.PlainTextType, t, false, false)
	}
	option := func(r channels.Replies) *slack.OptionBlockObject {
		return slack.NewOptionBlockObject(string(r), plain(bot.RepliesChoice(r)), nil)
	}

	sources := slack.NewPlainTextInputBlockElement(plain("handbook/docs/hr/, slack:C42, graph"), blockSources)
	sources.Multiline, sources.InitialValue = true, strings.Join(s.Sources, ", ")
	modes := []*slack.OptionBlockObject{option(channels.RepliesMention), option(channels.RepliesAsker), option(channels.RepliesAnyone), option(channels.RepliesAll)}
	replies := slack.NewOptionsSelectBlockElement(slack.OptTypeStatic, nil, blockReplies, modes...)
	replies.InitialOption = option(s.ReplyMode())
	private := slack.NewCheckboxGroupsBlockElement(blockPrivate, slack.NewOptionBlockObject("true", plain(bot.SettingsPrivateHint), nil))
	if s.Private {
		private.InitialOptions = private.Options
	}
	experts := slack.NewPlainTextInputBlockElement(plain("U012AB3CD, S0614TZR7"), blockExperts)
	experts.InitialValue = strings.Join(s.Experts, ", ")

	input := func(id, label, hint string, el slack.BlockElement, optional bool) *slack.InputBlock {
		var h *slack.TextBlockObject
		if hint != "" {
			h = plain(hint)
		}
		b := slack.NewInputBlock(id, plain(label), h, el)
		b.Optional = optional
		return b
	}
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		Title:           plain(bot.SettingsTitle),
		Submit:          plain(bot.SettingsSubmit),
		CallbackID:      settingsCallback,
		PrivateMetadata: s.Channel,
		Blocks: slack.Blocks{BlockSet: []slack.Block{
			input(blockSources, bot.SettingsSourcesLabel, bot.SettingsSourcesHint, sources, true),
			input(blockReplies, bot.SettingsRepliesLabel, "", replies, false),
			input(blockPrivate, bot.SettingsPrivateLabel, "", private, true),
			input(blockExperts, bot.SettingsExpertsLabel, bot.SettingsExpertsHint, experts, true),
		}},
	}
}

// submission is a view_submission as the settings modal reads it.
type submission struct {
	Type string `json:"type"`
	User struct {
		ID string `json:"id"`
	} `json:"user"`
	View struct {
		CallbackID      string `json:"callback_id"`
		PrivateMetadata string `json:"private_metadata"`
		State           struct {
			Values map[string]map[string]struct {
				Value          *string `json:"value"`
				SelectedOption *struct {
					Value string `json:"value"`
				} `json:"selected_option"`
				SelectedOptions []struct {
					Value string `json:"value"`
				} `json:"selected_options"`
			} `json:"values"`
		} `json:"state"`
	} `json:"view"`
}

// parseSettingsSubmission reads the submission of the settings modal: who
// submitted it, and the settings entered. ok is false for any other
// interaction; a submission whose settings are not valid returns the
// error to show under the input that is wrong (block id → message).
func parseSettingsSubmission(payload []byte) (user string, s channels.Settings, ok bool, invalid map[string]string, err error) {
	var sub submission
	if err := json.Unmarshal(payload, &sub); err != nil {
		return "", channels.Settings{}, false, nil, fmt.Errorf("slack: decode interaction: %w", err)
	}
	if sub.Type != "view_submission" || sub.View.CallbackID != settingsCallback {
		return "", channels.Settings{}, false, nil, nil
	}
	if sub.User.ID == "" || sub.View.PrivateMetadata == "" {
		return "", channels.Settings{}, false, nil, fmt.Errorf("slack: a settings submission without its user or channel")
	}
	values := sub.View.State.Values
	text := func(block string) string {
		if v := values[block][block].Value; v != nil {
			return *v
		}
		return ""
	}
	s = channels.Settings{Channel: sub.View.PrivateMetadata, Sources: channels.ParseList(text(blockSources)),
		Experts: channels.ParseList(text(blockExperts))}
	if o := values[blockReplies][blockReplies].SelectedOption; o != nil {
		if s.Replies, err = channels.ParseReplies(o.Value); err != nil {
			return sub.User.ID, s, true, map[string]string{blockReplies: err.Error()}, nil
		}
	}
	for _, o := range values[blockPrivate][blockPrivate].SelectedOptions {
		s.Private = s.Private || o.Value == "true"
	}
	if err := s.Check(); err != nil {
		return sub.User.ID, s, true, map[string]string{blockSources: err.Error()}, nil
	}
	return sub.User.ID, s, true, nil, nil
}

// submissionResponse is the body that answers a view_submission: nil
// closes the modal, errors keep it open with a message under inputs.
type submissionResponse struct {
	Action string            `json:"response_action"`
	Errors map[string]string `json:"errors"`
}

// onSettingsSubmission saves a submitted settings modal, before the
// submission is answered; handled is false for other interactions. The
// submitter is told privately, in the channel, what the settings now are.
func (a *Adapter) onSettingsSubmission(ctx context.Context, payload []byte) (resp *submissionResponse, handled bool) {
	user, s, ok, invalid, err := parseSettingsSubmission(payload)
	if err != nil {
		a.log.Warn("ignoring a settings submission Slack sent", "err", err)
		return nil, false
	}
	if !ok {
		return nil, false
	}
	fail := func(msg string) *submissionResponse {
		return &submissionResponse{Action: "errors", Errors: map[string]string{blockSources: msg}}
	}
	switch {
	case invalid != nil:
		return &submissionResponse{Action: "errors", Errors: invalid}, true
	case a.cfg.Channels == nil:
		return fail(settingsUnavailable), true
	}
	ctx, cancel := context.WithTimeout(ctx, submitWithin)
	defer cancel()
	if !a.maySetSettings(ctx, user) {
		return fail(bot.SettingsNotAllowed), true
	}
	s.ChangedBy, s.ChangedAt = user, a.cfg.Now()
	if err := a.cfg.Channels.SetSettings(ctx, s); err != nil {
		a.log.Error("could not save a channel's settings", "channel", s.Channel, "err", err)
		return fail(bot.SettingsFailed), true
	}
	a.log.Info("channel settings changed", "channel", s.Channel, "by", user)
	a.background(func(ctx context.Context) { a.tell(ctx, a.replier(s.Channel, "", user), bot.SettingsSaved(s)) })
	return nil, true
}

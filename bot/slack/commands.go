package slack

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
)

// This file answers the /ask slash command privately: the asker alone
// sees the progress and the answer (through the command's response_url),
// under which a button shares the answer in the channel.

// askPrefix begins the conversation of a /ask question.
const askPrefix = "ask:"

// emptyCommandHint answers a bare /ask.
const emptyCommandHint = "Ask me a question after the command, for example: /ask what is our refund policy?"

// command is a slash command as Slack sends it: a form to the request
// URL, or the same fields as JSON over Socket Mode.
type command struct {
	Command     string `json:"command"`
	Text        string `json:"text"`
	TeamID      string `json:"team_id"`
	ChannelID   string `json:"channel_id"`
	UserID      string `json:"user_id"`
	ResponseURL string `json:"response_url"`
	TriggerID   string `json:"trigger_id"`
}

// parseCommandForm reads a slash command's form.
func parseCommandForm(body []byte) (command, error) {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return command{}, fmt.Errorf("slack: decode command: %w", err)
	}
	return checkCommand(command{Command: form.Get("command"), Text: form.Get("text"), TeamID: form.Get("team_id"),
		ChannelID: form.Get("channel_id"), UserID: form.Get("user_id"), ResponseURL: form.Get("response_url"),
		TriggerID: form.Get("trigger_id")})
}

// parseCommandJSON reads a slash command's payload from Socket Mode.
func parseCommandJSON(payload []byte) (command, error) {
	var c command
	if err := json.Unmarshal(payload, &c); err != nil {
		return command{}, fmt.Errorf("slack: decode command: %w", err)
	}
	return checkCommand(c)
}

// checkCommand refuses a command that names no asker, channel or way to
// answer.
func checkCommand(c command) (command, error) {
	if c.UserID == "" || c.ChannelID == "" || c.ResponseURL == "" {
		return command{}, errors.New("slack: a command without its user, channel or response_url")
	}
	if u, err := url.Parse(c.ResponseURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return command{}, fmt.Errorf("slack: a command's response_url %q is not a URL", c.ResponseURL)
	}
	return c, nil
}

// serveCommands serves POST /slack/commands.
func (a *Adapter) serveCommands(w http.ResponseWriter, r *http.Request) {
	body, ok := a.verify(w, r)
	if !ok {
		return
	}
	c, err := parseCommandForm(body)
	if err != nil {
		a.log.Warn("ignoring a command Slack sent", "err", err)
		http.Error(w, "malformed command", http.StatusBadRequest)
		return
	}
	// An empty 200 shows nothing: the answer follows privately.
	a.takeThenAck(r.Context(), func(ctx context.Context) { a.onCommand(ctx, c) }, func() { w.WriteHeader(http.StatusOK) })
}

// onCommand asks the question of a command, to be answered privately.
func (a *Adapter) onCommand(ctx context.Context, c command) {
	in := bot.Incoming{
		Platform:  platform,
		EventID:   c.TriggerID,
		Workspace: cmp.Or(c.TeamID, a.self().TeamID),
		Channel:   c.ChannelID,
		// Every /ask is a conversation of its own, seen by its asker alone.
		Conversation: askPrefix + c.TriggerID,
		Sent:         a.cfg.Now(),
		User:         c.UserID,
		Text:         question(c.Text, a.self().UserID),
	}
	r := a.privateReplier(in.Workspace, c.ChannelID, c.UserID, c.ResponseURL)
	if in.Text == "" {
		a.tell(ctx, r, emptyCommandHint)
		return
	}
	err := a.d.Submit(ctx, in, r)
	if text, tell := bot.Refusal(err); tell {
		a.log.Info("question not taken", "err", err)
		a.tell(ctx, r, text)
	}
}

// privateReplier shows a /ask question's view to its asker alone,
// replacing one ephemeral message through the command's response_url,
// which Slack lets be used MaxResponses times: the placeholder, a few
// progress edits, the answer. Past that, or when the response_url fails,
// the answer is a new ephemeral message (chat.postEphemeral).
type privateReplier struct {
	*replier // Private, and the answer's fallback
	team     string
	url      string

	mu   sync.Mutex
	uses int // of url
}

// maxResponses is how many times Slack takes a response_url.
const maxResponses = 5

func (a *Adapter) privateReplier(team, channel, user, responseURL string) *privateReplier {
	return &privateReplier{replier: a.replier(channel, "", user), team: team, url: responseURL}
}

// Private tells the asker a line, in place of the placeholder when none
// was shown yet.
func (p *privateReplier) Private(ctx context.Context, text string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.uses == 0 && p.respond(ctx, nil, escape(text)) == nil {
		return nil
	}
	return p.replier.Private(ctx, text)
}

// Start shows the placeholder.
func (p *privateReplier) Start(ctx context.Context, v bot.View) error {
	p.named(v)
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.respond(ctx, PrivateAnswer(v), fallback(v))
}

// Update shows the progress while uses of the response_url are left
// besides the answer's.
func (p *privateReplier) Update(ctx context.Context, v bot.View) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.uses >= maxResponses-1 {
		return nil
	}
	return p.respond(ctx, PrivateAnswer(v), fallback(v))
}

// Finish shows the answer with its share button (the dispatcher saves
// the answer it shares).
func (p *privateReplier) Finish(ctx context.Context, v bot.View) error {
	p.named(v)
	blocks, text := PrivateAnswer(v), fallback(v)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.uses < maxResponses && p.respond(ctx, blocks, text) == nil {
		return nil
	}
	return p.a.retry(ctx, "chat.postEphemeral", func() error {
		_, err := p.a.api.PostEphemeralContext(ctx, p.channel, p.user, slack.MsgOptionBlocks(blocks...), slack.MsgOptionText(text, false))
		return err
	})
}

// respond replaces the asker's ephemeral message (or, the first time,
// makes it). Callers hold p.mu.
func (p *privateReplier) respond(ctx context.Context, blocks []slack.Block, text string) error {
	p.uses++
	return respond(ctx, p.a, p.url, p.uses > 1, blocks, text)
}

// respond sends an ephemeral message to a response_url, replacing the one
// it answers when replace.
func respond(ctx context.Context, a *Adapter, responseURL string, replace bool, blocks []slack.Block, text string) error {
	opts := []slack.MsgOption{slack.MsgOptionResponseURL(responseURL, slack.ResponseTypeEphemeral), slack.MsgOptionText(text, false)}
	if len(blocks) > 0 {
		opts = append(opts, slack.MsgOptionBlocks(blocks...))
	}
	if replace {
		opts = append(opts, slack.MsgOptionReplaceOriginal(responseURL))
	}
	return a.retry(ctx, "response_url", func() error {
		_, _, err := a.api.PostMessageContext(ctx, "", opts...)
		return err
	})
}

func (p *privateReplier) named(v bot.View) {
	p.replier.mu.Lock()
	defer p.replier.mu.Unlock()
	p.name(v)
}

// Address implements bot.Addressed.
func (p *privateReplier) Address() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.replier.address(nil, &private{Team: p.team, URL: p.url, Uses: p.uses})
}

// private is what a privateReplier adds to its address.
type private struct {
	Team string `json:"team"`
	URL  string `json:"response_url"`
	Uses int    `json:"uses"`
}

// onShare posts a private answer in its channel, once, saying who asked,
// and replaces the share button under the private answer.
func (a *Adapter) onShare(ctx context.Context, answerID, user, responseURL string) {
	reply := func(text string) {
		if err := respond(ctx, a, responseURL, false, nil, escape(text)); err != nil {
			a.log.Warn("could not answer a share", "err", err)
		}
	}
	claim, tell, err := bot.ClaimShare(ctx, a.cfg.Answers, platform, answerID, user)
	if tell != "" {
		if err != nil {
			a.log.Warn("answer not shared", "answer", answerID, "err", err)
		}
		reply(tell)
		return
	}
	v := claim.View
	r := a.replier(claim.Channel, "", user)
	r.answerID = answerID
	for i, blocks := range SharedMessages(v, user) {
		var unsure bool
		if _, err := r.post(ctx, a.policy, r.marker("s"+strconv.Itoa(i)), blocks, fallback(v), &unsure); err != nil {
			a.log.Error("could not share an answer", "answer", answerID, "err", err)
			if i == 0 {
				if err := claim.Release(ctx); err != nil {
					a.log.Error("could not make an answer shareable again", "answer", answerID, "err", err)
				}
			}
			reply(bot.ShareFailedLabel)
			return
		}
	}
	if err := respond(ctx, a, responseURL, true, SharedNote(v), fallback(v)); err != nil {
		a.log.Warn("could not mark a private answer shared", "err", err)
	}
}

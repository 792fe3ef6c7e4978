package slack

import (
	"context"
	"strings"
	"sync"

	"github.com/slack-go/slack"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/feedback"
)

// This file handles the threads of Slack's AI-app view: their suggested
// prompts, the channel their asker looks at, and their titles. Questions
// asked in them are direct messages in a thread (events.go).

// LikedQuestions gives the questions people voted up, from the feedback
// store (feedback.Store's Liked).
type LikedQuestions interface {
	Liked(ctx context.Context, prefix string, n int) ([]feedback.Liked, error)
}

// DocumentTitles gives the titles of the documents a workspace may see,
// from the document store; none while only the demo is there.
type DocumentTitles interface {
	Titles(ctx context.Context, workspace string, n int) ([]string, error)
}

// maxPrompts is how many suggested prompts a thread gets: Slack shows up
// to four.
const maxPrompts = 4

// assistantThread is the assistant_thread of an assistant event.
type assistantThread struct {
	UserID    string `json:"user_id"`
	ChannelID string `json:"channel_id"`
	ThreadTS  string `json:"thread_ts"`
	Context   struct {
		ChannelID string `json:"channel_id"`
	} `json:"context"`
}

// onAssistantEvent handles assistant_thread_started (suggested prompts)
// and assistant_thread_context_changed (the channel looked at), and
// reports whether e was one of them.
func (a *Adapter) onAssistantEvent(ctx context.Context, team string, e *slackEvent) bool {
	if e.Type != "assistant_thread_started" && e.Type != "assistant_thread_context_changed" {
		return false
	}
	t := e.Assistant
	if t == nil || t.ChannelID == "" || t.ThreadTS == "" {
		a.log.Warn("ignoring an assistant event without its thread", "type", e.Type)
		return true
	}
	a.viewing.set(t.ChannelID+"/"+t.ThreadTS, t.Context.ChannelID)
	if e.Type == "assistant_thread_started" {
		a.suggest(ctx, team, t.ChannelID, t.ThreadTS)
	}
	return true
}

// suggest sets a new thread's suggested prompts: questions people of the
// workspace voted up, else questions about its documents. With neither,
// Slack shows the manifest's.
func (a *Adapter) suggest(ctx context.Context, team, channel, thread string) {
	lctx, cancel := context.WithTimeout(ctx, answeredTimeout)
	defer cancel()
	var liked, titles []string
	if a.cfg.Liked != nil {
		// More than are shown: those asked out of everyone's sight are
		// left out.
		l, err := a.cfg.Liked.Liked(lctx, platform+":"+team+":", 2*maxPrompts)
		if err != nil {
			a.log.Warn("could not read the questions voted up", "err", err)
		}
		liked = a.public(lctx, l, maxPrompts)
	}
	if len(liked) < maxPrompts && a.cfg.Titles != nil {
		var err error
		if titles, err = a.cfg.Titles.Titles(lctx, team, maxPrompts); err != nil {
			a.log.Warn("could not read the documents' titles", "err", err)
		}
	}
	prompts := bot.Suggest(liked, titles, maxPrompts)
	if len(prompts) == 0 {
		return
	}
	params := slack.AssistantThreadsSetSuggestedPromptsParameters{Title: bot.SuggestionsLabel, ChannelID: channel, ThreadTS: thread}
	for _, p := range prompts {
		params.AddPrompt(p.Title, p.Message)
	}
	err := a.retry(ctx, "assistant.threads.setSuggestedPrompts", func() error {
		return a.api.SetAssistantThreadsSuggestedPromptsContext(ctx, params)
	})
	if err != nil {
		a.log.Warn("could not suggest prompts", "channel", channel, "thread", thread, "err", err)
	}
}

// public returns up to n of the questions liked that were asked in a
// public channel, as conversations.info tells now: a suggested prompt is
// shown to everyone in the workspace, and a question of a private
// channel, a direct message or a private /ask is not theirs to read.
func (a *Adapter) public(ctx context.Context, liked []feedback.Liked, n int) []string {
	var out []string
	seen := map[string]bool{} // channel → public, asked once per call
	for _, l := range liked {
		if len(out) == n {
			break
		}
		channel, conv := bot.ThreadPlace(l.Thread, platform)
		if channel == "" || strings.HasPrefix(conv, askPrefix) {
			continue
		}
		public, known := seen[channel]
		if !known {
			info, err := a.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: channel})
			if err != nil {
				a.log.Debug("channel not known public; its questions are not suggested", "channel", channel, "err", err)
			}
			public = err == nil && !info.IsPrivate && !info.IsIM && !info.IsMpIM && !info.IsGroup
			seen[channel] = public
		}
		if public {
			out = append(out, l.Question)
		}
	}
	return out
}

// inAssistantThread reports whether in is a question in a thread of a
// direct message: of the AI-app view, or a follow-up in a DM's thread.
func inAssistantThread(in bot.Incoming) bool {
	return len(in.Channel) > 0 && in.Channel[0] == 'D' && in.Thread != in.MessageID
}

// titleThread names an assistant thread after its first question.
func (a *Adapter) titleThread(ctx context.Context, in bot.Incoming) {
	if a.cfg.Conversations != nil {
		actx, cancel := context.WithTimeout(ctx, answeredTimeout)
		answered, err := a.cfg.Conversations.Answered(actx, in.ThreadKey(), "")
		cancel()
		if err != nil || answered {
			return // not the first question, or not known to be
		}
	}
	err := a.retry(ctx, "assistant.threads.setTitle", func() error {
		return a.api.SetAssistantThreadsTitleContext(ctx, slack.AssistantThreadsSetTitleParameters{
			ChannelID: in.Channel, ThreadTS: in.Thread, Title: bot.Title(in.Text)})
	})
	if err != nil {
		// A DM's own thread has no title to set.
		a.log.Debug("could not title the thread", "channel", in.Channel, "thread", in.Thread, "err", err)
	}
}

// maxViewings bounds the assistant threads whose channel is remembered.
const maxViewings = 10000

// viewings remembers, for each assistant thread, the channel its asker
// looks at, in this process's memory: a question is about that channel
// only while the person looks at it, and a restart forgets no more than
// the next context event tells again.
type viewings struct {
	mu    sync.Mutex
	m     map[string]string
	order []string // oldest first, for dropping past maxViewings
}

func newViewings() *viewings { return &viewings{m: map[string]string{}} }

func (v *viewings) set(thread, channel string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.m[thread]; !ok {
		v.order = append(v.order, thread)
	}
	v.m[thread] = channel
	for len(v.order) > maxViewings {
		delete(v.m, v.order[0])
		v.order = v.order[1:]
	}
}

func (v *viewings) get(thread string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.m[thread]
}

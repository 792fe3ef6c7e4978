package discord

import (
	"context"
	"github.com/switchboard/switchboard/feedback"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/internal/text"
)

// LikedQuestions is where /ask's autocomplete finds questions answered
// well before: the feedback stores (feedback.Store's Liked), which keep
// the answers and their votes.
type LikedQuestions interface {
	// Liked returns up to n questions whose answers people found
	// helpful, best first, of the conversations whose thread key
	// (bot.Incoming.ThreadKey) starts with prefix.
	Liked(ctx context.Context, prefix string, n int) ([]feedback.Liked, error)
}

// Discord's limits on autocomplete: 25 choices, each name and string
// value at most 100 characters.
const (
	maxChoices = 25
	maxChoice  = 100
)

// likedPool is how many liked questions are read to choose from, and
// likedTimeout how long the store may take: the response is due within
// three seconds, and suggestions that come late are of no use.
const (
	likedPool    = 200
	likedTimeout = 1500 * time.Millisecond
)

// autocomplete answers Discord's request for suggestions as /ask's
// question is typed: questions answered well before in the channel, those
// starting with what is typed first, then those holding it. Only the
// channel's, and not those asked privately, so that no one is shown a
// question asked where they cannot read. A DM has no server, so no
// suggestions. A failure to find them shows none; the asker types on.
func (a *Adapter) autocomplete(ctx context.Context, ia *discordgo.Interaction, respond responder) {
	choices := []*discordgo.ApplicationCommandOptionChoice{}
	o := askOptionData(ia, optionName)
	if o != nil && o.Focused && a.cfg.Liked != nil && ia.GuildID != "" {
		typed, _ := o.Value.(string)
		lctx, cancel := context.WithTimeout(ctx, likedTimeout)
		liked, err := a.cfg.Liked.Liked(lctx, platform+":"+ia.GuildID+":"+ia.ChannelID+":", likedPool)
		cancel()
		if err != nil {
			a.log.Warn("could not find questions to suggest", "guild", ia.GuildID, "err", err)
		}
		var questions []string
		for _, l := range liked {
			if !strings.HasSuffix(l.Thread, privateConversation) {
				questions = append(questions, l.Question)
			}
		}
		for _, q := range suggest(questions, typed) {
			choices = append(choices, &discordgo.ApplicationCommandOptionChoice{Name: q, Value: q})
		}
	}
	err := respond(&discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: choices}})
	if err != nil {
		a.log.Warn("could not answer autocomplete", "err", err)
	}
}

// suggest picks at most maxChoices of the questions for what is typed:
// those that start with it, then those that hold it, each once, in the
// order given. A question longer than a choice may be is left out rather
// than cut, since choosing it asks it.
func suggest(questions []string, typed string) []string {
	typed = strings.ToLower(text.OneLine(typed))
	var starts, holds []string
	seen := map[string]bool{}
	for _, q := range questions {
		q = text.OneLine(q)
		key := strings.ToLower(q)
		if q == "" || units(q) > maxChoice || seen[key] {
			continue
		}
		seen[key] = true
		switch {
		case strings.HasPrefix(key, typed):
			starts = append(starts, q)
		case strings.Contains(key, typed):
			holds = append(holds, q)
		}
	}
	out := append(starts, holds...)
	return out[:min(len(out), maxChoices)]
}

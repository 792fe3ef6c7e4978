package discord

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
)

// The /ask command and its options.
const (
	commandName   = "ask"
	optionName    = "question"
	privateOption = "private"
	maxQuestion   = 2000 // what a Discord message may hold; the agent has its own limit
)

// The buttons of an answer carry its id in their custom_id: the votes,
// and the Share button of a private answer, disabled once pressed.
const (
	voteUp       = "vote:up:"
	voteDown     = "vote:down:"
	sharePrefix  = "share:"
	sharedPrefix = "shared:"
)

// Short replies of the adapter itself.
const (
	thanksMessage = "Thanks for the feedback!"
	noVoteMessage = "Sorry, I couldn't record that. Please try again later."
	staleButton   = "This button doesn't work any more."
	usageMessage  = "Ask me with `/ask question: your question`."
)

// maxBody bounds an interaction's HTTP body; real ones are a few kilobytes.
const maxBody = 1 << 20

// responder sends the initial response to an interaction: the HTTP
// response in http mode, the callback endpoint in gateway mode.
type responder func(*discordgo.InteractionResponse) error

// parseInteraction decodes an interaction as Discord sends it. It returns
// an error, never panics, on payloads that are not one.
func parseInteraction(body []byte) (*discordgo.Interaction, error) {
	var ia discordgo.Interaction
	if err := json.Unmarshal(body, &ia); err != nil {
		return nil, fmt.Errorf("discord: bad interaction: %w", err)
	}
	if ia.Type == 0 {
		return nil, errors.New("discord: bad interaction: no type")
	}
	return &ia, nil
}

// question returns the text of an /ask. discordgo's accessors panic on
// unexpected data; these assertions do not.
func question(ia *discordgo.Interaction) (string, bool) {
	if s, ok := askOption(ia, optionName).(string); ok && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s), true
	}
	return "", false
}

// wantsPrivate reports whether an /ask asks to be answered privately.
func wantsPrivate(ia *discordgo.Interaction) bool {
	b, _ := askOption(ia, privateOption).(bool)
	return b
}

// askOption is the value of an option of /ask, nil if it has none.
func askOption(ia *discordgo.Interaction, name string) any {
	o := askOptionData(ia, name)
	if o == nil {
		return nil
	}
	return o.Value
}

// askOptionData is an option of /ask as sent, nil if it was not.
func askOptionData(ia *discordgo.Interaction, name string) *discordgo.ApplicationCommandInteractionDataOption {
	data, ok := ia.Data.(discordgo.ApplicationCommandInteractionData)
	if !ok || data.Name != commandName {
		return nil
	}
	for _, o := range data.Options {
		if o != nil && o.Name == name {
			return o
		}
	}
	return nil
}

// userID returns who used an interaction: Member.User in guilds, User in DMs.
func userID(ia *discordgo.Interaction) string {
	switch {
	case ia.Member != nil && ia.Member.User != nil:
		return ia.Member.User.ID
	case ia.User != nil:
		return ia.User.ID
	}
	return ""
}

// parseVote reads a feedback button's custom_id.
func parseVote(customID string) (answerID string, vote int, ok bool) {
	switch {
	case strings.HasPrefix(customID, voteUp):
		answerID, vote = strings.TrimPrefix(customID, voteUp), 1
	case strings.HasPrefix(customID, voteDown):
		answerID, vote = strings.TrimPrefix(customID, voteDown), -1
	}
	if answerID == "" {
		return "", 0, false
	}
	return answerID, vote, true
}

// interact handles an application command or a button press. respond is
// called at most once, and before a question is queued: Discord shows
// "interaction failed" unless it hears back within three seconds, and the
// answer edits a response that must exist by then.
func (a *Adapter) interact(ctx context.Context, ia *discordgo.Interaction, respond responder) {
	switch ia.Type {
	case discordgo.InteractionApplicationCommand:
		data, _ := ia.Data.(discordgo.ApplicationCommandInteractionData)
		switch {
		case data.Name == ingestName && a.cfg.Ingest != nil:
			a.ingest(ctx, ia, respond)
		case data.Name == settingsName && a.cfg.Channels != nil:
			a.settings(ctx, ia, respond)
		default:
			a.ask(ctx, ia, respond)
		}
	case discordgo.InteractionApplicationCommandAutocomplete:
		a.autocomplete(ctx, ia, respond)
	case discordgo.InteractionMessageComponent:
		data, _ := ia.Data.(discordgo.MessageComponentInteractionData)
		if id, ok := strings.CutPrefix(data.CustomID, sharePrefix); ok && id != "" {
			a.share(ctx, ia, respond, id)
			return
		}
		if id, voted, ok := parseExpert(data.CustomID); ok {
			a.askExpert(ctx, ia, respond, id, voted)
			return
		}
		if id, ok := strings.CutPrefix(data.CustomID, savePrefix); ok && id != "" {
			a.saveAnswer(ctx, ia, respond, id)
			return
		}
		a.vote(ctx, ia, respond)
	default:
		a.log.Debug("interaction ignored", "interaction", ia.ID, "type", ia.Type)
	}
}

// ask defers an /ask and submits the question.
func (a *Adapter) ask(ctx context.Context, ia *discordgo.Interaction, respond responder) {
	log := a.log.With("interaction", ia.ID, "channel", ia.ChannelID)
	text, ok := question(ia)
	user := userID(ia)
	if !ok || ia.ChannelID == "" || user == "" || ia.Token == "" {
		if err := respond(ephemeral(usageMessage)); err != nil {
			log.Warn("could not answer a malformed command", "err", err)
		}
		return
	}
	// A private answer is ephemeral from the start: the deferral's flags
	// decide what its edits and first follow-up show to whom. A private
	// channel's answers all are.
	deferral := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}
	set := a.channelSettings(ctx, ia.GuildID, ia.ChannelID)
	priv := wantsPrivate(ia) || set.Private
	if priv {
		deferral.Data = &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral}
	}
	if err := respond(deferral); err != nil {
		log.Error("could not acknowledge /ask", "err", err)
		return
	}
	if ia.AppID == "" {
		ia.AppID = a.cfg.AppID
	}
	r := &reply{a: a, channel: ia.ChannelID, guild: ia.GuildID, user: user, ia: ia, acked: time.Now(),
		// Sharing in a DM with the bot would show the answer to no one new.
		private: priv, share: priv && ia.Context != discordgo.InteractionContextBotDM}
	in := bot.Incoming{
		Platform:  platform,
		EventID:   ia.ID,
		Workspace: ia.GuildID,
		Channel:   ia.ChannelID,
		Thread:    ia.ChannelID,
		Sent:      sent(ia.ID),
		User:      user,
		Text:      text,
		Sources:   set.Sources,
	}
	in = converse(in)
	if priv {
		in.Conversation += privateConversation
	}
	a.submit(ctx, in, r)
}

// privateConversation ends the conversation of questions asked privately
// (/ask private:true, or in a private channel): they continue one another and not the asker's
// questions in the open, and are never suggested to others.
const privateConversation = ":private"

// sent is when the message or interaction id was made: Discord's ids
// are snowflakes that carry it, in milliseconds since 2015. Zero for an
// id that is not one, or carries no time.
func sent(id string) time.Time {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n>>22 == 0 {
		return time.Time{}
	}
	t, err := discordgo.SnowflakeTimestamp(id)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// conversationIdle is how long an asker's conversation in a Discord
// channel survives without a question from them.
const conversationIdle = 30 * time.Minute

// converse makes a question continue its asker's conversation in its
// channel, and no one else's. A Discord channel, or a thread (a channel of
// its own), holds everyone's questions, so the conversation is keyed by the
// channel and the asker; a reply to one of the bot's answers is in the same
// channel, so the asker's reply continues their conversation, and someone
// else's reply starts or continues theirs. A conversation ends after
// conversationIdle without a question: Discord does not say on a message
// whether its channel is a thread, so threads idle out too.
func converse(in bot.Incoming) bot.Incoming {
	in.Conversation = in.User
	in.MaxIdle = conversationIdle
	return in
}

// submit queues a question and tells the asker privately if it was not taken.
func (a *Adapter) submit(ctx context.Context, in bot.Incoming, r *reply) {
	err := a.d.Submit(ctx, in, r)
	if errors.Is(err, bot.ErrDuplicate) {
		a.log.Debug("duplicate delivery ignored", "event", in.EventID, "message", in.MessageID)
	}
	tell, ok := bot.Refusal(err)
	if !ok {
		return
	}
	a.log.Info("question not taken", "err", err)
	// The request that brought the question may be over; the asker still
	// deserves to hear why there is no answer.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := r.Private(ctx, tell); err != nil {
		a.log.Error("could not tell the asker", "err", err)
	}
}

// vote records a feedback button press and thanks the voter privately.
func (a *Adapter) vote(ctx context.Context, ia *discordgo.Interaction, respond responder) {
	resp := ephemeral(staleButton)
	data, ok := ia.Data.(discordgo.MessageComponentInteractionData)
	if answerID, v, ok2 := parseVote(data.CustomID); ok && ok2 {
		// The response is due within three seconds; a vote that cannot be
		// stored by then is reported as failed.
		vctx, cancel := context.WithTimeout(ctx, pressTimeout)
		err := a.d.Vote(vctx, answerID, userID(ia), v)
		cancel()
		switch {
		case err != nil:
			a.log.Error("could not record a vote", "answer", answerID, "err", err)
			resp = ephemeral(noVoteMessage)
		case v < 0 && a.cfg.Experts != nil:
			resp = votedDown(answerID, thanksMessage) // not helpful: a person may be
		default:
			resp = ephemeral(thanksMessage)
		}
	}
	if err := respond(resp); err != nil {
		a.log.Warn("could not answer a button", "err", err)
	}
}

// ephemeral is an immediate response only the user sees.
func ephemeral(text string) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{
			Content:         clip(text, maxContent),
			Flags:           discordgo.MessageFlagsEphemeral,
			AllowedMentions: noMentions(),
		},
	}
}

// Handler serves POST /discord/interactions, the endpoint Discord calls in
// http mode. Requests must carry a valid Ed25519 signature of the
// application's key (401 otherwise); PING is answered with PONG.
func (a *Adapter) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /discord/interactions", a.serveInteraction)
	return mux
}

func (a *Adapter) serveInteraction(w http.ResponseWriter, req *http.Request) {
	if a.pub == nil {
		http.Error(w, "interactions endpoint needs DISCORD_MODE=http", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
	if err != nil {
		http.Error(w, "could not read the body", http.StatusBadRequest)
		return
	}
	if len(body) > maxBody {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	if !verify(a.pub, req.Header, body) {
		http.Error(w, "invalid request signature", http.StatusUnauthorized)
		return
	}
	ia, err := parseInteraction(body)
	if err != nil {
		http.Error(w, "not an interaction", http.StatusBadRequest)
		return
	}
	if ia.Type == discordgo.InteractionPing {
		writeResponse(w, &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong})
		return
	}
	switch ia.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete, discordgo.InteractionMessageComponent:
	default:
		http.Error(w, "unsupported interaction type", http.StatusBadRequest)
		return
	}
	responded := false
	a.interact(req.Context(), ia, func(resp *discordgo.InteractionResponse) error {
		responded = true
		return writeResponse(w, resp)
	})
	if !responded {
		http.Error(w, "unsupported interaction", http.StatusBadRequest)
	}
}

// maxSkew is how old (or early) a signed request may be. Discord signs
// each delivery afresh; an old one is a replay, which could otherwise make
// the bot answer again in the channel once the dispatcher has forgotten
// the interaction.
const maxSkew = 5 * time.Minute

// verify checks Discord's signature: Ed25519 over the timestamp header
// followed by the raw body, with a timestamp (Unix seconds) within maxSkew.
func verify(pub ed25519.PublicKey, h http.Header, body []byte) bool {
	sig, err := hex.DecodeString(h.Get("X-Signature-Ed25519"))
	ts := h.Get("X-Signature-Timestamp")
	if err != nil || len(sig) != ed25519.SignatureSize || ts == "" {
		return false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > maxSkew {
		return false
	}
	msg := make([]byte, 0, len(ts)+len(body))
	msg = append(append(msg, ts...), body...)
	return ed25519.Verify(pub, msg, sig)
}

// writeResponse sends the interaction response and flushes it, so that
// Discord has its acknowledgement before the handler goes on to queue work.
func writeResponse(w http.ResponseWriter, resp *discordgo.InteractionResponse) error {
	b, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(b); err != nil {
		return err
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

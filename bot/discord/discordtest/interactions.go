package discordtest

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"time"
)

// Interaction types.
const (
	InteractionPing         = 1
	InteractionCommand      = 2
	InteractionComponent    = 3
	InteractionAutocomplete = 4
)

// Interaction contexts: where an interaction was used.
const (
	ContextGuild          = 0 // a server's channel
	ContextBotDM          = 1 // a DM with the bot
	ContextPrivateChannel = 2 // a group DM, or a DM between other people (a user-installed bot)
)

// Interaction is an interaction as Discord sends it, over the gateway or
// to an HTTP endpoint; its fields are Discord's JSON fields.
type Interaction struct {
	ID            string         `json:"id"`
	ApplicationID string         `json:"application_id"`
	Type          int            `json:"type"`
	Token         string         `json:"token"`
	Version       int            `json:"version"`
	GuildID       string         `json:"guild_id,omitempty"`
	ChannelID     string         `json:"channel_id,omitempty"`
	Member        *Member        `json:"member,omitempty"`
	User          *User          `json:"user,omitempty"`
	Data          map[string]any `json:"data,omitempty"`
	Message       *Message       `json:"message,omitempty"`
	// Context is where it was used (ContextGuild…), and
	// AuthorizingIntegrationOwners who installed the bot that it reached:
	// "0" (a server install) to the server's id, or "0" in a DM with the
	// bot; "1" (a user install) to the user's id.
	Context                      int               `json:"context"`
	AuthorizingIntegrationOwners map[string]string `json:"authorizing_integration_owners,omitempty"`
}

// Member is a guild member: the user behind a guild interaction.
// Its fields are Discord's JSON fields.
type Member struct {
	User  User     `json:"user"`
	Roles []string `json:"roles"`
	// Permissions are the member's permissions in the interaction's
	// channel, overwrites included: a bitfield as a decimal string.
	Permissions string `json:"permissions"`
}

// Permission bits of Member.Permissions.
const (
	PermissionAdministrator  = 1 << 3
	PermissionManageChannels = 1 << 4
	// PermissionsMember is what a member without a role of note has:
	// view channels, send messages and read their history, use commands.
	PermissionsMember = 1<<10 | 1<<11 | 1<<16 | 1<<31
)

// WithPermissions sets the permissions of an interaction's member (see
// Permission*), and returns ia.
func (ia *Interaction) WithPermissions(p int64) *Interaction {
	if ia.Member != nil {
		ia.Member.Permissions = strconv.FormatInt(p, 10)
	}
	return ia
}

// Settings returns /switchboard settings used by user in a guild
// channel, with options (name → a string or a bool), as Discord sends a
// subcommand's options; user has PermissionsMember.
func (s *Server) Settings(guild, channel, user string, options map[string]any) *Interaction {
	ia := s.newInteraction(InteractionCommand, guild, channel, user)
	names := make([]string, 0, len(options))
	for name := range options {
		names = append(names, name)
	}
	sort.Strings(names)
	opts := []any{}
	for _, name := range names {
		typ := optionString
		if _, ok := options[name].(bool); ok {
			typ = optionBoolean
		}
		opts = append(opts, map[string]any{"name": name, "type": typ, "value": options[name]})
	}
	ia.Data = map[string]any{
		"id": s.lockedID(), "name": "switchboard", "type": 1,
		"options": []any{map[string]any{"name": "settings", "type": optionSubcommand, "options": opts}},
	}
	return ia
}

// Ask returns an /ask question:<text> command used by user in a guild
// channel (or a thread, which is a channel too).
func (s *Server) Ask(guild, channel, user, question string) *Interaction {
	ia := s.newInteraction(InteractionCommand, guild, channel, user)
	ia.Data = map[string]any{
		"id": s.lockedID(), "name": "ask", "type": 1,
		"options": []any{map[string]any{"name": "question", "type": optionString, "value": question}},
	}
	return ia
}

// Privately adds private:True to an /ask, as Discord sends a boolean
// option, and returns it.
func (ia *Interaction) Privately() *Interaction {
	opts, _ := ia.Data["options"].([]any)
	ia.Data["options"] = append(opts, map[string]any{"name": "private", "type": optionBoolean, "value": true})
	return ia
}

// InDM moves an interaction into user's DM with the bot, as Discord sends
// it there: no guild_id, the user in "user" rather than in "member", the
// bot's DM context. It returns ia.
func (ia *Interaction) InDM() *Interaction {
	if ia.Member != nil {
		u := ia.Member.User
		ia.User, ia.Member = &u, nil
	}
	ia.GuildID, ia.Context = "", ContextBotDM
	ia.AuthorizingIntegrationOwners = map[string]string{"0": "0"}
	return ia
}

// Autocomplete returns the APPLICATION_COMMAND_AUTOCOMPLETE Discord sends
// as user types /ask's question: the options so far, the one being typed
// marked focused.
func (s *Server) Autocomplete(guild, channel, user, typed string) *Interaction {
	ia := s.newInteraction(InteractionAutocomplete, guild, channel, user)
	ia.Data = map[string]any{
		"id": s.lockedID(), "name": "ask", "type": 1,
		"options": []any{map[string]any{"name": "question", "type": optionString, "value": typed, "focused": true}},
	}
	return ia
}

// Press returns a button press (MESSAGE_COMPONENT) on a message.
func (s *Server) Press(m Message, user, customID string) *Interaction {
	ia := s.newInteraction(InteractionComponent, m.GuildID, m.ChannelID, user)
	ia.Data = map[string]any{"custom_id": customID, "component_type": componentButton}
	ia.Message = &m
	return ia
}

// Ping returns the PING Discord sends to check an endpoint.
func (s *Server) Ping() *Interaction {
	return &Interaction{ID: s.lockedID(), ApplicationID: s.AppID, Type: InteractionPing, Token: "ping-" + s.lockedID(), Version: 1}
}

func (s *Server) newInteraction(typ int, guild, channel, user string) *Interaction {
	id := s.lockedID()
	return &Interaction{
		ID: id, ApplicationID: s.AppID, Type: typ, Token: "token-" + id + "-" + hex.EncodeToString(s.pub[:4]), Version: 1,
		GuildID: guild, ChannelID: channel,
		Member: &Member{User: User{ID: user, Username: "user" + user}, Roles: []string{},
			Permissions: strconv.FormatInt(PermissionsMember, 10)},
		Context:                      ContextGuild,
		AuthorizingIntegrationOwners: map[string]string{"0": guild},
	}
}

func (s *Server) lockedID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id()
}

// UserMessage returns a message by user in a guild channel; with
// mention, it starts by mentioning the bot as Discord clients write it.
func (s *Server) UserMessage(guild, channel, user, text string, mention bool) Message {
	m := Message{
		ID: s.lockedID(), ChannelID: channel, GuildID: guild,
		Author:  User{ID: user, Username: "user" + user},
		Content: text, Mentions: []User{}, MentionRoles: []string{},
	}
	if mention {
		m.Content = "<@" + s.Bot.ID + "> " + text
		m.Mentions = []User{s.Bot}
	}
	return m
}

// delivered registers an interaction as sent now.
func (s *Server) delivered(ia *Interaction) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := &interaction{id: ia.ID, typ: ia.Type, token: ia.Token, channel: ia.ChannelID, guild: ia.GuildID, delivered: time.Now()}
	switch {
	case ia.Member != nil:
		d.user = ia.Member.User
	case ia.User != nil:
		d.user = *ia.User
	}
	if ia.Message != nil {
		d.message = ia.Message.ID
	}
	s.byToken[ia.Token] = d
}

// Response is an HTTP endpoint's answer to a delivered interaction.
type Response struct {
	Status int    // HTTP status
	Type   int    // the interaction response type, when Status is 200
	Body   []byte // as sent
}

// Sign returns the X-Signature-Ed25519 of body at timestamp, made with the
// application's private key as Discord does.
func (s *Server) Sign(timestamp string, body []byte) string {
	return hex.EncodeToString(ed25519.Sign(s.key, append([]byte(timestamp), body...)))
}

// Deliver signs ia and POSTs it to an HTTP interactions endpoint, as
// Discord does; a 200 response is then applied as the interaction's
// response (type 5 shows "thinking…", type 4 a message, type 7 updates
// the pressed message, type 8 lists autocomplete choices).
func (s *Server) Deliver(url string, ia *Interaction) (Response, error) {
	body, err := json.Marshal(ia)
	if err != nil {
		return Response{}, err
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	if ia.Type != InteractionPing {
		s.delivered(ia)
	}
	resp, err := s.DeliverRaw(url, body, s.Sign(ts, body), ts)
	if err != nil || resp.Status != http.StatusOK || ia.Type == InteractionPing {
		return resp, err
	}
	if status, v := s.respond(ia.ID, ia.Token, resp.Body); status != http.StatusNoContent {
		return resp, fmt.Errorf("discordtest: the endpoint's response was refused: %d %+v", status, v)
	}
	return resp, nil
}

// DeliverRaw POSTs body with the given signature headers and returns the
// endpoint's answer without acting on it.
func (s *Server) DeliverRaw(url string, body []byte, signature, timestamp string) (Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Response{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Discord-Interactions/1.0 (+https://discord.com)")
	req.Header.Set("X-Signature-Ed25519", signature)
	req.Header.Set("X-Signature-Timestamp", timestamp)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, err
	}
	out := Response{Status: resp.StatusCode, Body: b}
	if resp.StatusCode == http.StatusOK {
		var v struct {
			Type int `json:"type"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return out, fmt.Errorf("discordtest: endpoint answered %q: %w", b, err)
		}
		out.Type = v.Type
	}
	return out, nil
}

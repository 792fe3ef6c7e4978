package discord

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
)

// address is where a question's view is shown in Discord, as another
// replica needs it to go on showing it (bot.Config.Questions): the
// interaction's webhook while its token lasts (15 minutes from the
// deferral), else the channel message that shows the view.
type address struct {
	Channel string    `json:"channel"`
	Guild   string    `json:"guild,omitempty"`
	User    string    `json:"user"`
	AppID   string    `json:"app_id,omitempty"`
	Token   string    `json:"token,omitempty"` // the interaction's; empty for a mention
	Acked   time.Time `json:"acked,omitzero"`
	ReplyTo string    `json:"reply_to,omitempty"`
	Shown   bool      `json:"shown,omitempty"`
	Gone    bool      `json:"gone,omitempty"`
	Posted  string    `json:"posted,omitempty"`
	Private bool      `json:"private,omitempty"`
	Share   bool      `json:"share,omitempty"`
	DM      string    `json:"dm,omitempty"`
}

// Address implements bot.Addressed.
func (r *reply) Address() ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ad := address{Channel: r.channel, Guild: r.guild, User: r.user, Acked: r.acked, ReplyTo: r.replyTo,
		Shown: r.shown, Gone: r.gone, Posted: r.posted, Private: r.private, Share: r.share, DM: r.dm}
	if r.ia != nil {
		ad.AppID, ad.Token = r.ia.AppID, r.ia.Token
	}
	return json.Marshal(ad)
}

// Resume implements bot.Resumer: the reply of a question whose view
// another replica (or this one, before a restart) showed.
func (a *Adapter) Resume(_ string, addr []byte) (bot.Replier, error) {
	var ad address
	if err := json.Unmarshal(addr, &ad); err != nil {
		return nil, fmt.Errorf("discord: resume a question: %w", err)
	}
	if ad.Channel == "" || ad.User == "" {
		return nil, fmt.Errorf("discord: resume a question: address %s names no channel or asker", addr)
	}
	r := &reply{a: a, channel: ad.Channel, guild: ad.Guild, user: ad.User, acked: ad.Acked, replyTo: ad.ReplyTo,
		shown: ad.Shown, gone: ad.Gone, posted: ad.Posted, private: ad.Private, share: ad.Share, dm: ad.DM}
	if ad.Token != "" {
		r.ia = &discordgo.Interaction{AppID: ad.AppID, Token: ad.Token}
	}
	return r, nil
}

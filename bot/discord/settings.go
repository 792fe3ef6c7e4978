package discord

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/channels"
)

// This file serves /switchboard settings (issue 26): the channel's
// settings as command options, answered to the user alone with what the
// settings are after the change. Without options it shows them. Only
// members whose permissions in the channel include Manage Channels or
// Administrator (the interaction's member.permissions), or the users
// Config.SettingsAdmin names, may change them; anyone may look.

// The /switchboard command, its settings subcommand and their options.
const (
	settingsName     = "switchboard"
	settingsSub      = "settings"
	sourcesOption    = "sources"
	repliesOption    = "replies"
	settingsPrivate  = "private"
	expertsOption    = "experts"
	everySource      = "all"  // sources:all clears a channel's sources
	noExperts        = "none" // experts:none clears its experts
	settingsTimeout  = 2500 * time.Millisecond
	settingsChangers = discordgo.PermissionManageChannels | discordgo.PermissionAdministrator
)

// settingsCommand is /switchboard settings [sources] [replies] [private]
// [experts], for the channels of servers that installed the bot.
func settingsCommand() *discordgo.ApplicationCommand {
	var modes []*discordgo.ApplicationCommandOptionChoice
	for _, r := range []channels.Replies{channels.RepliesMention, channels.RepliesAsker, channels.RepliesAnyone, channels.RepliesAll} {
		modes = append(modes, &discordgo.ApplicationCommandOptionChoice{Name: bot.RepliesChoice(r), Value: string(r)})
	}
	str := discordgo.ApplicationCommandOptionString
	sub := discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommand, Name: settingsSub,
		Description: "Show this channel's settings, or change them (Manage Channels)",
		Options: []*discordgo.ApplicationCommandOption{
			{Type: str, Name: sourcesOption, Description: "Ingest key prefixes, chat channels, graph or web, by commas; all: every source"},
			{Type: str, Name: repliesOption, Description: "Which messages I answer", Choices: modes},
			{Type: discordgo.ApplicationCommandOptionBoolean, Name: settingsPrivate, Description: bot.SettingsPrivateHint},
			{Type: str, Name: expertsOption, Description: "Users or roles to ask when I cannot answer (mentions or ids); none: no one"},
		}}
	cmd := command(settingsName, "Switchboard in this channel", sub)
	cmd.Contexts = &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild}
	cmd.IntegrationTypes = &[]discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall}
	return cmd
}

// errNotSettings is parseSettingsOptions' answer to another command.
var errNotSettings = errors.New("discord: not /switchboard settings")

// parseSettingsOptions applies the options of a /switchboard settings
// interaction to the channel's settings cur: options not given keep
// their value. changed is false when none was given. The result passes
// channels.Settings.Check, else err says why.
func parseSettingsOptions(ia *discordgo.Interaction, cur channels.Settings) (s channels.Settings, changed bool, err error) {
	data, ok := ia.Data.(discordgo.ApplicationCommandInteractionData)
	if !ok || data.Name != settingsName || len(data.Options) != 1 || data.Options[0] == nil || data.Options[0].Name != settingsSub {
		return cur, false, errNotSettings
	}
	s = cur
	for _, o := range data.Options[0].Options {
		if o == nil {
			continue
		}
		text, _ := o.Value.(string)
		switch o.Name {
		case sourcesOption:
			s.Sources = nil
			if strings.TrimSpace(text) != everySource {
				s.Sources = channels.ParseList(text)
			}
		case repliesOption:
			if s.Replies, err = channels.ParseReplies(text); err != nil {
				return cur, false, err
			}
		case settingsPrivate:
			s.Private, _ = o.Value.(bool)
		case expertsOption:
			s.Experts = nil
			if strings.TrimSpace(text) != noExperts {
				s.Experts = expertIDs(text)
			}
		default:
			continue
		}
		changed = true
	}
	if err := s.Check(); err != nil {
		return cur, false, err
	}
	return s, changed, nil
}

// expertIDs reads experts as Discord writes them in a message or people
// type them: user mentions (<@123>, <@!123>) or ids are kept as the
// user's id, role mentions (<@&456>) as "&456", so that a role is never
// taken for a user with the same id when the experts are mentioned.
func expertIDs(text string) []string {
	var out []string
	for _, f := range channels.ParseList(strings.NewReplacer("><", "> <").Replace(text)) {
		if inner, ok := strings.CutPrefix(f, "<@"); ok {
			f = strings.TrimSuffix(strings.TrimPrefix(inner, "!"), ">")
		}
		if f != "" && f != "&" {
			out = append(out, f)
		}
	}
	return out
}

// settings answers /switchboard settings: with options, for a member
// who may change them, the change saved; then, and without options, the
// channel's settings, to the user alone.
func (a *Adapter) settings(ctx context.Context, ia *discordgo.Interaction, respond responder) {
	log := a.log.With("interaction", ia.ID, "channel", ia.ChannelID)
	tell := func(text string) {
		if err := respond(ephemeral(text)); err != nil {
			log.Warn("could not answer /switchboard settings", "err", err)
		}
	}
	user := userID(ia)
	if ia.GuildID == "" || ia.ChannelID == "" || user == "" {
		tell(bot.SettingsFailed)
		return
	}
	// The response is due within three seconds.
	ctx, cancel := context.WithTimeout(ctx, settingsTimeout)
	defer cancel()
	cur, err := a.cfg.Channels.Settings(ctx, ia.ChannelID)
	if err != nil {
		log.Error("could not read a channel's settings", "err", err)
		tell(bot.SettingsFailed)
		return
	}
	s, changed, err := parseSettingsOptions(ia, cur)
	switch {
	case err != nil:
		tell(err.Error())
		return
	case !changed:
		tell(bot.SettingsSummary(cur))
		return
	case !a.maySetSettings(ia, user):
		log.Info("settings change refused", "user", user)
		tell(bot.SettingsNotAllowedDiscord)
		return
	}
	s.ChangedBy, s.ChangedAt = platform+":"+user, time.Now()
	if err := a.cfg.Channels.SetSettings(ctx, s); err != nil {
		log.Error("could not save a channel's settings", "err", err)
		tell(bot.SettingsFailed)
		return
	}
	log.Info("channel settings changed", "by", s.ChangedBy)
	tell(bot.SettingsSaved(s))
}

// maySetSettings reports whether user may change the interaction's
// channel's settings: its member permissions there (Discord computes them
// with the channel's overwrites) include Manage Channels or
// Administrator, or Config.SettingsAdmin names them.
func (a *Adapter) maySetSettings(ia *discordgo.Interaction, user string) bool {
	if a.cfg.SettingsAdmin != nil && a.cfg.SettingsAdmin(user) {
		return true
	}
	return ia.Member != nil && ia.Member.Permissions&settingsChangers != 0
}

// channelSettings are the settings of the channel of a question; a direct
// message has none.
func (a *Adapter) channelSettings(ctx context.Context, guild, channel string) channels.Settings {
	if guild == "" {
		return channels.Settings{Channel: channel}
	}
	return bot.SettingsOf(ctx, a.cfg.Channels, channel, a.log)
}

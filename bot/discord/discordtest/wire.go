package discordtest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// User is a Discord user as the fake sends it.
type User struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Bot      bool   `json:"bot,omitempty"`
}

// Message is a message the fake holds: posted by a user (MESSAGE_CREATE),
// by the bot in a channel, or through an interaction's webhook. The fields
// with JSON names are Discord's; the others are what the fake observed.
type Message struct {
	ID         string      `json:"id"`
	ChannelID  string      `json:"channel_id"`
	GuildID    string      `json:"guild_id,omitempty"`
	Author     User        `json:"author"`
	Content    string      `json:"content"`
	Embeds     []Embed     `json:"embeds"`
	Components []Component `json:"components"`
	Flags      int         `json:"flags"`
	Mentions   []User      `json:"mentions"`
	Reference  *Reference  `json:"message_reference,omitempty"`
	Type       int         `json:"type"`
	// MentionRoles and MentionEveryone are the roles, and @everyone or
	// @here, the message mentions.
	MentionRoles    []string `json:"mention_roles"`
	MentionEveryone bool     `json:"mention_everyone"`
	// ReferencedMessage is, on a reply's MESSAGE_CREATE, the message it
	// replies to; Interaction, on a message an interaction's webhook
	// made, the interaction and who used it.
	ReferencedMessage *Message             `json:"referenced_message,omitempty"`
	Interaction       *InteractionMetadata `json:"interaction_metadata,omitempty"`
	// Timestamp and EditedTimestamp (ISO 8601) and Attachments are set on
	// messages of the history (history.go).
	Timestamp       string       `json:"timestamp,omitempty"`
	EditedTimestamp string       `json:"edited_timestamp,omitempty"`
	Attachments     []Attachment `json:"attachments,omitempty"`

	// What the fake knows beyond the message itself.
	Token    string `json:"-"` // the interaction whose webhook made it; "" for channel messages
	Original bool   `json:"-"` // the interaction's original response
	Deferred bool   `json:"-"` // still showing "thinking…"
	Deleted  bool   `json:"-"` // deleted by the bot
	Edits    int    `json:"-"` // times edited since it was made
	// AllowedMentions is the allowed_mentions of the last create or edit.
	AllowedMentions json.RawMessage `json:"-"`
}

// Ephemeral reports whether only the asker sees the message.
func (m Message) Ephemeral() bool { return m.Flags&flagEphemeral != 0 }

// Text is all the text the message shows, for assertions.
func (m Message) Text() string {
	parts := []string{m.Content}
	for _, e := range m.Embeds {
		parts = append(parts, e.Title, e.Description)
		for _, f := range e.Fields {
			parts = append(parts, f.Name, f.Value)
		}
		if e.Footer != nil {
			parts = append(parts, e.Footer.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Mentions in a message's content, as Discord reads them.
var (
	userMention = regexp.MustCompile(`<@!?([0-9]+)>`)
	roleMention = regexp.MustCompile(`<@&([0-9]+)>`)
	massMention = regexp.MustCompile(`@(everyone|here)`)
)

// Pings returns whom the message notifies, as Discord decides it: the
// users and roles its content mentions that its allowed_mentions lets
// through ("parse" of their type, or their id listed; every mention when
// it has no allowed_mentions), and whether @everyone or @here does.
// Embeds notify nobody.
func (m Message) Pings() (users, roles []string, everyone bool) {
	var am struct {
		Parse []string `json:"parse"`
		Users []string `json:"users"`
		Roles []string `json:"roles"`
	}
	all := len(m.AllowedMentions) == 0 || string(m.AllowedMentions) == "null"
	if !all {
		_ = json.Unmarshal(m.AllowedMentions, &am)
	}
	lets := func(kind, id string, ids []string) bool {
		return all || slices.Contains(am.Parse, kind) || slices.Contains(ids, id)
	}
	for _, sub := range userMention.FindAllStringSubmatch(m.Content, -1) {
		if lets("users", sub[1], am.Users) && !slices.Contains(users, sub[1]) {
			users = append(users, sub[1])
		}
	}
	for _, sub := range roleMention.FindAllStringSubmatch(m.Content, -1) {
		if lets("roles", sub[1], am.Roles) && !slices.Contains(roles, sub[1]) {
			roles = append(roles, sub[1])
		}
	}
	everyone = massMention.MatchString(m.Content) && (all || slices.Contains(am.Parse, "everyone"))
	return users, roles, everyone
}

// Buttons returns the message's buttons, from all action rows.
func (m Message) Buttons() []Component {
	var out []Component
	for _, row := range m.Components {
		for _, c := range row.Components {
			if c.Type == componentButton {
				out = append(out, c)
			}
		}
	}
	return out
}

// InteractionMetadata is a message's interaction_metadata.
type InteractionMetadata struct {
	ID   string `json:"id"`
	Type int    `json:"type"`
	User User   `json:"user"`
}

// Reference is a message_reference: what a reply replies to.
type Reference struct {
	MessageID string `json:"message_id"`
	ChannelID string `json:"channel_id,omitempty"`
	GuildID   string `json:"guild_id,omitempty"`
}

// Embed is a rich embed.
type Embed struct {
	Type        string  `json:"type,omitempty"`
	Title       string  `json:"title,omitempty"`
	Description string  `json:"description,omitempty"`
	URL         string  `json:"url,omitempty"`
	Color       int     `json:"color,omitempty"`
	Fields      []Field `json:"fields,omitempty"`
	Footer      *Footer `json:"footer,omitempty"`
	Author      *Author `json:"author,omitempty"`
}

// Field is an embed field.
type Field struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Inline bool   `json:"inline,omitempty"`
}

// Footer is an embed footer.
type Footer struct {
	Text string `json:"text"`
}

// Author is an embed author.
type Author struct {
	Name string `json:"name"`
}

// Component is a message component: an action row or a button.
type Component struct {
	Type       int         `json:"type"`
	Style      int         `json:"style,omitempty"`
	Label      string      `json:"label,omitempty"`
	CustomID   string      `json:"custom_id,omitempty"`
	URL        string      `json:"url,omitempty"`
	Disabled   bool        `json:"disabled,omitempty"`
	Emoji      *Emoji      `json:"emoji,omitempty"`
	Components []Component `json:"components,omitempty"`
}

// Emoji is a component's emoji.
type Emoji struct {
	Name string `json:"name"`
}

// Callback is an interaction response the fake accepted.
type Callback struct {
	Type    int      // CallbackDeferred, CallbackMessage, CallbackUpdate…
	Content string   // of a CallbackMessage or CallbackUpdate
	Flags   int      // 64: ephemeral
	Embeds  []Embed  // of a CallbackMessage or CallbackUpdate
	Choices []Choice // of a CallbackAutocomplete
}

// Choice is an autocomplete choice: what the user sees, and what the
// option is then set to.
type Choice struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// validChoices checks Discord's limits on autocomplete choices.
func validChoices(choices []Choice) error {
	if len(choices) > maxChoices {
		return fmt.Errorf("data.choices: must be %d or fewer in length", maxChoices)
	}
	for i, c := range choices {
		v, ok := c.Value.(string)
		switch {
		case c.Name == "" || units(c.Name) > maxChoice:
			return fmt.Errorf("data.choices.%d.name: must be between 1 and %d in length", i, maxChoice)
		case !ok || units(v) > maxChoice:
			return fmt.Errorf("data.choices.%d.value: a string option's choice is a string of %d or fewer", i, maxChoice)
		}
	}
	return nil
}

// Ephemeral reports whether the response was only for the user.
func (c Callback) Ephemeral() bool { return c.Flags&flagEphemeral != 0 }

// Call is one REST request the fake received.
type Call struct {
	Method string
	Path   string // after the API prefix, e.g. "/channels/1/messages"
	Status int    // what the fake answered
	Body   []byte // the request body
}

// Command is an application command as registered. Contexts and
// IntegrationTypes (nil when not sent) say where it may be used and for
// which installs: see Context* and Install*.
type Command struct {
	ID               string          `json:"id"`
	Name             string          `json:"name"`
	Description      string          `json:"description"`
	Type             int             `json:"type,omitempty"`
	Options          []CommandOption `json:"options"`
	Contexts         *[]int          `json:"contexts,omitempty"`
	IntegrationTypes *[]int          `json:"integration_types,omitempty"`
}

// Installs of an application, in a command's integration_types.
const (
	InstallGuild = 0
	InstallUser  = 1
)

// CommandOption is an option of a command.
type CommandOption struct {
	Type         int    `json:"type"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Required     bool   `json:"required"`
	Autocomplete bool   `json:"autocomplete,omitempty"`
	// Options are a subcommand's; Choices the values a user picks from.
	Options []CommandOption `json:"options,omitempty"`
	Choices []Choice        `json:"choices,omitempty"`
}

// validate checks what Discord checks of a command: options named and
// described, the required before the others, autocomplete on text and
// numbers only, and known contexts and installs.
func (c Command) validate() error {
	if c.Name == "" || c.Description == "" || len(c.Description) > 100 {
		return fmt.Errorf("name and description (≤100) are required")
	}
	if err := validOptions(c.Options, true); err != nil {
		return err
	}
	for _, list := range []*[]int{c.Contexts, c.IntegrationTypes} {
		if list == nil {
			continue
		}
		for _, v := range *list {
			if v < 0 || v > ContextPrivateChannel || (list == c.IntegrationTypes && v > InstallUser) {
				return fmt.Errorf("contexts and integration_types: %d is not a valid value", v)
			}
		}
	}
	return nil
}

// validOptions checks a command's options, or a subcommand's (top
// false): named and described, the required first, autocomplete on text
// and numbers only and not with choices, at most 25 choices, and
// subcommands at the top only.
func validOptions(opts []CommandOption, top bool) error {
	optional := false
	for i, o := range opts {
		switch {
		case o.Name == "" || o.Description == "" || units(o.Description) > 100:
			return fmt.Errorf("options.%d: name and description (≤100) are required", i)
		case o.Required && optional:
			return fmt.Errorf("options.%d: required options must be placed before non-required options", i)
		case o.Autocomplete && o.Type != optionString && o.Type != optionInteger && o.Type != optionNumber:
			return fmt.Errorf("options.%d.autocomplete: only string, integer and number options autocomplete", i)
		case o.Autocomplete && len(o.Choices) > 0:
			return fmt.Errorf("options.%d.autocomplete: an option with choices cannot autocomplete", i)
		case len(o.Choices) > maxChoices:
			return fmt.Errorf("options.%d.choices: must be %d or fewer in length", i, maxChoices)
		case o.Type == optionSubcommand && !top:
			return fmt.Errorf("options.%d: a subcommand's options cannot be subcommands", i)
		case o.Type != optionSubcommand && len(o.Options) > 0:
			return fmt.Errorf("options.%d.options: only subcommands have options", i)
		}
		for j, c := range o.Choices {
			if c.Name == "" || units(c.Name) > maxChoice {
				return fmt.Errorf("options.%d.choices.%d.name: must be between 1 and %d in length", i, j, maxChoice)
			}
		}
		if o.Type == optionSubcommand {
			if err := validOptions(o.Options, false); err != nil {
				return fmt.Errorf("options.%d.%w", i, err)
			}
		}
		optional = optional || !o.Required
	}
	return nil
}

// Identify is what a gateway client identified with.
type Identify struct {
	Token   string `json:"token"`
	Intents int    `json:"intents"`
}

// Wire constants of Discord's API. Discord's objects above carry their JSON
// field names; their Go fields need no more explanation than Discord's
// documentation gives.
const (
	flagEphemeral   = 64
	componentRow    = 1
	componentButton = 2

	// Interaction callback types.
	CallbackPong           = 1
	CallbackMessage        = 4
	CallbackDeferred       = 5
	CallbackDeferredUpdate = 6
	CallbackUpdate         = 7
	CallbackAutocomplete   = 8

	// Command option types.
	optionSubcommand = 1
	optionString     = 3
	optionInteger    = 4
	optionBoolean    = 5
	optionNumber     = 10

	// Gateway intents the adapter needs for mentions and direct messages.
	IntentGuildMessages  = 1 << 9
	IntentDirectMessages = 1 << 12
	IntentMessageContent = 1 << 15
)

// Discord's limits on one message.
const (
	maxContent     = 2000
	maxEmbeds      = 10
	maxTitle       = 256
	maxDescription = 4096
	maxFields      = 25
	maxFieldName   = 256
	maxFieldValue  = 1024
	maxFooter      = 2048
	maxEmbedTotal  = 6000
	maxRows        = 5
	maxCustomID    = 100
	maxLabel       = 80
	maxChoices     = 25
	maxChoice      = 100
)

// messageBody is a message create or edit request; absent fields are nil.
type messageBody struct {
	Content         *string         `json:"content"`
	Embeds          *[]Embed        `json:"embeds"`
	Components      *[]Component    `json:"components"`
	Flags           *int            `json:"flags"`
	Reference       *Reference      `json:"message_reference"`
	AllowedMentions json.RawMessage `json:"allowed_mentions"`
	Choices         *[]Choice       `json:"choices"` // an autocomplete result's
}

// empty reports whether the body would make an empty message.
func (b messageBody) empty() bool {
	return (b.Content == nil || *b.Content == "") &&
		(b.Embeds == nil || len(*b.Embeds) == 0) &&
		(b.Components == nil || len(*b.Components) == 0)
}

// validate checks Discord's limits, as Discord does with 400 Invalid Form
// Body. Lengths are in UTF-16 code units, as Discord (JavaScript) counts.
func (b messageBody) validate() error {
	if b.Content != nil && units(*b.Content) > maxContent {
		return fmt.Errorf("content: must be %d or fewer in length", maxContent)
	}
	if b.Embeds != nil {
		if len(*b.Embeds) > maxEmbeds {
			return fmt.Errorf("embeds: must be %d or fewer in length", maxEmbeds)
		}
		total := 0
		for i, e := range *b.Embeds {
			n := units(e.Title) + units(e.Description)
			switch {
			case units(e.Title) > maxTitle:
				return fmt.Errorf("embeds.%d.title: must be %d or fewer in length", i, maxTitle)
			case units(e.Description) > maxDescription:
				return fmt.Errorf("embeds.%d.description: must be %d or fewer in length", i, maxDescription)
			case len(e.Fields) > maxFields:
				return fmt.Errorf("embeds.%d.fields: must be %d or fewer in length", i, maxFields)
			}
			for j, f := range e.Fields {
				switch {
				case f.Name == "" || f.Value == "":
					return fmt.Errorf("embeds.%d.fields.%d: name and value are required", i, j)
				case units(f.Name) > maxFieldName:
					return fmt.Errorf("embeds.%d.fields.%d.name: must be %d or fewer in length", i, j, maxFieldName)
				case units(f.Value) > maxFieldValue:
					return fmt.Errorf("embeds.%d.fields.%d.value: must be %d or fewer in length", i, j, maxFieldValue)
				}
				n += units(f.Name) + units(f.Value)
			}
			if e.Footer != nil {
				if units(e.Footer.Text) > maxFooter {
					return fmt.Errorf("embeds.%d.footer.text: must be %d or fewer in length", i, maxFooter)
				}
				n += units(e.Footer.Text)
			}
			if e.Author != nil {
				n += units(e.Author.Name)
			}
			total += n
		}
		if total > maxEmbedTotal {
			return fmt.Errorf("embeds: embed size exceeds maximum size of %d", maxEmbedTotal)
		}
	}
	if b.Components != nil {
		if len(*b.Components) > maxRows {
			return fmt.Errorf("components: must be %d or fewer in length", maxRows)
		}
		for i, row := range *b.Components {
			if row.Type != componentRow || len(row.Components) == 0 || len(row.Components) > 5 {
				return fmt.Errorf("components.%d: an action row holds 1 to 5 components", i)
			}
			for j, c := range row.Components {
				switch {
				case c.Type != componentButton:
					return fmt.Errorf("components.%d.components.%d: only buttons are supported by the fake", i, j)
				case (c.CustomID == "") == (c.URL == ""):
					return fmt.Errorf("components.%d.components.%d: a button has a custom_id or a url", i, j)
				case len(c.CustomID) > maxCustomID:
					return fmt.Errorf("components.%d.components.%d.custom_id: must be %d or fewer in length", i, j, maxCustomID)
				case units(c.Label) > maxLabel:
					return fmt.Errorf("components.%d.components.%d.label: must be %d or fewer in length", i, j, maxLabel)
				}
			}
		}
	}
	return nil
}

// apply sets the fields present in b on m, as an edit does.
func (b messageBody) apply(m *Message) {
	if b.Content != nil {
		m.Content = *b.Content
	}
	if b.Embeds != nil {
		m.Embeds = append([]Embed(nil), *b.Embeds...)
	}
	if b.Components != nil {
		m.Components = append([]Component(nil), *b.Components...)
	}
	if b.AllowedMentions != nil {
		m.AllowedMentions = b.AllowedMentions
	}
}

func units(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// clone copies a message deeply enough for callers to keep.
func (m *Message) clone() Message {
	c := *m
	c.Embeds = append([]Embed(nil), m.Embeds...)
	c.Components = append([]Component(nil), m.Components...)
	c.Mentions = append([]User(nil), m.Mentions...)
	c.Attachments = append([]Attachment(nil), m.Attachments...)
	return c
}

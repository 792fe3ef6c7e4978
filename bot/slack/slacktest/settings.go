package slacktest

import (
	"encoding/json"
	"fmt"
	"net/url"
)

// This file fakes what the /switchboard settings command uses: users.info's
// roles (is_admin, is_owner, is_primary_owner), views.open, and the
// view_submission payload Slack sends when a modal is submitted.

// jsonBody is the form key under which serveAPI hands a JSON request body
// to the methods that take one.
const jsonBody = "\x00json"

// A person's role in the workspace, as users.info reports it.
const (
	RoleMember       = ""
	RoleAdmin        = "admin"
	RoleOwner        = "owner"
	RolePrimaryOwner = "primary_owner"
)

// adminsAndViews is the workspace's roles and the modals opened. Server.mu
// guards it.
type adminsAndViews struct {
	roles map[string]string // user id → role
	views []OpenedView
}

// OpenedView is a modal the app opened with views.open.
type OpenedView struct {
	ID        string
	TriggerID string
	// View is the view as the app sent it: its callback_id,
	// private_metadata and blocks.
	View struct {
		Type            string            `json:"type"`
		CallbackID      string            `json:"callback_id"`
		PrivateMetadata string            `json:"private_metadata"`
		Blocks          []json.RawMessage `json:"blocks"`
	}
}

// AddPerson adds a person with a role (RoleMember, RoleAdmin, …), as
// users.info reports them.
func (s *Server) AddPerson(id, name, role string) {
	s.AddUser(id, name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.admins.roles == nil {
		s.admins.roles = map[string]string{}
	}
	s.admins.roles[id] = role
}

// Views returns the modals the app opened, oldest first.
func (s *Server) Views() []OpenedView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]OpenedView(nil), s.admins.views...)
}

func (s *Server) settingsAPI(method string, f url.Values) (map[string]any, bool) {
	if method != "views.open" {
		return nil, false
	}
	var req struct {
		TriggerID string          `json:"trigger_id"`
		View      json.RawMessage `json:"view"`
	}
	if err := json.Unmarshal([]byte(f.Get(jsonBody)), &req); err != nil {
		return fail("invalid_json"), true
	}
	if req.TriggerID == "" {
		return fail("invalid_trigger_id"), true
	}
	var v OpenedView
	if err := json.Unmarshal(req.View, &v.View); err != nil || v.View.Type != "modal" {
		return fail("invalid_arguments"), true
	}
	if len(v.View.Blocks) == 0 || len(v.View.Blocks) > 100 {
		return fail("invalid_arguments"), true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	v.ID, v.TriggerID = fmt.Sprintf("V%08d", s.ids), req.TriggerID
	s.admins.views = append(s.admins.views, v)
	return map[string]any{"ok": true, "view": map[string]any{"id": v.ID, "type": "modal",
		"callback_id": v.View.CallbackID, "private_metadata": v.View.PrivateMetadata}}, true
}

// Input is what a person entered in one input block of a modal: a text
// (plain_text_input), a selected option (static_select) or the options
// ticked (checkboxes).
type Input struct {
	Text     *string
	Selected string
	Ticked   []string
}

// Typed, Chosen and Ticked are the inputs of each kind.
func Typed(text string) Input       { return Input{Text: &text} }
func Chosen(value string) Input     { return Input{Selected: value} }
func Ticked(values ...string) Input { return Input{Ticked: values} }

// ViewSubmission is the view_submission payload Slack sends when user
// submits the modal v with the inputs given by block id; each block's
// element is read from the view as opened, as Slack keys state.values by
// block_id and action_id.
func (s *Server) ViewSubmission(user string, v OpenedView, inputs map[string]Input) map[string]any {
	values := map[string]any{}
	for _, raw := range v.View.Blocks {
		var b struct {
			Type    string `json:"type"`
			BlockID string `json:"block_id"`
			Element struct {
				Type     string `json:"type"`
				ActionID string `json:"action_id"`
			} `json:"element"`
		}
		if json.Unmarshal(raw, &b) != nil || b.Type != "input" {
			continue
		}
		in, ok := inputs[b.BlockID]
		state := map[string]any{"type": b.Element.Type}
		switch b.Element.Type {
		case "plain_text_input":
			state["value"] = nil
			if ok && in.Text != nil {
				state["value"] = *in.Text
			}
		case "static_select":
			state["selected_option"] = nil
			if ok && in.Selected != "" {
				state["selected_option"] = map[string]any{"value": in.Selected, "text": map[string]any{"type": "plain_text", "text": in.Selected}}
			}
		case "checkboxes":
			opts := []any{}
			for _, t := range in.Ticked {
				opts = append(opts, map[string]any{"value": t, "text": map[string]any{"type": "plain_text", "text": t}})
			}
			state["selected_options"] = opts
		}
		values[b.BlockID] = map[string]any{b.Element.ActionID: state}
	}
	return map[string]any{
		"type":       "view_submission",
		"team":       map[string]any{"id": s.TeamID, "domain": "fake"},
		"user":       map[string]any{"id": user, "username": user, "team_id": s.TeamID},
		"api_app_id": s.AppID,
		"token":      "fake-verification-token",
		"trigger_id": s.NewEventID() + ".trigger",
		"view": map[string]any{"id": v.ID, "type": "modal", "team_id": s.TeamID, "callback_id": v.View.CallbackID,
			"private_metadata": v.View.PrivateMetadata, "app_id": s.AppID, "state": map[string]any{"values": values}},
	}
}

// ChannelMessage is a new top-level message by user in channel that does
// not mention the bot, as the message event Slack sends to apps
// subscribed to message.channels.
func (s *Server) ChannelMessage(channel, user, text string) MessageEvent {
	ts := s.NewTS()
	return MessageEvent{Type: "message", User: user, Text: text, TS: ts, Channel: channel, ChannelType: "channel", EventTS: ts}
}

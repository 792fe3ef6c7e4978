package discordtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// HeartbeatInterval is what the fake's HELLO asks for, in milliseconds:
// Discord's usual value. Clients heartbeat at once on connecting, so ACKs
// are exercised anyway.
const HeartbeatInterval = 41250

// Gateway opcodes.
const (
	opDispatch  = 0
	opHeartbeat = 1
	opIdentify  = 2
	opHello     = 10
	opAck       = 11
)

// gwConn is one gateway client that has identified.
type gwConn struct {
	ws  *websocket.Conn
	mu  sync.Mutex // serialises writes
	seq int64
}

func (c *gwConn) write(v any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(v)
}

// dispatch sends an event with the connection's next sequence number.
func (c *gwConn) dispatch(event string, data json.RawMessage) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(map[string]any{"op": opDispatch, "t": event, "s": c.seq, "d": data})
}

func (c *gwConn) close() {
	c.mu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "fake shutting down"), time.Now().Add(time.Second))
	c.mu.Unlock()
	_ = c.ws.Close()
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveGateway speaks the gateway protocol: HELLO, then IDENTIFY with the
// bot token (close 4004 otherwise), READY, then heartbeat ACKs until the
// client leaves. Events are sent with Dispatch. RESUME is not supported:
// a client that resumes is closed like one that fails to identify.
func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("encoding") != "json" {
		http.Error(w, "the fake speaks encoding=json only", http.StatusBadRequest)
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &gwConn{ws: ws}
	defer ws.Close()
	if c.write(map[string]any{"op": opHello, "d": map[string]any{"heartbeat_interval": HeartbeatInterval}}) != nil {
		return
	}
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var id struct {
		Op int      `json:"op"`
		D  Identify `json:"d"`
	}
	if err := ws.ReadJSON(&id); err != nil || id.Op != opIdentify {
		c.closeWith(4002, "Decode error: expected IDENTIFY")
		return
	}
	if strings.TrimPrefix(id.D.Token, "Bot ") != s.Token {
		c.closeWith(4004, "Authentication failed.")
		return
	}
	_ = ws.SetReadDeadline(time.Time{})
	ready, _ := json.Marshal(map[string]any{
		"v": 10, "user": s.Bot, "guilds": []any{}, "session_id": "fake-session",
		"resume_gateway_url": s.gatewayURL(),
		"application":        map[string]any{"id": s.AppID, "flags": 0},
	})
	if c.dispatch("READY", ready) != nil {
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.identifies = append(s.identifies, id.D)
	s.conns[c] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	for {
		var msg struct {
			Op int `json:"op"`
		}
		if err := ws.ReadJSON(&msg); err != nil {
			return
		}
		if msg.Op == opHeartbeat && c.write(map[string]any{"op": opAck}) != nil {
			return
		}
	}
}

func (c *gwConn) closeWith(code int, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
}

// Connected reports how many gateway clients have identified.
func (s *Server) Connected() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// WaitConnected waits until a gateway client has identified and got READY.
func (s *Server) WaitConnected(t testing.TB) {
	t.Helper()
	s.Wait(t, "a gateway connection", func() bool { return s.Connected() > 0 })
}

// Dispatch sends a gateway event to every connected client.
func (s *Server) Dispatch(t testing.TB, event string, data any) {
	t.Helper()
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatalf("discordtest: marshal %s: %v", event, err)
	}
	s.mu.Lock()
	conns := make([]*gwConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	if len(conns) == 0 {
		t.Fatalf("discordtest: no gateway client to send %s to", event)
	}
	for _, c := range conns {
		if err := c.dispatch(event, b); err != nil {
			t.Fatalf("discordtest: send %s: %v", event, err)
		}
	}
}

// SendInteraction delivers an interaction over the gateway
// (INTERACTION_CREATE); its three seconds to respond start now.
func (s *Server) SendInteraction(t testing.TB, ia *Interaction) {
	t.Helper()
	s.delivered(ia)
	s.Dispatch(t, "INTERACTION_CREATE", ia)
}

// SendMessage posts a user's message (MESSAGE_CREATE) and keeps it, so
// that replies can refer to it. A reply (a message_reference) carries
// the message it replies to as referenced_message, as Discord sends it:
// that message's own referenced_message left out.
func (s *Server) SendMessage(t testing.TB, m Message) {
	t.Helper()
	s.mu.Lock()
	if m.Reference != nil && m.ReferencedMessage == nil {
		if ref := s.message(m.Reference.MessageID); ref != nil {
			c := ref.clone()
			c.ReferencedMessage = nil
			m.ReferencedMessage = &c
		}
	}
	mc := m
	s.msgs = append(s.msgs, &mc)
	s.mu.Unlock()
	s.Dispatch(t, "MESSAGE_CREATE", m)
}

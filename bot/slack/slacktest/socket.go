package slacktest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// pingInterval is how often the fake pings a Socket Mode client. slack-go
// reconnects when it hears no ping for 30 seconds.
const pingInterval = 2 * time.Second

// socketConn is one Socket Mode connection. gorilla/websocket allows one
// writer at a time, hence the lock.
type socketConn struct {
	ws      *websocket.Conn
	writeMu sync.Mutex
	done    chan struct{}
	once    sync.Once
}

func (c *socketConn) write(v any) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return c.ws.WriteJSON(v)
}

func (c *socketConn) close() {
	c.once.Do(func() {
		close(c.done)
		_ = c.ws.Close()
	})
}

// serveSocket accepts a Socket Mode connection, greets it with hello,
// pings it and records the acknowledgements it sends back.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	c := &socketConn{ws: ws, done: make(chan struct{})}
	s.mu.Lock()
	old := s.socket
	s.socket = c
	s.connects++
	s.mu.Unlock()
	if old != nil {
		old.close() // Slack keeps several; one is enough for tests
	}
	hello := map[string]any{"type": "hello", "num_connections": 1,
		"debug_info":      map[string]any{"host": "fake-slack", "build_number": 1, "approximate_connection_time": 18060},
		"connection_info": map[string]any{"app_id": s.AppID}}
	if err := c.write(hello); err != nil {
		c.close()
		return
	}
	go func() {
		t := time.NewTicker(pingInterval)
		defer t.Stop()
		for {
			select {
			case <-c.done:
				return
			case <-t.C:
				if err := ws.WriteControl(websocket.PingMessage, []byte("ping"), time.Now().Add(5*time.Second)); err != nil {
					c.close()
					return
				}
			}
		}
	}()
	defer func() {
		c.close()
		s.mu.Lock()
		if s.socket == c {
			s.socket = nil
		}
		s.mu.Unlock()
	}()
	for {
		var ack struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if err := ws.ReadJSON(&ack); err != nil {
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				continue
			}
			return
		}
		if ack.EnvelopeID != "" {
			s.mu.Lock()
			s.acks[ack.EnvelopeID] = true
			s.mu.Unlock()
		}
	}
}

// Connected reports whether a Socket Mode client is connected.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.socket != nil
}

// Connections counts the Socket Mode connections made so far.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connects
}

// Acked reports whether the client acknowledged the envelope.
func (s *Server) Acked(envelopeID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acks[envelopeID]
}

// Send delivers a Socket Mode request of the given type ("events_api",
// "interactive") with payload, and returns its envelope id. It waits up to
// ten seconds for a client to connect.
func (s *Server) Send(typ string, payload any) (string, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		c := s.socket
		s.ids++
		id := fmt.Sprintf("env-%d", s.ids)
		s.mu.Unlock()
		if c != nil {
			req := map[string]any{"envelope_id": id, "type": typ, "payload": payload,
				"accepts_response_payload": false, "retry_attempt": 0, "retry_reason": ""}
			return id, c.write(req)
		}
		if time.Now().After(deadline) {
			return "", errors.New("slacktest: no socket mode client connected")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// SendEvent delivers an event over Socket Mode in an event_callback with
// the given event id ("" for a new one), and returns the envelope id.
func (s *Server) SendEvent(eventID string, event any) (string, error) {
	return s.Send("events_api", json.RawMessage(s.EventCallback(eventID, event)))
}

// SendInteraction delivers an interaction payload (see BlockAction) over
// Socket Mode and returns the envelope id.
func (s *Server) SendInteraction(payload any) (string, error) {
	return s.Send("interactive", payload)
}

// Disconnect asks the Socket Mode client to reconnect, as Slack does
// before it recycles a connection.
func (s *Server) Disconnect() error {
	s.mu.Lock()
	c := s.socket
	s.mu.Unlock()
	if c == nil {
		return errors.New("slacktest: no socket mode client connected")
	}
	return c.write(map[string]any{"type": "disconnect", "reason": "refresh_requested",
		"debug_info": map[string]any{"host": "fake-slack"}})
}

// SendCommand delivers a slash command form (see SlashCommand) over
// Socket Mode, where its fields arrive as a JSON object, and returns the
// envelope id.
func (s *Server) SendCommand(form url.Values) (string, error) {
	payload := map[string]string{}
	for k := range form {
		payload[k] = form.Get(k)
	}
	return s.Send("slash_commands", payload)
}

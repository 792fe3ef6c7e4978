package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// healthcheck asks the local `switchboard serve` whether it is alive: GET
// http://127.0.0.1:PORT/healthz, PORT taken from HTTP_ADDR. It exists for
// container HEALTHCHECKs, since the distroless image has no shell or curl.
// It exits 0 when the server answers 200, 1 otherwise.
func (m *Main) healthcheck(ctx context.Context, args []string) error {
	if len(args) > 0 {
		fmt.Fprintln(m.Stderr, "Usage: switchboard healthcheck")
		return errUsage
	}
	cfg, err := LoadConfig(m.Getenv)
	if err != nil {
		return err
	}
	_, port, err := net.SplitHostPort(cfg.HTTPAddr)
	if err != nil {
		return &configError{"HTTP_ADDR", err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort("127.0.0.1", port) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
	}
	fmt.Fprintln(m.Stdout, "ok")
	return nil
}

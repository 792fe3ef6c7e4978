package neo4j

import (
	"context"
	"errors"
	"fmt"
	"time"

	neo4jdrv "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/breaker"
	"github.com/switchboard/switchboard/internal/retry"
)

// This file bounds how long reads wait for a Neo4j that does not answer.
// Left to the driver, every read of a managed transaction is retried for
// 30 s, and a graph question makes several reads, so an outage held each
// question for a minute or more. Instead every read goes through reach:
//
//   - it may spend at most Config.ReadBudget reaching the server (dial,
//     handshake, pool, retries), and the driver's own retries are not
//     used for reads, so that the budget is the only one;
//   - the first read of a question that cannot reach the server ends the
//     question: the walk needs the same server, so there is nothing to
//     fall back to, and GraphRetriever returns an *UnavailableError;
//   - a circuit breaker counts such reads: Config.CircuitFailures of them
//     in a row open it, and while it is open every read fails at once
//     without touching the network. Meanwhile the breaker runs answers
//     every second in the background, and the first success closes it, as
//     a successful Ping does; after Config.CircuitCooldown one read is
//     also let through as a probe.

// ErrUnavailable matches (errors.Is) the error of a read that could not
// reach Neo4j or was refused by the open circuit.
var ErrUnavailable = errors.New("knowledge graph unavailable")

// unavailableMessage is what the asker is told. GraphRetriever's error
// carries it as an *agent.Error, which the agent's edges show as is.
const unavailableMessage = "The knowledge graph is unavailable right now (Neo4j is not answering), " +
	"so I couldn't answer from it. Please try again in a few minutes."

// UnavailableError is the error of a read that could not reach Neo4j
// within the read budget, or that the open circuit refused without
// trying. It matches ErrUnavailable with errors.Is, and errors.As finds
// in it an *agent.Error whose message tells the asker so.
type UnavailableError struct {
	// Cause is the driver's last error; nil when the circuit refused.
	Cause error
	// Failures is the number of reads in a row that failed, when the
	// circuit refused; RetryIn is how long until it lets a probe through
	// (zero while another probe is in flight).
	Failures int
	RetryIn  time.Duration
}

func (e *UnavailableError) Error() string {
	if e.Cause == nil {
		return fmt.Sprintf("neo4j: knowledge graph unavailable: circuit open after %d failed reads in a row; next try in %s",
			e.Failures, e.RetryIn.Round(time.Second))
	}
	return "neo4j: knowledge graph unavailable: " + e.Cause.Error()
}

// Unwrap makes errors.Is(err, ErrUnavailable) true, lets errors.As find
// the asker's message and the driver's error.
func (e *UnavailableError) Unwrap() []error {
	out := []error{ErrUnavailable, agent.Errorf(agent.EINTERNAL, unavailableMessage)}
	if e.Cause != nil {
		out = append(out, e.Cause)
	}
	return out
}

// CircuitState is the state of a Graph's circuit breaker: package
// breaker's, the same as the model client's.
type CircuitState = breaker.State

// The states: closed lets every read through; open refuses them all for
// the cool-down; half-open lets one probe through, whose outcome closes
// or reopens the circuit.
const (
	CircuitClosed   = breaker.Closed
	CircuitOpen     = breaker.Open
	CircuitHalfOpen = breaker.HalfOpen
)

// outcome is how a read that the breaker let through went.
type outcome = breaker.Outcome

const (
	succeeded = breaker.Success   // the server answered, even with an error
	failed    = breaker.Failure   // the server could not be reached
	abandoned = breaker.Abandoned // the caller gave up, or the error says nothing about the server
)

// circuit puts package breaker's state machine in front of graph reads,
// refusing with an *UnavailableError. A nil *circuit lets everything
// through (Config.CircuitFailures < 0).
type circuit struct{ b *breaker.Breaker }

func newCircuit(cfg breaker.Config) *circuit { return &circuit{b: breaker.New(cfg)} }

// allow reports whether a read may go out now.
func (c *circuit) allow() error {
	if c == nil {
		return nil
	}
	if r, ok := c.b.Allow(); !ok {
		return &UnavailableError{Failures: r.Failures, RetryIn: r.RetryIn}
	}
	return nil
}

// record takes the outcome of a read that allow let through.
func (c *circuit) record(o outcome) {
	if c != nil {
		c.b.Record(o)
	}
}

// check runs probe, the breaker's Probe, now: its success closes an open
// circuit. Without a breaker it only runs probe.
func (c *circuit) check(ctx context.Context, probe func(context.Context) error) error {
	if c == nil {
		return probe(ctx)
	}
	return c.b.Check(ctx)
}

// stop ends the breaker's background probes.
func (c *circuit) stop() {
	if c != nil {
		c.b.Stop()
	}
}

// current returns the state, for tests and logs.
func (c *circuit) current() CircuitState {
	if c == nil {
		return CircuitClosed
	}
	return c.b.State()
}

// retryDelays are the waits between the attempts of one read that could
// not reach the server: the first retry is immediate (a pooled connection
// that died with a restarted server is simply replaced), then they
// double. The read budget cuts the list short; its length bounds the
// attempts whatever the budget.
var retryDelays = []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond,
	400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond}

// reach runs one read, f, through the circuit breaker. Each attempt gets
// a deadline of QueryTimeout (which the server enforces on the query
// itself) plus ReadBudget (for reaching the server): a server that took
// the connection but never answers is given up on then. While attempts
// fail to reach the server and ReadBudget is not spent, f is tried again
// if again is set; only reads that may safely run twice set it (not the
// generated query itself, which may be what brought the server down).
//
// It returns f's error, or an *UnavailableError when the server could not
// be reached or the circuit is open.
func (g *Graph) reach(ctx context.Context, again bool, f func(ctx context.Context) error) error {
	if err := g.circuit.allow(); err != nil {
		return err
	}
	start := g.now()
	err := retry.Do(ctx, retry.Policy{Attempts: len(retryDelays) + 1, Sleep: g.sleep}, func(attempt int) retry.Outcome {
		actx, cancel := context.WithTimeout(ctx, g.cfg.QueryTimeout+g.cfg.ReadBudget)
		err := f(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !unreachable(err) || !again || attempt > len(retryDelays) {
			return retry.Stop(err)
		}
		wait := retryDelays[attempt-1]
		if g.now().Add(wait).Sub(start) >= g.cfg.ReadBudget {
			return retry.Stop(err) // the budget counts the attempts too
		}
		return retry.Later(err, wait)
	})
	// A wait ended by ctx leaves the read's own error, which the
	// switch below takes as abandoned.
	if stopped := (*retry.StoppedError)(nil); errors.As(err, &stopped) {
		err = stopped.Err
	}
	switch {
	case err == nil:
		g.circuit.record(succeeded)
		return nil
	case ctx.Err() != nil:
		g.circuit.record(abandoned)
		return err
	case unreachable(err):
		g.circuit.record(failed)
		return &UnavailableError{Cause: err}
	case isServerAnswer(err):
		g.circuit.record(succeeded)
		return err
	default:
		g.circuit.record(abandoned)
		return err
	}
}

// answers runs RETURN 1 in the database, outside the circuit: the
// breaker's probe and the readiness check. Unlike the driver's
// VerifyConnectivity, which may hand out a pooled connection without
// using it, it reaches the server. A pooled connection that died with a
// restarted server fails it once, and the driver then drops the pool's
// connections to that server, so the query is tried once more at once.
func (g *Graph) answers(ctx context.Context) error {
	var err error
	for range 2 {
		err = g.return1(ctx)
		if err == nil || ctx.Err() != nil || !unreachable(err) {
			break
		}
	}
	return err
}

func (g *Graph) return1(ctx context.Context) error {
	s := g.session(ctx, neo4jdrv.AccessModeRead)
	defer s.Close(ctx)
	res, err := s.Run(ctx, "RETURN 1", nil, neo4jdrv.WithTxTimeout(g.cfg.QueryTimeout))
	if err != nil {
		return err
	}
	_, err = res.Consume(ctx)
	return err
}

// unreachable reports whether err means that the server could not be
// reached or did not answer: the driver wraps a connection refused, reset
// or timed out, and a pool with no connection to give, in a
// ConnectivityError; an attempt past its deadline; a server that is up
// without its database.
func unreachable(err error) bool {
	var neoErr *neo4jdrv.Neo4jError
	if errors.As(err, &neoErr) {
		return neoErr.Code == "Neo.TransientError.General.DatabaseUnavailable"
	}
	var conn *neo4jdrv.ConnectivityError
	var limit *neo4jdrv.TransactionExecutionLimit
	return errors.As(err, &conn) || errors.As(err, &limit) || errors.Is(err, context.DeadlineExceeded)
}

// isServerAnswer reports whether err came from a server that answered:
// an error of the database or a refusal after EXPLAIN. Either way the
// server is up.
func isServerAnswer(err error) bool {
	var neoErr *neo4jdrv.Neo4jError
	var refused *RefusedError
	return errors.As(err, &neoErr) || errors.As(err, &refused)
}

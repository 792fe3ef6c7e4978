package llm

import (
	openai "github.com/sashabaranov/go-openai"

	"github.com/switchboard/switchboard/agent"
)

// What a request's tokens are estimated at before it is sent, in prompt
// tokens per kibibyte of prompt text (see Client.reserve).
const (
	// defaultDensity is the estimate before the server has reported any
	// usage: a token per four bytes, the usual rate of English prose.
	defaultDensity = 256
	// maxDensity caps what the server's reports may raise it to: a token
	// per byte, more than a tokenizer of text makes. A server that
	// reports more is not believed, so that one odd report does not hold
	// a whole budget for each call.
	maxDensity = 1024
	// learnFrom is the shortest prompt, in bytes, whose usage teaches the
	// density: in a shorter one the chat template's tokens dominate.
	learnFrom = 256
)

// messageTokens is what a chat template adds to each message (its role
// and separators), in tokens.
const messageTokens = 4

// reserve is the most tokens a request of msgs sent as cl may use: what it
// holds from the run's budget before it is sent (agent.StartCall). Its
// reply cannot pass cl.maxTokens, and its prompt is estimated at the
// densest rate the server has reported so far, so a request uses more
// than it holds only when its prompt is denser than every one before it
// (or the server ignores max_tokens).
func (c *Client) reserve(msgs []Message, cl call) int {
	return (textBytes(msgs)*int(c.density.Load())+1023)/1024 + messageTokens*len(msgs) + cl.maxTokens
}

// usage is the agent.Usage of one chat request of msgs answered with
// reply, from the server's report u; a server that reports none is
// counted at the estimated density, and at four bytes a token for the
// reply, so that the budget still counts the call. A report teaches the
// client how dense this server's tokens are.
func (c *Client) usage(msgs []Message, u *openai.Usage, reply string) agent.Usage {
	if u == nil || u.PromptTokens+u.CompletionTokens == 0 {
		return agent.Usage{Calls: 1, PromptTokens: c.reserve(msgs, call{}), CompletionTokens: (len(reply) + 3) / 4}
	}
	if n := textBytes(msgs); n >= learnFrom {
		seen := min(int64(max(u.PromptTokens-messageTokens*len(msgs), 0))*1024/int64(n), maxDensity)
		for { // bounded: each turn that fails saw the density rise
			cur := c.density.Load()
			if seen <= cur || c.density.CompareAndSwap(cur, seen) {
				break
			}
		}
	}
	return agent.Usage{Calls: 1, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}
}

// textBytes is the length of msgs' texts.
func textBytes(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return n
}

// Package llm is Switchboard's language-model layer: a Client for any server
// that speaks the OpenAI HTTP API (OpenAI itself, Ollama, vLLM, LM Studio,
// LiteLLM and other proxies), and a Brain that uses it to make the agent's
// judgements (agent.Brain).
//
// The Client does the plumbing every call needs: a timeout per attempt,
// retries with backoff that honour Retry-After, structured JSON output with a
// fallback for servers that ignore or reject response_format, batched
// embeddings, and each request's most tokens held from the run's budget
// before it is sent, settled with its usage after (agent.StartCall).
//
// The Brain's prompts are text/template files in prompts/, embedded in the
// binary. Each system prompt begins with a line "TASK: <name>" (route,
// grade, rewrite, generate, check, condense, direct), which is what the
// scripted fake in llm/llmtest dispatches on. Retrieved text is data: every
// document is fenced in <document> tags and the prompts tell the model never
// to follow instructions found inside them.
//
// The deterministic engine used when no model is configured or the model
// fails lives in llm/offline.
package llm

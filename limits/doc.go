// Package limits holds the limits that protect Switchboard and its model
// budget: per-asker and per-channel rate limits (token buckets) and daily
// model-token budgets per workspace and per person, held before each model
// call and settled after it. Both keep their state in memory, per
// replica, and take their clock from the caller, so that tests advance
// time instead of sleeping.
//
// The model's circuit breaker lives with the model client, in package llm.
package limits

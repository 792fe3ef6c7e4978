// Package eval measures answer quality: it runs a set of cases through the
// agent and scores the route it chose, the words its answer contains and
// the sources it cites. `bot eval` is its command line; eval/*.jsonl are the
// sets shipped with Switchboard.
//
// A set is JSON Lines, one case a line (blank lines are allowed). A case
// has these fields:
//
//   - question: what is asked.
//   - expected_route: vector, graph, web or direct; the route the agent
//     should choose. Required, except in cases exported from a 👎 vote
//     (see expect_different).
//   - must_contain: phrases a correct answer contains, all of them. Case,
//     Markdown emphasis (*, `, _), curly quotes, dashes and runs of spaces
//     are ignored when comparing. A question that must end without an
//     answer lists a phrase of the no-answer text, "couldn't find".
//   - must_cite: a source title or location (path, URL, graph query) that
//     one of the answer's sources must contain, compared the same way.
//   - thread: earlier questions of the same conversation, asked first and
//     in order, so that the case's question is a follow-up. Only the case's
//     own question is scored and timed.
//   - expect_different, previous_answer: a case exported from a 👎 vote.
//     The answer passes when it differs from previous_answer.
//   - id, note: free text for people; not scored.
//
// For example:
//
//	{"question": "How long do we keep backups?", "expected_route": "vector", "must_contain": ["35 days"], "must_cite": "data-retention.md"}
//	{"question": "and for EU customers?", "thread": ["What is our data retention policy?"], "expected_route": "vector", "must_contain": ["Frankfurt"]}
//
// Rates are over the cases they apply to: route accuracy over cases with
// expected_route, answer hit-rate over cases with must_contain or
// expect_different, citation hit-rate over cases with must_cite.
package eval

// Package eval measures answer quality: it runs a set of cases through the
// agent and scores the route it chose, the words its answer contains and
// the sources it cites. `switchboard eval` is its command line; eval/*.jsonl are the
// sets shipped with Switchboard, and eval/corpora/ holds the frozen sets on
// documents nobody here wrote (see Corpora).
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
//
// # The answer check
//
// A case's answer passes (is right) when every must_contain phrase is in
// the answer, when an expect_different case's answer differs from
// previous_answer, and, for a case that must end without an answer (its
// must_contain lists NoAnswerPhrase), when the run did end without one:
// the "none" badge and no sources, or a partial answer: the agent's own
// "I found related text but nothing that says …" under a low badge
// (EndedWithoutAnswer). Any other "I couldn't find the policy, but [1]
// says …" with a badge is an answer, whatever its words. The route and the citation are not part of it: they are scored
// on their own, and a right answer reached by another route or from
// another document that says the same is still right for the person who
// asked. A case without must_contain or expect_different (the web cases,
// whose answers depend on the live web, and greetings) is not judged; a
// case that failed to run has no answer and no badge.
//
// # Calibration
//
// A badge is a promise about the answer it comes with, so each badge is
// measured by how often its answers are right. For each badge (high,
// medium, low, general, none, then any other the agent gives):
//
//   - answers: cases answered with that badge;
//   - judged: those with an answer check;
//   - right: those whose answer passed it;
//   - precision: right / judged (n/a, null in JSON, when nothing was
//     judged).
//
// An answer is confidently wrong when it was judged, was not right, and
// either
//
//   - its badge is high, or
//   - its badge is medium and the case must end without an answer but the
//     agent gave one (it answered a question its documents do not answer).
//
// So a wrong answer with a medium, low or general badge, or a no-answer
// case answered with a low or general badge, is wrong but not confidently
// so: the badge did not vouch for it. Every confidently wrong case is also
// a failed case; the report lists them first among the failures, and
// --max-confidently-wrong N fails the run when there are more than N.
//
// # Hedges
//
// An answer can be right and still be shown as if it might not be. An
// outcome is right but hedged (Outcome.RightButHedged) when
//
//   - its case has an answer (it does not list NoAnswerPhrase),
//   - its answer is right (it passed the answer check), and
//   - the run told the asker not to rely on it: the answer is partial
//     (agent.Result.Partial: it leads with "I found related text but
//     nothing that says …" and shows related text), or its badge is low or
//     none.
//
// A partial answer to a case that must end without an answer is not a
// hedge: it is the right way to say the documents do not answer. The
// report gives, over the cases judged:
//
//   - right but hedged: of the right answers to cases that have an answer,
//     those hedged (the goal: at most a third);
//   - high/medium precision: of the judged answers under a high or medium
//     badge (the badges that vouch for an answer), those right;
//   - high/medium, no answer: of the cases that must end without an
//     answer, those answered anyway under a high or medium badge (goal: 0;
//     each is also confidently wrong).
//
// # Corpora
//
// eval/corpora/NAME/ is a corpus of documents the engine was not written
// against (eval/corpora/README.md: sources, licences, the rules of the
// frozen sets): its documents in docs/, unchanged from their source, with
// LICENSE and SOURCE.md beside them; its frozen cases in frozen.jsonl,
// written once and never edited to fit the engine; a development split in
// dev.jsonl, the only cases to tune on. `bot eval --corpus DIR` (repeatable)
// evaluates each corpus on its own documents in a store of its own and
// prints one row per corpus (WriteCorpusTable): cases, route accuracy,
// right answers, right but hedged, high/medium precision, high/medium on
// answers where none exists, confidently wrong. --split dev runs dev.jsonl
// instead; scripts/eval-frozen.sh runs every corpus with a frozen.jsonl.
package eval

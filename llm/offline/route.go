package offline

import (
	"context"
	"strings"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/calc"
	"github.com/switchboard/switchboard/kb/words"
)

// Route reasons. They are shown to users next to the route.
const (
	reasonGreeting = "a greeting"
	reasonIdentity = "asks about Switchboard itself"
	reasonWeb      = "asks about current events"
	reasonVector   = "asks about internal documents"
	reasonGeneral  = "a general-knowledge question, not about internal documents"
)

// Route decides where the answer lives, in this order:
//
//  1. arithmetic or a unit conversion the calculator can evaluate →
//     direct;
//  2. a greeting or "who are you" → direct;
//  3. current events: news words ("news", "weather", "stock price"), or a
//     time word with an event word ("announced this week", "released
//     today") in a question that is not about our own things → web
//     (currentEvents);
//  4. a question about the graph, in the graph's own words → graph ("Who
//     makes Chai?", "Which products have been discontinued?"; see
//     graphcues.go);
//  5. a time word with a name of someone else ("Is PagerDuty down right
//     now?") → web;
//  6. a general-knowledge question ("Who wrote Hamlet?", "What is the
//     capital of France?") with no sign of the company, of a known entity
//     or of current events → direct;
//  7. anything else → vector.
func (b *Brain) Route(ctx context.Context, question string) (agent.RouteDecision, error) {
	d, ok, err := b.route(ctx, question, false)
	if err != nil || ok {
		return d, err
	}
	return agent.RouteDecision{Route: agent.RouteVector, Reason: reasonVector}, nil
}

// EvidentRoute is Route where the evidence is plain (issue 22): a
// calculation that parses, a question about current events, one that names
// an entity of the knowledge graph with a relation. The agent takes it
// before asking a model's router: a small model sent arithmetic, current
// events and graph relations alike to the documents. ok is false for any
// other question, which the model's router decides.
func (b *Brain) EvidentRoute(ctx context.Context, question string) (agent.RouteDecision, bool, error) {
	return b.route(ctx, question, true)
}

// route applies the rules of Route; evident keeps to those of EvidentRoute.
func (b *Brain) route(ctx context.Context, question string, evident bool) (agent.RouteDecision, bool, error) {
	if err := ctx.Err(); err != nil {
		return agent.RouteDecision{}, false, err
	}
	decided := func(r agent.Route, reason string) (agent.RouteDecision, bool, error) {
		return agent.RouteDecision{Route: r, Reason: reason}, true, nil
	}
	q := clip(question, maxQuestion)
	if _, reason, ok := calc.Answer(q); ok {
		return decided(agent.RouteDirect, reason)
	}
	toks := words.Tokens(q)
	lower := padded(toks)
	if r, ok := smallTalk(toks, lower); ok && !evident {
		return decided(agent.RouteDirect, r)
	}
	if currentEvents(lower) {
		return decided(agent.RouteWeb, reasonWeb)
	}
	idx, err := b.index(ctx)
	if err != nil {
		return agent.RouteDecision{}, false, err
	}
	ents := mentioned(q, toks, idx)
	if reason, ok := isGraph(q, lower, ents, idx); ok && (len(ents) > 0 || !evident) {
		return decided(agent.RouteGraph, reason)
	}
	if nowAboutOthers(q, toks, lower) {
		return decided(agent.RouteWeb, reasonWeb)
	}
	if len(ents) == 0 && !evident && generalKnowledge(toks, lower) {
		return decided(agent.RouteDirect, reasonGeneral)
	}
	return agent.RouteDecision{}, false, nil
}

// padded joins the lowercase words with spaces, and puts one at each end
// too, so that hasAny finds phrases on word boundaries.
func padded(toks []words.Token) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(" " + t.Lower)
	}
	return b.String() + " "
}

// hasAny reports whether the padded, space-joined lowercase words contain
// any of the phrases. Phrases are matched on word boundaries; a phrase
// ending in "*" matches any word with that prefix ("announc*").
func hasAny(padded string, phrases []string) bool {
	for _, p := range phrases {
		if strings.HasSuffix(p, "*") {
			if strings.Contains(padded, " "+strings.TrimSuffix(p, "*")) {
				return true
			}
			continue
		}
		if strings.Contains(padded, " "+p+" ") {
			return true
		}
	}
	return false
}

// Words that send a question to the web. News words do so on their own.
// A time word ("today", "right now", "last night") does not: "How many
// people are on the rotation right now?" and "What did they say on last
// night's call?" are about the team's own records. A question is about
// current events when a time word comes with an event word (something
// announced, released, launched, happening), and it is not about the
// company's own things.
var (
	newsWords = []string{
		"news", "headline", "headlines", "weather", "forecast", "current price", "stock price",
		"share price", "exchange rate", "stock market", "breaking",
	}
	nowWords = []string{
		"now", "right now", "today", "todays", "tonight", "yesterday", "this morning",
		"this afternoon", "this week", "this month", "latest", "currently", "recent", "recently",
		"last night",
	}
	eventWords = []string{
		"announc*", "releas*", "launch*", "happen*", "unveil*", "price", "prices", "stock", "stocks",
		"election", "score", "scores", "won", "win", "publish*", "article", "articles",
	}
	// internalWords include the asker ("When do I have to post my plan
	// this week?") and notice periods ("How far in advance is maintenance
	// announced?"): rules, not news. "Team" is not among them: "Did the Go
	// team announce a release this week?" is news about others.
	internalWords = []string{
		"our", "we", "us", "my", "i", "me", "im", "internal", "company", "policy", "policies",
		"handbook", "wiki", "doc", "docs", "document", "documents", "in advance", "notice",
	}
)

// currentEvents reports whether a question asks about current events: a
// news word, or a time word with an event word, in a question that is not
// about our own things ("which code do I put weather leave under?" asks
// about a leave policy).
func currentEvents(padded string) bool {
	if hasAny(padded, internalWords) {
		return false
	}
	return hasAny(padded, newsWords) || hasAny(padded, nowWords) && hasAny(padded, eventWords)
}

// nowAboutOthers reports whether a question binds a name of someone else
// to now ("Is PagerDuty down right now?", "Is Go 1.27 out today?"). It is
// asked after the graph, so that "Who supplies Acme now?" stays there.
func nowAboutOthers(q string, toks []words.Token, padded string) bool {
	if !hasAny(padded, nowWords) || hasAny(padded, internalWords) {
		return false
	}
	for i, t := range toks {
		if i > 0 && t.Text != strings.ToLower(t.Text) && !sentenceStart(q, t.Text) {
			return true
		}
	}
	return false
}

// sentenceStart reports whether word starts a sentence of q ("Uptime
// dipped. How much …": "How" names no one).
func sentenceStart(q, word string) bool {
	for _, s := range words.Sentences(q, maxSentences) {
		if strings.HasPrefix(strings.TrimSpace(s), word) {
			return true
		}
	}
	return false
}

// greetingWords make up a greeting when every word of a question is one.
var greetingWords = setOf(`hi hello hey heya hiya yo howdy greetings good morning afternoon evening
day there thanks thank you thx ty cheers ok okay bye goodbye switchboard bot all folks team`)

// identityPhrases ask what the bot is. "help" counts only on its own:
// "help with refunds" is a question about refunds.
var identityPhrases = []string{
	"who are you", "what are you", "what can you do", "what do you do", "how do you work",
	"are you a bot", "what is switchboard", "who is switchboard",
}

// smallTalk recognises greetings and questions about the bot, which the
// direct route answers without looking anything up.
func smallTalk(toks []words.Token, padded string) (string, bool) {
	if len(toks) == 0 || len(toks) > 8 {
		return "", false
	}
	all := true
	for _, t := range toks {
		all = all && greetingWords[t.Lower]
	}
	if all {
		return reasonGreeting, true
	}
	if len(toks) == 1 && toks[0].Lower == "help" {
		return reasonIdentity, true
	}
	for _, p := range identityPhrases {
		if len(toks) <= 6 && strings.Contains(padded, " "+p+" ") {
			return reasonIdentity, true
		}
	}
	return "", false
}

// graphReason names what a graph question is about: the entities it
// mentions, or else the kinds of thing it relates.
func graphReason(entities, nouns []string) string {
	if len(entities) > 0 {
		names := entities
		if len(names) > 3 {
			names = append(append([]string(nil), names[:3]...), "others")
		}
		if len(names) == 1 {
			return "asks what " + names[0] + " is connected to"
		}
		return "asks how " + joinList(names, "and") + " are connected"
	}
	switch len(nouns) {
	case 0:
		return "asks about relationships in the knowledge graph"
	case 1:
		return "asks about " + nouns[0] + " and their connections"
	}
	return "asks how " + nouns[0] + " relate to " + joinList(nouns[1:min(len(nouns), 3)], "and")
}

// General-knowledge vocabulary. The router cannot see the knowledge base,
// so the rule is conservative: a question goes direct only when it matches
// one of these patterns and has no company cue, no current-events cue and
// no known entity. Anything doubtful stays with the documents.
var (
	generalPhrases = []string{
		"who wrote", "who invented", "who discovered", "who painted", "who composed",
		"capital of", "what year did", "what year was", "in what year did", "in what year was",
		"how far is the", "how far away is", "how tall is the", "how tall was the",
		"how big is the", "how high is the", "how deep is the",
		"what is the meaning of the word", "how do you say",
	}
	// companyWords mark a question about the company's own things, however
	// general its form: "Who wrote our security policy?", "How big is the
	// team?".
	companyWords = setOf(`our ours we us my me i internal company companys policy policies team teams
customer customers client clients employee employees staff colleague colleagues coworker coworkers
manager managers process processes procedure procedures handbook wiki doc docs document documents
channel slack discord office offices headquarters hq department departments contract contracts
supplier suppliers vendor vendors product products account accounts project projects service
services system systems onboarding payroll salary benefits expense expenses refund refunds invoice
invoices sla support switchboard`)
)

// generalKnowledge reports whether a question asks for general knowledge
// outside the company (generalPhrases). It never holds for a question with
// a company cue or a current-events cue.
func generalKnowledge(toks []words.Token, padded string) bool {
	if len(toks) < 2 || hasAny(padded, newsWords) || hasAny(padded, nowWords) || hasAny(padded, internalWords) {
		return false
	}
	for _, t := range toks {
		if companyWords[t.Lower] {
			return false
		}
	}
	return hasAny(padded, generalPhrases)
}

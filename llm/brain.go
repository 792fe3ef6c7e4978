package llm

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/internal/text"
	"github.com/switchboard/switchboard/kb/words"
)

// Brain is the model-backed agent.Brain: every port of the agent's nodes
// (agent.Router, agent.Grader, …) in one. Each judgement is one chat request
// rendered from prompts/<task>.tmpl; the structured ones are decoded with
// Client.JSON against a small schema and validated before the agent sees
// them, so a confused model yields an error (and the agent's offline
// fallback) rather than a wrong turn.
type Brain struct {
	c *Client
}

var _ agent.Brain = (*Brain)(nil)

// NewBrain returns a Brain that asks c.
func NewBrain(c *Client) *Brain { return &Brain{c: c} }

// Prompt size limits. Thread history and retrieved documents come from
// outside and can be arbitrarily long; local models often have small
// context windows, so prompts carry a bounded amount of each.
const (
	maxHistoryTurns = 6
	maxAnswerRunes  = 1500
	maxDocRunes     = 6000
	maxAttrRunes    = 200
	maxReasonWords  = 12
	maxMissingWords = 30
	maxTriedShown   = 12 // searches listed to the rewriter, the most recent
)

// The schemas are strict-mode compatible: every property required and no
// others allowed.
var (
	// The router names the kind of knowledge in words (routeKinds), after
	// saying what the question asks for.
	routeSchema = func() json.RawMessage {
		enum, err := json.Marshal(kindNames())
		if err != nil {
			panic(err)
		}
		return json.RawMessage(`{"type":"object","properties":{` +
			`"reason":{"type":"string"},"route":{"type":"string","enum":` + string(enum) + `}},` +
			`"required":["reason","route"],"additionalProperties":false}`)
	}()
	// The evidence comes first: a model writes the properties in order,
	// and one that must find the sentence before it decides judges better
	// (see Grade).
	gradeSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"evidence":{"type":"string","description":"the sentence of the document that best helps answer the question, copied word for word; empty when none does"},` +
		`"relevant":{"type":"boolean"}},` +
		`"required":["evidence","relevant"],"additionalProperties":false}`)
	checkSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"grounded":{"type":"boolean"},"unsupported":{"type":"array","items":{"type":"string"}},` +
		`"answers":{"type":"boolean","description":"the supported statements address what the question asks"},` +
		`"missing":{"type":"string","description":"when answers is false, what the question asks that the answer does not say; else empty"}},` +
		`"required":["grounded","unsupported","answers","missing"],"additionalProperties":false}`)
	condenseSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"question":{"type":"string"}},"required":["question"],"additionalProperties":false}`)
)

// Condense implements agent.Condenser. With no history there is nothing to
// resolve, so it returns question without asking the model.
func (b *Brain) Condense(ctx context.Context, history []agent.Turn, question string) (string, error) {
	if len(history) == 0 {
		return question, nil
	}
	msgs, err := render("condense", map[string]any{"History": history, "Question": question})
	if err != nil {
		return "", err
	}
	var out struct {
		Question string `json:"question"`
	}
	if err := b.c.JSON(ctx, msgs, "condense", condenseSchema, &out); err != nil {
		return "", err
	}
	q := strings.TrimSpace(out.Question)
	if q == "" {
		return "", fmt.Errorf("llm: condense: %w: empty question", ErrBadOutput)
	}
	return q, nil
}

// Route implements agent.Router. A route outside the four is an error; a
// reason that is not about the question is dropped (aboutQuestion).
func (b *Brain) Route(ctx context.Context, question string) (agent.RouteDecision, error) {
	msgs, err := render("route", map[string]any{"Question": question})
	if err != nil {
		return agent.RouteDecision{}, err
	}
	var out struct {
		Route  string `json:"route"`
		Reason string `json:"reason"`
	}
	if err := b.c.JSON(ctx, msgs, "route", routeSchema, &out); err != nil {
		return agent.RouteDecision{}, err
	}
	r := routeOf(out.Route)
	if !r.Valid() {
		return agent.RouteDecision{}, fmt.Errorf("llm: route: %w: unknown route %q", ErrBadOutput, out.Route)
	}
	reason := ""
	if aboutQuestion(out.Reason, question) {
		reason = shortPhrase(out.Reason)
	}
	return agent.RouteDecision{Route: r, Reason: reason}, nil
}

// routeKinds are the routes as the router chooses them: as the kind of
// knowledge that answers a question, in words, listed in the schema's
// enum. A small model picks among the bare names badly: Qwen2.5 1.5B sent
// all 8 document questions of a sample of eval/fresh-demo.jsonl to the
// graph with the names and their descriptions, and all 8 to the documents
// with these words (10 of 15 right in all, against at most 7).
var routeKinds = []struct {
	kind  string
	route agent.Route
}{
	{"a company policy, rule, procedure or document", agent.RouteVector},
	{"how named customers, suppliers, products, people or systems are connected", agent.RouteGraph},
	{"news, current events or public facts that change", agent.RouteWeb},
	{"arithmetic, definitions, general knowledge or small talk", agent.RouteDirect},
}

// kindNames are the routeKinds' words, in order.
func kindNames() []string {
	out := make([]string, len(routeKinds))
	for i, k := range routeKinds {
		out[i] = k.kind
	}
	return out
}

// routeOf reads the router's choice: one of routeKinds, or a route's own
// name, which a model that knows the routes may reply instead.
func routeOf(s string) agent.Route {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, k := range routeKinds {
		if s == k.kind {
			return k.route
		}
	}
	return agent.Route(s)
}

// aboutQuestion reports whether the router's reason is worth showing next
// to the route: people read it as why the bot looked there, so it must be
// about their question. Small models copy the prompt's example ("asks
// what the travel policy says") or the schema's description into it; such
// a reason, one that shares no content word with the question, and an
// empty one are dropped, and the route shows alone. The route itself is
// kept: only the reason is suspect.
func aboutQuestion(reason, question string) bool {
	said := contentWords(reason)
	if len(said) == 0 || routePromptTexts[strings.Join(said, " ")] {
		return false
	}
	return sharesWord(said, question)
}

// sharesWord reports whether one of said (as contentWords gives them) is
// a content word of question.
func sharesWord(said []string, question string) bool {
	asked := contentWords(question)
	return slices.ContainsFunc(said, func(w string) bool { return slices.Contains(asked, w) })
}

// contentWords are s's words without stop words, in the singular, as
// kb/words splits them: the form reasons are compared in, so that
// "Asks what the travel policy says." and "asks what travel policy says"
// are the same text, and "refunds" is about "refund".
func contentWords(s string) []string { return contentWordsUpTo(s, 64) }

// contentWordsUpTo is contentWords for a text that may be long: its first
// limit words.
func contentWordsUpTo(s string, limit int) []string {
	var out []string
	for _, w := range words.Split(s, limit) {
		if !words.IsStop(w) {
			out = append(out, words.Singular(w))
		}
	}
	return out
}

// routePromptTexts are the texts of the route prompt and schema a model
// might copy into its reason (promptTexts), and each route kind.
var routePromptTexts = promptTexts("route", routeSchema, kindNames()...)

// checkPromptTexts are those of the check prompt, whose example of what an
// answer misses ("whether jury duty is paid leave") a small model copies
// into "missing" for any question.
var checkPromptTexts = promptTexts("check", checkSchema)

// promptTexts are the texts of a task's system prompt and schema that a
// model might copy into a reply meant to be about the question, as
// contentWords joins them: each clause of the prompt (a quoted example is
// a clause), each description in the schema and each of extra, each
// whole and cut at its commas, since a model copies "a short phrase of at
// most 12 words" as readily as the whole clause. They are read from the
// template and the schema themselves, so that an edit to either is
// covered.
func promptTexts(task string, schema json.RawMessage, extra ...string) map[string]bool {
	msgs, err := render(task, map[string]any{"Question": "", "Answer": "", "Docs": []agent.Document(nil)})
	if err != nil {
		panic(err) // a template that does not render is a bug any test catches
	}
	var props struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &props); err != nil {
		panic(err)
	}
	texts := append([]string{msgs[0].Content}, extra...)
	for _, p := range props.Properties {
		texts = append(texts, p.Description)
	}
	out := map[string]bool{}
	add := func(t string) {
		if w := contentWords(t); len(w) > 0 {
			out[strings.Join(w, " ")] = true
		}
	}
	for _, t := range texts {
		for _, clause := range promptClause.Split(t, -1) {
			add(clause)
			for _, part := range strings.Split(clause, ",") {
				add(part)
			}
		}
	}
	return out
}

// promptClause separates the clauses of a prompt, and a quoted example
// from the text around it.
var promptClause = regexp.MustCompile(`[.;:()"\n]+`)

// Grade implements agent.Grader. The model first copies the sentence of the
// document that helps answer the question, then decides; a document is
// relevant only when it said so and that sentence is really the
// document's (quotes). Both halves are for small models: asked for the
// verdict first, Qwen2.5 1.5B judged every passage of the demo irrelevant,
// the one that answered included ("Security awareness training is
// completed within the first 2 weeks" for "How soon after joining do I
// have to finish the security awareness course?"); asked for the sentence
// first, it finds it, and when it has none it quotes the question back or
// writes a summary of its own, which the check drops.
func (b *Brain) Grade(ctx context.Context, question string, doc agent.Document) (agent.Grade, error) {
	msgs, err := render("grade", map[string]any{"Question": question, "Doc": doc})
	if err != nil {
		return agent.Grade{}, err
	}
	var out struct {
		Evidence string `json:"evidence"`
		Relevant bool   `json:"relevant"`
	}
	if err := b.c.JSON(ctx, msgs, "grade", gradeSchema, &out); err != nil {
		return agent.Grade{}, err
	}
	evidence := strings.TrimSpace(out.Evidence)
	switch {
	case !out.Relevant:
		return agent.Grade{Reason: "no sentence of it answers the question"}, nil
	case !quotes(evidence, doc, question):
		return agent.Grade{Reason: "the sentence it gave is not the document's"}, nil
	}
	return agent.Grade{Relevant: true, Reason: "says “" + shortPhrase(evidence) + "”"}, nil
}

// quotes reports whether evidence is a sentence of doc rather than of the
// model: nearly all of its content words (quotedShare) are the document's,
// and at least one is not the question's, since a sentence made of the
// question's words alone is the question read back, not an answer to it.
// Words are compared as contentWords gives them, so that markup, case
// and a plural do not make a faithful quote fail.
func quotes(evidence string, doc agent.Document, question string) bool {
	said := contentWords(evidence)
	if len(said) == 0 {
		return false
	}
	inDoc := map[string]bool{}
	// The document as the model saw it (document): its title and its
	// content clipped to maxDocRunes, which holds fewer words than that.
	for _, w := range contentWordsUpTo(doc.Title+" "+clip(doc.Content, maxDocRunes), maxDocRunes) {
		inDoc[w] = true
	}
	asked := map[string]bool{}
	for _, w := range contentWords(question) {
		asked[w] = true
	}
	found, beyond := 0, false
	for _, w := range said {
		if inDoc[w] {
			found++
		}
		beyond = beyond || !asked[w]
	}
	return beyond && float64(found) >= quotedShare*float64(len(said))
}

// quotedShare is the share of a quote's content words that must be the
// document's: high enough that a summary in the model's words fails, low
// enough that a quote with a word changed ("kept" for "keeps" is already
// the same word) passes.
const quotedShare = 0.8

// Rewrite implements agent.Rewriter. The model sees every search already made
// and the routes it may choose, and replies {query, route} in one call; the
// schema's route enum lists only the routes the agent can search. A route
// it may not choose keeps the current one. An empty query, or a search
// already made, is returned to the model once with the reason; a second
// bad reply is an error, since it would only repeat a search that found
// nothing.
func (b *Brain) Rewrite(ctx context.Context, req agent.RewriteRequest) (agent.Rewrite, error) {
	routes := req.Routes
	if len(routes) == 0 {
		routes = []agent.Route{req.Route}
	}
	tried := req.Tried
	if len(tried) > maxTriedShown {
		tried = tried[len(tried)-maxTriedShown:]
	}
	msgs, err := render("rewrite", map[string]any{
		"Question": req.Question, "Route": req.Route, "Routes": routes, "Tried": tried,
		"Attempt": req.Attempt, "Max": req.Max,
	})
	if err != nil {
		return agent.Rewrite{}, err
	}
	schema := rewriteSchema(routes)
	var problem string
	for try := 0; try < 2; try++ {
		if problem != "" {
			msgs = append(msgs, Message{Role: RoleUser, Content: problem + " Reply again with a new search query, as the schema describes."})
		}
		var out struct {
			Query string `json:"query"`
			Route string `json:"route"`
		}
		if err := b.c.JSON(ctx, msgs, "rewrite", schema, &out); err != nil {
			return agent.Rewrite{}, err
		}
		rw := agent.Rewrite{
			Query: strings.Trim(strings.TrimSpace(out.Query), `"'`),
			Route: agent.Route(strings.ToLower(strings.TrimSpace(out.Route))),
		}
		if !slices.Contains(routes, rw.Route) {
			rw.Route = req.Route
		}
		switch {
		case rw.Query == "":
			problem = "Your reply had an empty query."
		case agent.Searched(req.Tried, rw.Query, rw.Route):
			problem = fmt.Sprintf("The query %q was already searched on the %s route and found nothing relevant.", clip(rw.Query, 200), rw.Route)
		default:
			return rw, nil
		}
		reply, _ := json.Marshal(out)
		msgs = append(msgs[:len(msgs):len(msgs)], Message{Role: RoleAssistant, Content: string(reply)})
	}
	return agent.Rewrite{}, fmt.Errorf("llm: rewrite: %w: %s", ErrBadOutput, problem)
}

// rewriteSchema is the rewrite reply's schema, its route enum limited to
// the routes the agent can search.
func rewriteSchema(routes []agent.Route) json.RawMessage {
	enum, _ := json.Marshal(routes)
	return json.RawMessage(`{"type":"object","properties":{` +
		`"query":{"type":"string","description":"the new search query"},` +
		`"route":{"type":"string","enum":` + string(enum) + `,"description":"where to search with it"}},` +
		`"required":["query","route"],"additionalProperties":false}`)
}

// Generate implements agent.Generator. A reply the model did not finish
// (cut at the length limit, or a stream that stopped) is returned with its
// *agent.CutOffError, as far as people could have seen it written.
func (b *Brain) Generate(ctx context.Context, req agent.GenerateRequest) (string, error) {
	msgs, err := render("generate", req)
	if err != nil {
		return "", err
	}
	var answer string
	if req.OnText == nil {
		answer, err = b.c.chat(ctx, "generate", msgs)
	} else {
		answer, err = b.c.streamChat(ctx, "generate", msgs, func(soFar string) {
			req.OnText(stripFences(soFar))
		})
	}
	if cut := (*agent.CutOffError)(nil); errors.As(err, &cut) {
		answer = visibleSoFar(answer) // a reasoning block it was cut in is no answer
	}
	return stripFences(answer), err
}

// echoedFence matches a fence tag of the prompts, as they write it or
// escaped as escape writes it inside data, with its attributes
// (`<document n="1" title="…">`): small models echo them into answers.
var echoedFence = regexp.MustCompile(`(?i)(?:<|&lt;)\s*/?\s*(?:document|question|answer|history|turn)\b[^<>\n]*>`)

// stripFences removes the prompt's fence tags from a model's answer: they
// are the prompt's markup, never something to show people. What they
// enclosed stays; a draft left with nothing but citations is the agent's
// to refuse (agent/generate.go, substantive).
func stripFences(answer string) string {
	answer = echoedFence.ReplaceAllString(answer, "")
	return strings.TrimSpace(blankLines.ReplaceAllString(answer, "\n\n"))
}

// Check implements agent.Checker. Both judgements, grounded and answers,
// come from one request. A verdict that says the answer answers but names
// what is missing is taken as not answering: the specific evidence
// outweighs the flag, and the badge depends on it. An answer the model
// calls ungrounded is never taken as answering. A verdict that calls the
// answer grounded but lists unsupported claims is passed on as it is: the
// agent decides what such a contradiction means (agent/check.go).
func (b *Brain) Check(ctx context.Context, question, answer string, docs []agent.Document) (agent.Verdict, error) {
	msgs, err := render("check", map[string]any{"Question": question, "Answer": answer, "Docs": docs})
	if err != nil {
		return agent.Verdict{}, err
	}
	var out agent.Verdict
	if err := b.c.JSON(ctx, msgs, "check", checkSchema, &out); err != nil {
		return agent.Verdict{}, err
	}
	var claims []string
	for _, c := range out.Unsupported {
		if c = strings.TrimSpace(c); c != "" {
			claims = append(claims, c)
		}
	}
	missing := withoutPromptTexts(missingPhrase(out.Missing), question)
	answers := out.Grounded && out.Answers && missing == ""
	return agent.Verdict{Grounded: out.Grounded, Unsupported: claims, Answers: answers, Missing: missing}, nil
}

// withoutPromptTexts drops from a check's "missing" the parts, between
// semicolons, that are the check prompt's or schema's own words and not
// about the question: Qwen2.5 1.5B wrote the prompt's example ("whether
// jury duty is paid leave") for a flight to Tokyo, and ended a genuine
// "when the money will show up" with the schema's "; else empty".
func withoutPromptTexts(missing, question string) string {
	var kept []string
	for _, part := range strings.Split(missing, ";") {
		said := contentWords(part)
		if len(said) == 0 || checkPromptTexts[strings.Join(said, " ")] && !sharesWord(said, question) {
			continue
		}
		kept = append(kept, strings.TrimSpace(part))
	}
	return strings.Join(kept, "; ")
}

// missingPhrase tidies the model's "missing" for the note the user sees:
// one line of at most maxMissingWords words, without the lead-in the
// prompt gives it and without a final full stop. Models write "none" or
// "N/A" for nothing.
func missingPhrase(s string) string {
	words := strings.Fields(s)
	if len(words) > maxMissingWords {
		words = append(words[:maxMissingWords], "…")
	}
	s = strings.Join(words, " ")
	for _, p := range []string{"I found related text but nothing that says ", "nothing that says ", "Nothing that says "} {
		s = strings.TrimPrefix(s, p)
	}
	s = strings.TrimRight(s, ". ")
	switch strings.ToLower(s) {
	case "", "none", "n/a", "na", "nothing", "null", "-":
		return ""
	}
	return s
}

// Direct implements agent.DirectAnswerer. The model can always try, so ok is true.
func (b *Brain) Direct(ctx context.Context, question string, history []agent.Turn) (string, bool, error) {
	msgs, err := render("direct", map[string]any{"Question": question, "History": history})
	if err != nil {
		return "", false, err
	}
	answer, err := b.c.chat(ctx, "direct", msgs)
	if err != nil {
		return "", false, err
	}
	return strings.TrimSpace(answer), true, nil
}

// shortPhrase flattens a model's reason to one line of at most
// maxReasonWords words, since it is shown in a status line.
func shortPhrase(s string) string {
	words := strings.Fields(s)
	if len(words) > maxReasonWords {
		words = append(words[:maxReasonWords], "…")
	}
	return strings.Join(words, " ")
}

//go:embed prompts/*.tmpl
var promptFS embed.FS

// prompts holds one template set per task, each defining "system" and
// "user". A template that does not parse is a bug caught by any test.
var prompts = loadPrompts()

func loadPrompts() map[string]*template.Template {
	funcs := template.FuncMap{
		"fence":    fence,
		"document": document,
		"history":  history,
		"escape":   escape,
		"inc":      func(i int) int { return i + 1 },
	}
	sets := map[string]*template.Template{}
	for _, task := range []string{"route", "grade", "rewrite", "generate", "check", "condense", "direct"} {
		sets[task] = template.Must(template.New(task).Funcs(funcs).Option("missingkey=error").
			ParseFS(promptFS, "prompts/"+task+".tmpl"))
	}
	return sets
}

var blankLines = regexp.MustCompile(`\n{3,}`)

// render builds the system and user messages of a task.
func render(task string, data any) ([]Message, error) {
	msgs := make([]Message, 0, 2)
	for _, part := range []struct{ name, role string }{{"system", RoleSystem}, {"user", RoleUser}} {
		var buf bytes.Buffer
		if err := prompts[task].ExecuteTemplate(&buf, part.name, data); err != nil {
			return nil, fmt.Errorf("llm: %s: prompt: %w", task, err)
		}
		text := strings.TrimSpace(blankLines.ReplaceAllString(buf.String(), "\n\n"))
		msgs = append(msgs, Message{Role: part.role, Content: text})
	}
	return msgs, nil
}

// fenceTag matches anything that could open or close one of the tags the
// prompts use to fence data, in any case and with stray spaces.
var fenceTag = regexp.MustCompile(`(?i)<(\s*/?\s*(?:document|question|query|answer|history|turn)\b)`)

// escape neutralises fence tags inside data, so that a document containing
// "</document>" cannot end its fence early and smuggle text out of it.
// Only the tags are touched: code and markup in documents stay readable.
func escape(s string) string {
	return fenceTag.ReplaceAllString(s, "&lt;${1}")
}

// fence wraps data in <tag>…</tag>.
func fence(tag, s string) string {
	return "<" + tag + ">\n" + escape(strings.TrimSpace(s)) + "\n</" + tag + ">"
}

// document fences one retrieved document, numbered n as the answer cites it.
func document(n int, d agent.Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<document n="%d"`, n)
	if d.Title != "" {
		fmt.Fprintf(&b, ` title="%s"`, attr(d.Title))
	}
	if d.Location != "" {
		fmt.Fprintf(&b, ` source="%s"`, attr(d.Location))
	}
	b.WriteString(">\n")
	b.WriteString(escape(clip(strings.TrimSpace(d.Content), maxDocRunes)))
	b.WriteString("\n</document>")
	return b.String()
}

// attr makes s safe inside a double-quoted attribute on one line.
func attr(s string) string {
	return html.EscapeString(text.OneLine(clip(s, maxAttrRunes)))
}

// history renders the most recent turns of a thread, or nothing.
func history(turns []agent.Turn) string {
	if len(turns) == 0 {
		return ""
	}
	if len(turns) > maxHistoryTurns {
		turns = turns[len(turns)-maxHistoryTurns:]
	}
	var b strings.Builder
	b.WriteString("Earlier conversation, oldest first:\n<history>\n")
	for _, t := range turns {
		b.WriteString("<turn>\n")
		b.WriteString(fence("question", t.Question))
		b.WriteString("\n")
		b.WriteString(fence("answer", clip(t.Answer, maxAnswerRunes)))
		b.WriteString("\n</turn>\n")
	}
	b.WriteString("</history>\n\n")
	return b.String()
}

// clip shortens s to at most n runes for a prompt, saying so in words: a
// model that reads "[truncated]" knows the text goes on, where it might
// take a bare "…" for the end.
func clip(s string, n int) string { return text.ClipWith(s, n, " …[truncated]") }

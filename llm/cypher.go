package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"text/template"
	"unicode/utf8"
)

// Cypher writing is the graph route's use of the model (neo4j.CypherWriter).
// It is not part of agent.Brain: the agent never asks for Cypher, the Neo4j
// retriever does, so its prompt is registered here beside the Brain's own.

// Size limits of the cypher task. The schema is trimmed by package neo4j
// already; the limits keep a huge schema or error message from filling a
// small local model's context, and a runaway reply from being run.
const (
	maxSchemaRunes  = 12000
	maxDBErrorRunes = 1500
	maxCypherRunes  = 4000
)

var cypherSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"cypher":{"type":"string","description":"one read-only Cypher query ending in RETURN … LIMIT n; empty when the schema cannot answer"}},` +
	`"required":["cypher"],"additionalProperties":false}`)

func init() {
	prompts["cypher"] = template.Must(template.New("cypher").
		Funcs(template.FuncMap{"fence": fence, "data": fenceData}).
		Option("missingkey=error").
		ParseFS(promptFS, "prompts/cypher.tmpl"))
}

// dataTag matches the tags the cypher prompt fences data in, like fenceTag
// does for the Brain's tags.
var dataTag = regexp.MustCompile(`(?i)<(\s*/?\s*(?:schema|cypher|error)\b)`)

// fenceData wraps data in <tag>…</tag>, neutralising every fence tag inside
// it, so that a property value in the schema or a database error quoting
// the query cannot close its fence and speak as the prompt.
func fenceData(tag, s string) string {
	s = dataTag.ReplaceAllString(escape(strings.TrimSpace(s)), "&lt;${1}")
	return "<" + tag + ">\n" + s + "\n</" + tag + ">"
}

// WriteCypher implements neo4j.CypherWriter: it asks the model for one
// Cypher query answering question over schema. With failedQuery set it
// asks for a repair, showing the database's error. The query is returned
// as the model wrote it, less code fences and trailing semicolons: it is
// untrusted, and the caller runs it only through its read-only guard.
//
// An empty query with a nil error means the model says the schema cannot
// answer the question. A query longer than 4000 characters, or the failed
// query again, is an error wrapping ErrBadOutput.
func (b *Brain) WriteCypher(ctx context.Context, question, schema, failedQuery, dbError string) (string, error) {
	msgs, err := render("cypher", map[string]any{
		"Question":    question,
		"Schema":      clip(schema, maxSchemaRunes),
		"FailedQuery": strings.TrimSpace(failedQuery),
		"DBError":     clip(strings.TrimSpace(dbError), maxDBErrorRunes),
	})
	if err != nil {
		return "", err
	}
	var out struct {
		Cypher string `json:"cypher"`
	}
	if err := b.c.JSON(ctx, msgs, "cypher", cypherSchema, &out); err != nil {
		return "", err
	}
	q := cleanCypher(out.Cypher)
	switch {
	case utf8.RuneCountInString(q) > maxCypherRunes:
		return "", fmt.Errorf("llm: cypher: %w: query of %d characters", ErrBadOutput, utf8.RuneCountInString(q))
	case q != "" && failedQuery != "" && q == cleanCypher(failedQuery):
		return "", fmt.Errorf("llm: cypher: %w: the failed query again", ErrBadOutput)
	}
	return q, nil
}

// cypherFence matches a Markdown code fence around a query, which models
// add even inside JSON strings.
var cypherFence = regexp.MustCompile("(?s)^```[A-Za-z]*\\s*\n?(.*?)\\s*```$")

// cleanCypher strips what models wrap around a query.
func cleanCypher(q string) string {
	q = strings.TrimSpace(q)
	if m := cypherFence.FindStringSubmatch(q); m != nil {
		q = strings.TrimSpace(m[1])
	}
	return strings.TrimSpace(strings.TrimRight(q, "; \t\r\n"))
}

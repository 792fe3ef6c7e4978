package ingest

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode"

	"github.com/switchboard/switchboard/kb"
)

// GraphWriter is what ImportGraph needs from a graph store (SQLite, Neo4j).
// Both methods insert or replace: a node by ID, an edge by
// (Source, Type, Target), so that importing a file twice changes nothing.
type GraphWriter interface {
	UpsertNodes(ctx context.Context, nodes []kb.Node) error
	UpsertEdges(ctx context.Context, edges []kb.Edge) error
}

// graphBatch is how many nodes or edges go to the store in one call: large
// enough to amortise round trips, small enough for one transaction.
const graphBatch = 500

// RowError is a CSV row that was not loaded. Line is the 1-based line of
// the file where the row starts (the header is line 1).
type RowError struct {
	Line int
	Err  error
}

// Error reads "line 7: empty id".
func (e RowError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the reason.
func (e RowError) Unwrap() error { return e.Err }

// Required columns of the two CSV files.
var (
	nodeColumns = []string{"id", "label", "name"}
	edgeColumns = []string{"source", "type", "target"}
)

// ReadNodesCSV reads nodes from CSV with a header row. The header must
// name the columns id, label and name, in any order and any case; every
// other column becomes a property (its name lower-cased, spaces and dashes
// turned into underscores; empty values are left out). source is recorded
// as each node's Source.
//
// Labels are made safe to use in Cypher: spaces and dashes become
// underscores, the first letter is upper-cased ("customer" → "Customer"),
// and a label that is still not letters, digits and underscores is a row
// error. An empty name defaults to the id.
//
// A bad row (wrong number of fields, bad quoting, empty id or label,
// duplicate id) is returned as a RowError and the other rows still load.
// The error is for the file as a whole: no header, a missing required
// column, a property name that cannot be made safe, or a read failure.
func ReadNodesCSV(r io.Reader, source string) ([]kb.Node, []RowError, error) {
	rows, bad, err := readNodes(r, source)
	nodes := make([]kb.Node, len(rows))
	for i, row := range rows {
		nodes[i] = row.node
	}
	return nodes, bad, err
}

// ReadEdgesCSV reads edges from CSV with a header naming source, type and
// target (any order and case); other columns become properties as in
// ReadNodesCSV. Types are normalised to UPPER_SNAKE ("account manager of",
// "accountManagerOf" → "ACCOUNT_MANAGER_OF") because they end up in Cypher;
// a type that is still not letters, digits and underscores is a row error,
// as are rows with an empty source or target. source is recorded as each
// edge's Origin.
func ReadEdgesCSV(r io.Reader, source string) ([]kb.Edge, []RowError, error) {
	rows, bad, err := readEdges(r, source)
	edges := make([]kb.Edge, len(rows))
	for i, row := range rows {
		edges[i] = row.edge
	}
	return edges, bad, err
}

type nodeRow struct {
	line int
	node kb.Node
}

type edgeRow struct {
	line int
	edge kb.Edge
}

func readNodes(r io.Reader, source string) ([]nodeRow, []RowError, error) {
	t, err := readHeader(r, nodeColumns)
	if err != nil {
		return nil, nil, err
	}
	var rows []nodeRow
	var bad []RowError
	firstLine := map[string]int{}
	err = t.each(&bad, func(line int, rec []string) error {
		id, label, name := t.get(rec, "id"), t.get(rec, "label"), t.get(rec, "name")
		if id == "" {
			return errors.New("empty id")
		}
		if first, ok := firstLine[id]; ok {
			return fmt.Errorf("duplicate id %q (first on line %d)", id, first)
		}
		if label == "" {
			return errors.New("empty label")
		}
		safe, ok := normalizeLabel(label)
		if !ok {
			return fmt.Errorf("label %q: use letters, digits and underscores, starting with a letter", label)
		}
		if name == "" {
			name = id
		}
		firstLine[id] = line
		rows = append(rows, nodeRow{line, kb.Node{ID: id, Label: safe, Name: name, Props: t.props(rec), Source: source}})
		return nil
	})
	return rows, bad, err
}

func readEdges(r io.Reader, source string) ([]edgeRow, []RowError, error) {
	t, err := readHeader(r, edgeColumns)
	if err != nil {
		return nil, nil, err
	}
	var rows []edgeRow
	var bad []RowError
	err = t.each(&bad, func(line int, rec []string) error {
		from, typ, to := t.get(rec, "source"), t.get(rec, "type"), t.get(rec, "target")
		switch {
		case from == "":
			return errors.New("empty source")
		case to == "":
			return errors.New("empty target")
		case typ == "":
			return errors.New("empty type")
		}
		safe, ok := normalizeRelType(typ)
		if !ok {
			return fmt.Errorf("type %q: use letters, digits and underscores, starting with a letter", typ)
		}
		rows = append(rows, edgeRow{line, kb.Edge{Source: from, Type: safe, Target: to, Props: t.props(rec), Origin: source}})
		return nil
	})
	return rows, bad, err
}

// table is a CSV file whose header has been read.
type table struct {
	cr       *csv.Reader
	width    int
	required map[string]int // required column → index
	propCols []int
	propKeys []string
}

func readHeader(r io.Reader, required []string) (*table, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // counted per row, so that one short row does not end the file
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("empty file: want a header with columns %s", strings.Join(required, ","))
	}
	if err != nil {
		return nil, fmt.Errorf("read header: %w", err)
	}
	t := &table{cr: cr, width: len(header), required: map[string]int{}}
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if i == 0 {
			h = strings.TrimPrefix(h, "\uFEFF") // spreadsheet exports start with a BOM
		}
		lower := strings.ToLower(h)
		if isRequired(lower, required) {
			if _, dup := t.required[lower]; dup {
				return nil, fmt.Errorf("header: column %q appears twice", lower)
			}
			t.required[lower] = i
			continue
		}
		key, ok := normalizeProp(h)
		if !ok {
			return nil, fmt.Errorf("header: column %q: property names must be letters, digits and underscores", h)
		}
		if seen[key] {
			return nil, fmt.Errorf("header: column %q appears twice", key)
		}
		seen[key] = true
		t.propCols = append(t.propCols, i)
		t.propKeys = append(t.propKeys, key)
	}
	var missing []string
	for _, c := range required {
		if _, ok := t.required[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("header: missing required column(s) %s (want %s)",
			strings.Join(missing, ", "), strings.Join(required, ","))
	}
	return t, nil
}

func isRequired(col string, required []string) bool {
	for _, r := range required {
		if col == r {
			return true
		}
	}
	return false
}

// each calls fn for every well-formed row, collecting malformed rows and
// the rows fn rejects into bad. It stops only on a read error.
func (t *table) each(bad *[]RowError, fn func(line int, rec []string) error) error {
	for {
		rec, err := t.cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			*bad = append(*bad, RowError{Line: pe.StartLine, Err: pe.Err})
			continue
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		line, _ := t.cr.FieldPos(0)
		if len(rec) != t.width {
			*bad = append(*bad, RowError{Line: line, Err: fmt.Errorf("%d fields, want %d as in the header", len(rec), t.width)})
			continue
		}
		if err := fn(line, rec); err != nil {
			*bad = append(*bad, RowError{Line: line, Err: err})
		}
	}
}

func (t *table) get(rec []string, col string) string {
	return strings.TrimSpace(rec[t.required[col]])
}

func (t *table) props(rec []string) map[string]string {
	var props map[string]string
	for i, col := range t.propCols {
		if v := strings.TrimSpace(rec[col]); v != "" {
			if props == nil {
				props = make(map[string]string)
			}
			props[t.propKeys[i]] = v
		}
	}
	return props
}

// isIdent reports whether s is an ASCII identifier: a letter, then
// letters, digits and underscores. Such names need no quoting in Cypher or
// SQL, which is what keeps CSV content from injecting query text.
func isIdent(s string) bool {
	if s == "" || !isASCIILetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isASCIILetter(c) && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// underscored turns runs of spaces and dashes into one underscore.
func underscored(s string) string {
	f := strings.FieldsFunc(strings.TrimSpace(s), func(r rune) bool { return unicode.IsSpace(r) || r == '-' })
	return strings.Join(f, "_")
}

func normalizeLabel(s string) (string, bool) {
	s = underscored(s)
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s, isIdent(s)
}

func normalizeProp(s string) (string, bool) {
	s = strings.ToLower(underscored(s))
	return s, isIdent(s)
}

// normalizeRelType turns "account manager of", "account-manager-of" and
// "accountManagerOf" into "ACCOUNT_MANAGER_OF".
func normalizeRelType(s string) (string, bool) {
	s = underscored(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		// A lower-case letter or digit followed by an upper-case one starts a new word.
		if i > 0 && c >= 'A' && c <= 'Z' && (s[i-1] >= 'a' && s[i-1] <= 'z' || s[i-1] >= '0' && s[i-1] <= '9') {
			b.WriteByte('_')
		}
		b.WriteByte(c)
	}
	out := strings.ToUpper(b.String())
	for strings.Contains(out, "__") {
		out = strings.ReplaceAll(out, "__", "_")
	}
	return out, isIdent(out)
}

// GraphReport says what ImportGraph did.
type GraphReport struct {
	NodesFile, EdgesFile string     // the paths imported, for messages
	Nodes, Edges         int        // written to the store
	NodeErrors           []RowError // rows of the nodes file not loaded
	EdgeErrors           []RowError // rows of the edges file not loaded, unknown node ids included
}

// String summarises the import for people, one row error a line.
func (r GraphReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s imported", plural(r.Nodes, "node"), plural(r.Edges, "edge"))
	for _, e := range r.NodeErrors {
		fmt.Fprintf(&b, "\n%s %v", r.NodesFile, e)
	}
	for _, e := range r.EdgeErrors {
		fmt.Fprintf(&b, "\n%s %v", r.EdgesFile, e)
	}
	return b.String()
}

// ImportGraph reads nodes and edges CSV files (see ReadNodesCSV and
// ReadEdgesCSV) and writes them to store in batches of 500, nodes first.
// Either path may be empty to import only the other.
//
// Both files are read and checked before anything is written, so a file
// with a bad header changes nothing. Bad rows are reported in the
// GraphReport and skipped; an edge whose source or target is not an id of
// the nodes file is such a row (with no nodes file, ids are not checked and
// the store decides). The error is for a file that cannot be read or has a
// bad header, a store failure, or ctx ending.
func ImportGraph(ctx context.Context, store GraphWriter, nodesPath, edgesPath string) (GraphReport, error) {
	return importGraph(ctx, store, func(name string) (io.ReadCloser, error) { return os.Open(name) }, nodesPath, edgesPath)
}

// ImportGraphFS is ImportGraph reading from fsys, such as the embedded
// examples.
func ImportGraphFS(ctx context.Context, store GraphWriter, fsys fs.FS, nodesPath, edgesPath string) (GraphReport, error) {
	return importGraph(ctx, store, func(name string) (io.ReadCloser, error) { return fsys.Open(name) }, nodesPath, edgesPath)
}

func importGraph(ctx context.Context, store GraphWriter, open func(string) (io.ReadCloser, error), nodesPath, edgesPath string) (GraphReport, error) {
	rep := GraphReport{NodesFile: nodesPath, EdgesFile: edgesPath}
	var nodes []nodeRow
	var edges []edgeRow
	if nodesPath != "" {
		var err error
		nodes, rep.NodeErrors, err = readFile(open, nodesPath, readNodes)
		if err != nil {
			return rep, err
		}
	}
	if edgesPath != "" {
		var err error
		edges, rep.EdgeErrors, err = readFile(open, edgesPath, readEdges)
		if err != nil {
			return rep, err
		}
	}
	if nodesPath != "" {
		ids := make(map[string]bool, len(nodes))
		for _, n := range nodes {
			ids[n.node.ID] = true
		}
		kept := edges[:0]
		for _, e := range edges {
			switch {
			case !ids[e.edge.Source]:
				rep.EdgeErrors = append(rep.EdgeErrors, RowError{e.line, fmt.Errorf("unknown source node %q", e.edge.Source)})
			case !ids[e.edge.Target]:
				rep.EdgeErrors = append(rep.EdgeErrors, RowError{e.line, fmt.Errorf("unknown target node %q", e.edge.Target)})
			default:
				kept = append(kept, e)
			}
		}
		edges = kept
	}

	for start := 0; start < len(nodes); start += graphBatch {
		batch := make([]kb.Node, 0, graphBatch)
		for _, n := range nodes[start:min(start+graphBatch, len(nodes))] {
			batch = append(batch, n.node)
		}
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("ingest: import graph: %w", err)
		}
		if err := store.UpsertNodes(ctx, batch); err != nil {
			return rep, fmt.Errorf("ingest: %s: write nodes %d-%d: %w", nodesPath, start, start+len(batch)-1, err)
		}
		rep.Nodes += len(batch)
	}
	for start := 0; start < len(edges); start += graphBatch {
		batch := make([]kb.Edge, 0, graphBatch)
		for _, e := range edges[start:min(start+graphBatch, len(edges))] {
			batch = append(batch, e.edge)
		}
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("ingest: import graph: %w", err)
		}
		if err := store.UpsertEdges(ctx, batch); err != nil {
			return rep, fmt.Errorf("ingest: %s: write edges %d-%d: %w", edgesPath, start, start+len(batch)-1, err)
		}
		rep.Edges += len(batch)
	}
	return rep, nil
}

// readFile opens name and parses it with read, naming the file in errors.
func readFile[T any](open func(string) (io.ReadCloser, error), name string,
	read func(io.Reader, string) ([]T, []RowError, error)) ([]T, []RowError, error) {
	f, err := open(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, nil, fmt.Errorf("ingest: %s: %w", name, err)
	}
	defer f.Close()
	rows, bad, err := read(f, name)
	if err != nil {
		return nil, nil, fmt.Errorf("ingest: %s: %w", name, err)
	}
	return rows, bad, nil
}

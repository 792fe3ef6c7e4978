package ingest

import (
	"strings"
	"testing"
)

// FuzzReadGraphCSV feeds both graph readers any bytes: they must not
// panic, and what they return must be safe to put into Cypher.
func FuzzReadGraphCSV(f *testing.F) {
	f.Add("id,label,name,country\nacme,Organization,Acme Corp,DE\nbob,person,Bob,\n")
	f.Add("source,type,target,since\nacme,supplies,globex,2020\nacme,,globex,\n")
	f.Add("id,label\n\"unterminated,Organization\n")
	f.Add("ID,Label,Name,\"we ird\"\r\nx,Customer Account,X,1\r\n")
	f.Fuzz(func(t *testing.T, data string) {
		nodes, bad, _ := ReadNodesCSV(strings.NewReader(data), "fuzz.csv")
		for _, n := range nodes {
			if n.ID == "" || !isIdent(n.Label) {
				t.Fatalf("bad node %+v", n)
			}
			for k := range n.Props {
				if !isIdent(k) {
					t.Fatalf("unsafe property name %q", k)
				}
			}
		}
		for _, e := range bad {
			if e.Line < 1 {
				t.Fatalf("row error without a line: %v", e)
			}
		}
		edges, _, _ := ReadEdgesCSV(strings.NewReader(data), "fuzz.csv")
		for _, e := range edges {
			if e.Source == "" || e.Target == "" || !isIdent(e.Type) {
				t.Fatalf("bad edge %+v", e)
			}
		}
	})
}

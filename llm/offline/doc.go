// Package offline is Switchboard's deterministic engine: an agent.Brain that
// needs no language model (its local embedder is package hashembed, its
// calculator package calc). The agent uses it when no model is configured,
// and to finish a run when the model fails.
//
// It is honest about what it is. The router and the grader work on words
// (stopwords removed, suffixes stripped, related words from WordNet: see
// related.go and package lexicon); the
// generator quotes the sentences of the sources that share the most words
// with the question and cites each one; the checker verifies that every
// sentence of an answer is made of words and numbers found in the sources it
// cites; the direct route is a calculator, and for anything else it says that
// no model is configured rather than guessing.
//
// Everything is deterministic and local: the same inputs give the same
// outputs and nothing touches the network. Every method bounds its work
// (questions can be 100 kB, documents longer), looking only at a prefix of
// long inputs, and no input makes it panic.
package offline

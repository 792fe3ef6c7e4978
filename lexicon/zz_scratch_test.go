package lexicon

import ("testing";"fmt";"os";"strings")

func TestZZScratch(t *testing.T) {
	for _, w := range strings.Fields(os.Getenv("WORDS")) {
		for _, l := range Lemmas(w) {
			fmt.Printf("%s [%s] usually=%v closest=%v derived=%v broader=%v syn=%v\n", w, l, Usually(l), Closest(l), Derived(l), Broader(l), Synonyms(l)[:min(8,len(Synonyms(l)))])
		}
	}
}

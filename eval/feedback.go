package eval

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard/switchboard/agent"
	"github.com/switchboard/switchboard/feedback"
	"github.com/switchboard/switchboard/kb/words"
)

// FromVotes turns votes into cases, with notes for people on what was
// left out. The rules are deliberately simple, because a vote says little:
//
//   - Votes on the same answer (same thread, question and answer text) are
//     added up; a tie is skipped.
//   - 👍 (more up than down): the route that answered is the expected
//     route, and the first source's title must be cited. No must_contain:
//     picking "key words" from an answer would only test that it does not
//     change.
//   - 👎 (more down than up): expect_different, with the answer people
//     disliked as previous_answer. No expected route: a bad answer does
//     not say which route was right. Add route and phrases by hand once
//     someone knows the right answer.
//   - A question asked several times keeps the verdict on its latest answer.
//
// Follow-up questions are exported as they were asked, without their
// thread: the feedback stores keep the thread's name, not its turns. Each
// case's note says where it came from.
func FromVotes(votes []feedback.Vote) (cases []Case, notes []string) {
	type tally struct {
		v    feedback.Vote
		net  int
		up   int
		down int
		last time.Time
	}
	byAnswer := map[string]*tally{}
	var order []string
	for _, v := range votes {
		if strings.TrimSpace(v.Question) == "" || (v.Vote != 1 && v.Vote != -1) {
			notes = append(notes, fmt.Sprintf("skipped a vote of %+d on %.40q: not a usable vote", v.Vote, v.Question))
			continue
		}
		key := v.Thread + "\x00" + v.Question + "\x00" + v.Answer.Answer
		t, ok := byAnswer[key]
		if !ok {
			t = &tally{v: v}
			byAnswer[key] = t
			order = append(order, key)
		}
		t.net += v.Vote
		if v.Vote > 0 {
			t.up++
		} else {
			t.down++
		}
		t.last = later(t.last, v.At)
	}

	// The latest answer to each question decides.
	latest := map[string]*tally{}
	var questions []string
	for _, key := range order {
		t := byAnswer[key]
		q := normalize(t.v.Question)
		prev, ok := latest[q]
		switch {
		case !ok:
			questions = append(questions, q)
			latest[q] = t
		default:
			notes = append(notes, fmt.Sprintf("%.60q was answered more than once; kept the latest answer's votes", t.v.Question))
			if !t.last.Before(prev.last) {
				latest[q] = t
			}
		}
	}
	slices.SortStableFunc(questions, func(a, b string) int { return cmp.Compare(latest[a].last.UnixNano(), latest[b].last.UnixNano()) })

	for _, q := range questions {
		t := latest[q]
		when := t.last.UTC().Format("2006-01-02")
		switch {
		case t.net > 0:
			c := Case{Question: t.v.Question, ExpectedRoute: t.v.Route,
				Note: fmt.Sprintf("from feedback: %d 👍 %d 👎, %s", t.up, t.down, when)}
			if len(t.v.Sources) > 0 {
				c.MustCite = t.v.Sources[0].Title
			}
			if !c.ExpectedRoute.Valid() {
				notes = append(notes, fmt.Sprintf("skipped %.60q: its route %q is unknown", t.v.Question, t.v.Route))
				continue
			}
			cases = append(cases, c)
		case t.net < 0:
			cases = append(cases, Case{Question: t.v.Question, ExpectDifferent: true, PreviousAnswer: t.v.Answer.Answer,
				Note: fmt.Sprintf("from feedback: %d 👍 %d 👎, %s; answered by the %s route", t.up, t.down, when, t.v.Route)})
		default:
			notes = append(notes, fmt.Sprintf("skipped %.60q: as many 👍 as 👎", t.v.Question))
		}
	}
	return cases, notes
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// FromHumanAnswers turns the replies people saved as answers (Save as
// answer, issue 26) into cases: the question the bot could not answer,
// the saved reply's document as the source to cite (its title), and as
// must_contain the reply's two longest words that the question does not
// already hold, so that an answer counts as right when it carries what
// the person said, in whatever sentences. A question saved more than
// once keeps its latest reply.
func FromHumanAnswers(answers []feedback.Answer) (cases []Case, notes []string) {
	latest := map[string]int{}
	for _, a := range answers {
		h := a.Human
		if h == nil || strings.TrimSpace(a.Question) == "" || strings.TrimSpace(a.Answer) == "" {
			continue
		}
		c := Case{Question: a.Question, ExpectedRoute: agent.RouteVector, MustContain: telling(a.Answer, a.Question),
			MustCite: h.Title, Note: fmt.Sprintf("from a reply by %s saved as the answer by %s, %s: %s", a.User, h.SavedBy, a.At.UTC().Format("2006-01-02"), h.Link)}
		q := normalize(a.Question)
		if i, ok := latest[q]; ok {
			notes = append(notes, fmt.Sprintf("%.60q was answered by more than one saved reply; kept the latest", a.Question))
			cases[i] = c
			continue
		}
		latest[q] = len(cases)
		cases = append(cases, c)
	}
	return cases, notes
}

// maxWords bounds the words of a saved reply read for must_contain.
const maxWords = 500

// telling returns up to two of the longest words of reply that question
// does not hold, in the reply's order.
func telling(reply, question string) []string {
	inQuestion := map[string]bool{}
	for _, w := range words.Split(question, maxWords) {
		inQuestion[w] = true
	}
	var cand []string
	for _, w := range words.Split(reply, maxWords) {
		if len([]rune(w)) >= 4 && !words.IsStop(w) && !inQuestion[w] && !slices.Contains(cand, w) {
			cand = append(cand, w)
		}
	}
	keep := slices.Clone(cand)
	slices.SortStableFunc(keep, func(a, b string) int { return cmp.Compare(len([]rune(b)), len([]rune(a))) })
	keep = keep[:min(2, len(keep))]
	var out []string
	for _, w := range cand {
		if slices.Contains(keep, w) {
			out = append(out, w)
		}
	}
	return out
}

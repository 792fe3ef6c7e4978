package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard/switchboard/feedback"
)

// SharedAnswers is where a private answer is shared from: the feedback
// store (feedback.Store's Answer and Share), which keeps each answer with
// the run it was shown from, so that a share button works after a
// restart and on any replica, and shares once.
type SharedAnswers interface {
	Answer(ctx context.Context, id string) (feedback.Answer, error)
	Share(ctx context.Context, id string, shared bool) (bool, error)
}

// A ShareClaim is a private answer being shared in the channel it was
// asked in, marked shared in the store: a second press, here or on
// another replica, does not share it again.
type ShareClaim struct {
	View    View   // the answer as its asker was shown it
	Channel string // where it was asked
	answers SharedAnswers
}

// ClaimShare claims the saved answer id of platform for user to share,
// if user asked it and it was not shared yet. Refused, it returns what
// to tell the presser (a Share…Label) and, for the log, why: nil for an
// answer shared already.
func ClaimShare(ctx context.Context, answers SharedAnswers, platform, id, user string) (c ShareClaim, tell string, err error) {
	if answers == nil {
		return ShareClaim{}, ShareGoneLabel, errors.New("no store keeps the answers")
	}
	saved, err := answers.Answer(ctx, id)
	if err != nil {
		if errors.Is(err, feedback.ErrUnknownAnswer) {
			return ShareClaim{}, ShareGoneLabel, err
		}
		return ShareClaim{}, ShareFailedLabel, err
	}
	v, ok := Finished(saved)
	channel, _ := ThreadPlace(saved.Thread, platform)
	if !ok || saved.User != user || channel == "" {
		return ShareClaim{}, ShareGoneLabel, fmt.Errorf("not %s's answer to share", user)
	}
	switch first, err := answers.Share(ctx, id, true); {
	case err != nil:
		return ShareClaim{}, ShareFailedLabel, fmt.Errorf("mark the answer shared: %w", err)
	case !first:
		return ShareClaim{}, AlreadySharedLabel, nil
	}
	return ShareClaim{View: v, Channel: channel, answers: answers}, "", nil
}

// Release makes the answer shareable again, after a post that failed
// before any of it showed, so that its asker can try again.
func (c ShareClaim) Release(ctx context.Context) error {
	_, err := c.answers.Share(context.WithoutCancel(ctx), c.View.AnswerID, false)
	return err
}

// ThreadPlace is the channel and conversation of a thread key of platform
// (Incoming.ThreadKey: "platform:workspace:channel:conversation"); "" for
// another platform's.
func ThreadPlace(key, platform string) (channel, conv string) {
	parts := strings.SplitN(key, ":", 4)
	if len(parts) < 4 || parts[0] != platform {
		return "", ""
	}
	return parts[2], parts[3]
}

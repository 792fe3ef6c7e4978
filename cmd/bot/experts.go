package main

import (
	"context"
	"sync"

	"github.com/switchboard/switchboard/bot"
	"github.com/switchboard/switchboard/ingest"
	"github.com/switchboard/switchboard/kb"
)

// experts is Ask an expert and Save as answer (issue 26), made once: the
// answers, whether their experts were asked and the saved replies kept
// in the feedback store (so that a press is handled once, after a
// restart and on any replica), the replies made searchable by the ingest
// pipeline, and the channels' experts from their settings.
func (a *App) experts() *bot.Experts {
	a.expertsOnce.Do(func() {
		a.expertsMade = &bot.Experts{Answers: a.Feedback, Channels: a.channelSettings(), Documents: pipelineSaver{a.Ingest}}
	})
	return a.expertsMade
}

// channelSettings are the channels' settings (their experts) when a store
// keeps them (channels.Store, issue 26's settings); nil until one does: no
// channel has experts, and the owners of the cited documents are asked.
func (a *App) channelSettings() bot.ChannelSettings {
	for _, s := range []any{a.Feedback, a.Docs} {
		if cs, ok := s.(bot.ChannelSettings); ok && cs != nil {
			return cs
		}
	}
	return nil
}

// pipelineSaver stores a saved reply as the ingest pipeline stores any
// document: split, embedded, written.
type pipelineSaver struct{ p *ingest.Pipeline }

func (s pipelineSaver) SaveDocument(ctx context.Context, doc kb.Document) error {
	_, err := s.p.Ingest(ctx, doc)
	return err
}

// expertsState is App's part for experts.
type expertsState struct {
	expertsOnce sync.Once
	expertsMade *bot.Experts
}

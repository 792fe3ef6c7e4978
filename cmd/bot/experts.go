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

// channelSettings are the channels' settings (their experts), nil when no
// store keeps them: then no channel has experts, and the owners of the
// cited documents are asked. A nil store is returned as a nil interface,
// which Experts checks.
func (a *App) channelSettings() bot.SettingsReader {
	if a.Channels == nil {
		return nil
	}
	return a.Channels
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

package main

import (
	"reflect"

	"github.com/switchboard/switchboard/bot"
)

// words are the presenter's sentences with the names of this program's
// settings and commands: the agent and the presenter name none themselves.
func words() bot.Words {
	return bot.Words{Names: bot.Names{
		WebSearchKey: settingName("TavilyKey"),
		ModelKey:     settingName("OpenAIKey"),
		ModelURL:     settingName("OpenAIBaseURL"),
		MaxTokens:    settingName("MaxTokens"),
		IngestFiles:  "switchboard ingest PATH…",
		IngestChat:   "switchboard ingest slack|discord --channel ID",
		GraphImport:  "switchboard graph import NODES.csv EDGES.csv",
		ChatIngest:   "@Switchboard ingest this channel",
	}}
}

// settingName is the environment variable of Config's field, so that a
// renamed setting is renamed in what people are told too; a field that
// does not exist is a bug the tests of the sentences catch.
func settingName(field string) string {
	f, ok := reflect.TypeOf(Config{}).FieldByName(field)
	if !ok {
		return ""
	}
	return f.Tag.Get("env")
}

// Package bench holds Switchboard's benchmarks and the report they write.
// They are Go benchmarks, not part of the product binary, because the
// fakes of Slack, Discord and the model they drive are test code. Run them
// with `make bench` (or `make bench-quick`), which is
//
//	go test ./bench -run '^$' -bench . -benchtime 1x -count 1 -timeout 30m [-short]
//
// and prints a table and writes bench/results.json (-short, the quick
// mode, writes to the temporary folder unless given -results). Each
// benchmark runs a fixed workload once per iteration, so -benchtime 1x is
// the intended setting; go test's own ns/op is then the time of the whole
// workload, and the per-question figures are the custom metrics.
//
//  1. BenchmarkCriticalPath: the real agent against a fake OpenAI-compatible
//     model that answers every request after 200 ms. For each route, the
//     model calls a question makes, how many of them are sequential round
//     trips on the critical path, and the wall time: with one grader, with
//     the default (a retrieval's documents graded at once, the query's
//     embedding, by the model's API, made while the router is asked), and
//     with speculative grading, by the API and with local embeddings; and
//     when the answer's first words could be shown. The answer is
//     streamed: its first words come a quarter of the way into the
//     request, the last at its end (llmtest).
//  2. BenchmarkOverhead: the same with a model that answers at once, and
//     with the offline engine: the time and allocations per question spent
//     in Switchboard itself. The fake model runs in a child process, so
//     that its own work is not counted.
//  3. BenchmarkLoad: 200 questions at once through the real Slack adapter
//     (Events API, to the fake Slack of bot/slack/slacktest) and the real
//     Discord adapter (HTTP interactions, bot/discord/discordtest), the
//     dispatcher and the agent with the 200 ms model: time to the first
//     visible reply and to the answer, that every question is answered
//     exactly once, peak heap and goroutines.
//  4. BenchmarkStores: a generated folder of Markdown files ingested with
//     the normal pipeline into SQLite (and PostgreSQL when
//     TEST_DATABASE_URL is set), then hybrid retrieval latency. The
//     100,000-chunk PostgreSQL benchmark is `go test ./postgres -bench Store`.
package bench

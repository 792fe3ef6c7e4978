// Package ingest fills the knowledge base: it loads files (Markdown, text,
// HTML, PDF), splits them into chunks, embeds the chunks and stores them through a
// DocumentStore, and it imports the knowledge graph from CSV files through a
// GraphWriter.
//
// The flow is load → split → embed → store:
//
//	p := &ingest.Pipeline{Store: store, Embedder: embedder}
//	rep, err := p.IngestFiles(ctx, []string{"docs"})
//	fmt.Println(rep) // 4 files: 1 added, 1 updated, 2 unchanged; 9 chunks written
//
// Re-ingesting is cheap and safe: a document whose content hash matches the
// stored one is skipped before any embedding, and a document is written only
// once all its chunks are embedded. One bad file never stops a run; it is
// listed in the Report.
package ingest

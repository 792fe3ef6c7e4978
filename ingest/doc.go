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
//
// One file adds a bounded amount of memory to the process, whatever it
// holds. A PDF's reader (PDFium in WebAssembly) has at most 256 MB, mapped
// outside Go's heap and given back when the read ends, and it reads the
// file where it lies, never a copy of it; PDFs are read one at a time, so
// readers never add up. A chat attachment is held once, as downloaded (at
// most the size limit: 20 MB unless INGEST_MAX_FILE_MB says otherwise). A
// file gives at most MaxFileText (4 MB) of text, and indexing it (split,
// embed, store) takes up to about 70 MB, after the reader's memory is
// back. So a file adds at most about 280 MB at the default limits. For a
// 19 MB PDF page of millions of text operators, which stops the reader,
// the process's peak RSS rose 254 MB under `bot ingest FILE`, 273 MB under
// `bot ingest slack`, 276 MB under `bot serve` (750, 1,034 and 833 MB
// before the reader's memory left Go's heap); see BenchmarkFileMemory in
// cmd/bot. Once per process the first PDF also loads PDFium's compiled
// code, about 40 MB (or compiles it when the user's cache folder has none:
// about 300 MB for the seconds that takes).
package ingest

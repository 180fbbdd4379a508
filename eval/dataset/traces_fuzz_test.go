package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzTraces reads arbitrary bytes, seeded with the trace exports, as a
// dataset, as FuzzLoad does for the other formats: it must
// never panic; an error about a record names its line; what loads is
// consistent with the input (hash, line order, the limit); --skip-invalid
// changes nothing on a file that loads without it and skips the record a
// failed load names; Scan then Stream give what Load gives.
func FuzzTraces(f *testing.F) {
	names := []string{"d.jsonl", "d.json", "/nonexistent-ragscope-fuzz/data"}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "traces", "*.*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(uint8(0), string(b), uint16(0))
			f.Add(uint8(1), string(b), uint16(0))
			f.Add(uint8(2), string(b), uint16(200))
			f.Add(uint8(0), string(b[:len(b)*2/3]), uint16(0))
		}
	}
	f.Fuzz(readsAsLoads(names))
}

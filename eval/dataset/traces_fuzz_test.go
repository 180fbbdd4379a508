package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
	f.Fuzz(func(t *testing.T, kind uint8, in string, limit uint16) {
		name := names[int(kind)%len(names)]
		opt := Options{MaxRecordBytes: int64(limit)}
		l, err := Read(name, strings.NewReader(in), opt)
		checkLoad(t, name, in, opt, l, err)
		opt.SkipInvalid = true
		ls, errs := Read(name, strings.NewReader(in), opt)
		checkLoad(t, name, in, opt, ls, errs)
		path := filepath.Join(t.TempDir(), filepath.Base(name))
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		sameAsLoad(t, path, opt)
		sameAsLoad(t, path, Options{MaxRecordBytes: opt.MaxRecordBytes})
		if err == nil {
			if errs != nil || !reflect.DeepEqual(l.Samples, ls.Samples) || len(ls.Skipped) > 0 {
				t.Fatalf("--skip-invalid on a valid file: %v, %d samples (want %d), skipped %+v", errs, len(ls.Samples), len(l.Samples), ls.Skipped)
			}
			return
		}
		var e *Error
		if errors.As(err, &e) && e.Skippable && errs == nil {
			if len(ls.Skipped) == 0 || ls.Skipped[0].Line != e.Line || ls.Skipped[0].Reason != e.Msg || ls.Skipped[0].Field != e.Field {
				t.Fatalf("the load failed with %v, but --skip-invalid skipped %+v", err, ls.Skipped)
			}
		}
	})
}

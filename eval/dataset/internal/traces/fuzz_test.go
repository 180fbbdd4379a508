package traces_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/dataset"
)

// FuzzTraces reads arbitrary bytes, seeded with the trace exports, as a
// dataset, as eval/dataset's FuzzLoad does for the other formats: it must
// never panic; an error about a record names its line; what loads is
// consistent with the input (hash, line order, the limit); --skip-invalid
// changes nothing on a file that loads without it and skips the record a
// failed load names; Scan then Stream give what Load gives.
func FuzzTraces(f *testing.F) {
	names := []string{"d.jsonl", "d.json", "/nonexistent-ragscope-fuzz/data"}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "testdata", "traces", "*.*"))
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
		opt := dataset.Options{MaxRecordBytes: int64(limit)}
		l, err := dataset.Read(name, strings.NewReader(in), opt)
		checkLoad(t, name, in, opt, l, err)
		opt.SkipInvalid = true
		ls, errs := dataset.Read(name, strings.NewReader(in), opt)
		checkLoad(t, name, in, opt, ls, errs)
		path := filepath.Join(t.TempDir(), filepath.Base(name))
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		sameAsLoad(t, path, opt)
		sameAsLoad(t, path, dataset.Options{MaxRecordBytes: opt.MaxRecordBytes})
		if err == nil {
			if errs != nil || !reflect.DeepEqual(l.Samples, ls.Samples) || len(ls.Skipped) > 0 {
				t.Fatalf("--skip-invalid on a valid file: %v, %d samples (want %d), skipped %+v", errs, len(ls.Samples), len(l.Samples), ls.Skipped)
			}
			return
		}
		var e *dataset.Error
		if errors.As(err, &e) && e.Skippable && errs == nil {
			if len(ls.Skipped) == 0 || ls.Skipped[0].Line != e.Line || ls.Skipped[0].Reason != e.Msg || ls.Skipped[0].Field != e.Field {
				t.Fatalf("the load failed with %v, but --skip-invalid skipped %+v", err, ls.Skipped)
			}
		}
	})
}

func checkLoad(t *testing.T, name, in string, opt dataset.Options, l *dataset.Loaded, err error) {
	t.Helper()
	if err != nil {
		if l != nil {
			t.Fatalf("both a result and the error %v", err)
		}
		if !strings.HasPrefix(err.Error(), name) {
			t.Fatalf("error %q does not name the file", err)
		}
		var e *dataset.Error
		if errors.As(err, &e) && e.Skippable && e.Line < 1 {
			t.Fatalf("error about a record names no line: %v", err)
		}
		return
	}
	sum := sha256.Sum256([]byte(in))
	if l.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("sha256 %s, want %x", l.SHA256, sum)
	}
	if len(l.Samples) == 0 {
		t.Fatalf("loaded with no samples and no error")
	}
	limit := opt.MaxRecordBytes
	if limit == 0 {
		limit = dataset.DefaultMaxRecordBytes
	}
	last := 0
	ids := map[string]bool{}
	for i, s := range l.Samples {
		// A trace file's line may hold several requests.
		if s.Index != i || s.Line < last || strings.TrimSpace(s.Question) == "" {
			t.Fatalf("sample %d: index %d, line %d after %d, question %q", i, s.Index, s.Line, last, s.Question)
		}
		last = s.Line
		if s.ID != "" {
			if ids[s.ID] {
				t.Fatalf("duplicate id %q loaded", s.ID)
			}
			ids[s.ID] = true
		}
		size := len(s.ID) + len(s.Question) + len(s.Answer) + len(s.Reference)
		for _, c := range s.Contexts {
			size += len(c)
		}
		if int64(size) > limit {
			t.Fatalf("sample %d holds %d bytes of text, over the record limit %d", i, size, limit)
		}
	}
	for _, s := range l.Skipped {
		if s.Line < 1 || s.Reason == "" {
			t.Fatalf("skipped %+v names no line or reason", s)
		}
	}
}

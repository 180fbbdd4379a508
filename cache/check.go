package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/ragscope/ragscope/cache/internal/boltfile"
	"github.com/ragscope/ragscope/cache/internal/entry"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// Report is what Check found.
type Report struct {
	Path     string `json:"path"`
	FileSize int64  `json:"file_size"`
	// PageSize, DBSize (up to the high-water mark) and TxID describe the
	// file when a meta page could be read.
	PageSize int    `json:"page_size,omitempty"`
	DBSize   int64  `json:"db_size,omitempty"`
	TxID     uint64 `json:"txid,omitempty"`
	// Kinds counts the entries of each kind (runs, results, chat,
	// embedding, labels) that decode and those that do not.
	Kinds []KindCheck `json:"kinds"`
	// Problems are the damage found, at most 200 of ProblemCount.
	Problems     []string `json:"problems,omitempty"`
	ProblemCount int      `json:"problem_count"`
	// Warnings are oddities that do not lose data.
	Warnings []string `json:"warnings,omitempty"`
	// BoltChecked says bbolt's own check ran too, on pages that all passed
	// ours (on a bad page it would crash).
	BoltChecked bool `json:"bolt_checked"`
	// NotDatabase: the file is not a ragscope database at all.
	NotDatabase bool `json:"not_database,omitempty"`
	// Salvageable, when pages are damaged, is what `ragscope db salvage`
	// would copy.
	Salvageable []SalvageCount `json:"salvageable,omitempty"`
}

// KindCheck counts one kind of entry.
type KindCheck struct {
	Kind       string `json:"kind"`
	Readable   int    `json:"readable"`
	Unreadable int    `json:"unreadable"`
}

// OK reports a database in which nothing wrong was found.
func (r Report) OK() bool { return r.ProblemCount == 0 }

func (r *Report) problem(format string, args ...any) {
	r.ProblemCount++
	if len(r.Problems) < boltfile.MaxProblems {
		r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
	}
}

func (r *Report) addProblems(ps *boltfile.Problems) {
	for _, p := range ps.List {
		r.problem("%s", p)
	}
	r.ProblemCount += ps.N - len(ps.List)
}

var checkKinds = []string{KindRuns, KindResults, KindChat, KindEmbedding, KindLabels}

// Check examines the database file at path without writing to it: every
// page of its tree (as bbolt's check does, without crashing on a bad
// page), then bbolt's own check when the pages are sound, then every
// entry. The error is for a file that could not be checked at all; damage
// is in the Report.
func Check(path string) (Report, error) {
	rep := Report{Path: path}
	for _, k := range checkKinds {
		rep.Kinds = append(rep.Kinds, KindCheck{Kind: k})
	}
	f, m, err := openForReading(path)
	if err != nil {
		return rep, err
	}
	defer f.Close()
	defer m.Unmap()
	rep.FileSize = int64(len(m.Data))
	structural := 0
	err = guard(path, func() error {
		structural = checkFile(&rep, m.Data)
		if structural > 0 && !rep.NotDatabase {
			s := newSalvager()
			s.collect(m.Data)
			var sr SalvageReport
			s.finish(&sr)
			rep.Salvageable = sr.Kinds
		}
		return nil
	})
	if err != nil {
		// The file changed under us (truncated by someone else).
		rep.problem("reading the file failed: %v", err)
		return rep, nil
	}
	if structural == 0 && !rep.NotDatabase {
		boltCheck(&rep, path)
	}
	return rep, nil
}

// openForReading opens path read-only under a shared lock (no writer can
// hold it meanwhile) and maps it.
func openForReading(path string) (f *os.File, m *boltfile.Mapped, err error) {
	f, err = os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("database %s does not exist; pass --db FILE", path)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("database %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
		}
	}()
	if err := boltfile.Lock(f, false, defaultTimeout); errors.Is(err, bolterrors.ErrTimeout) {
		return nil, nil, fmt.Errorf("database %s is in use by another process that writes to it (waited %s); stop it first: %w", path, defaultTimeout, ErrInUse)
	} else if err != nil {
		return nil, nil, fmt.Errorf("database %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		return nil, nil, fmt.Errorf("%s is a directory, not a database file", path)
	}
	if err == nil {
		m, err = boltfile.Map(f, fi.Size())
	}
	if err != nil {
		return nil, nil, fmt.Errorf("database %s: %w", path, err)
	}
	return f, m, nil
}

// checkFile fills rep from the file's bytes and returns how many
// structural problems (pages, not entries) it found.
func checkFile(rep *Report, data []byte) int {
	if len(data) == 0 {
		rep.NotDatabase = true
		rep.problem("the file is empty (0 bytes): not a ragscope database; remove it or pass another --db FILE")
		return 1
	}
	bf := boltfile.Read(data)
	if bf.Cur < 0 {
		if boltfile.LooksLikeBolt(data) {
			rep.problem("both header (meta) pages are unreadable (%v), but pages further in look like a bbolt database's: `ragscope db salvage` may recover data", bf.Metas[0].Err)
		} else {
			rep.NotDatabase = true
			rep.problem("not a bbolt database (%v): not a ragscope database", bf.Metas[0].Err)
		}
		return 1
	}
	cur := bf.Meta()
	rep.PageSize, rep.TxID = bf.PageSize, cur.Txid
	rep.DBSize = int64(cur.Pgid) * int64(bf.PageSize)
	other := 1 - bf.Cur
	if err := bf.Metas[other].Err; err != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("meta page %d is invalid (%v); the other one (transaction %d) is in use, as after a commit cut short", other, err, cur.Txid))
	}

	w := boltfile.NewWalker(bf)
	c := &collector{ok: map[string]int{}, bad: map[string]int{}, seen: map[string]bool{},
		runs: map[string]bool{}, resultsOf: map[string]int{}}
	w.Visit, w.Enter = c.visit, c.enter
	w.CheckAll()
	rep.addProblems(&w.Problems)
	structural := w.Problems.N

	if len(c.order) > 0 && !c.seen["meta"] {
		if foreign := slices.DeleteFunc(c.order, isOurBucket); len(foreign) > 0 {
			rep.NotDatabase = true
			rep.problem("a bbolt file of another program (buckets %q): not a ragscope database", foreign)
			return structural + 1
		}
	}
	if c.format != "" && c.format != metaFormat {
		rep.NotDatabase = true
		rep.problem("not a ragscope database (format %q)", c.format)
		return structural + 1
	}
	if c.version > schemaVersion {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("written by a newer ragscope (layout version %d; this one reads %d): entries were checked as this version understands them", c.version, schemaVersion))
	}
	if structural == 0 {
		for _, b := range allBuckets {
			if !c.seen[string(b)] {
				rep.Warnings = append(rep.Warnings, fmt.Sprintf("bucket %q is missing (it is created on the first write)", b))
			}
		}
	}
	for i, k := range rep.Kinds {
		rep.Kinds[i].Readable = c.ok[k.Kind]
		rep.Kinds[i].Unreadable = c.bad[k.Kind]
	}
	rep.addProblems(&c.ps)
	for _, id := range slices.Sorted(maps.Keys(c.resultsOf)) {
		if !c.runs[id] {
			rep.problem("run %q has %d results but no run record", id, c.resultsOf[id])
		}
	}
	return structural
}

// boltCheck runs bbolt's own consistency check on a file whose pages
// passed ours (bbolt walks them in a goroutine where a bad page is fatal).
func boltCheck(rep *Report, path string) {
	err := guard(path, func() error {
		bdb, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: defaultTimeout})
		if err != nil {
			return err
		}
		defer bdb.Close()
		return bdb.View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				if strings.Contains(err.Error(), "unreachable unfreed") {
					rep.Warnings = append(rep.Warnings, "bbolt: "+err.Error()+" (a leaked page: space, not data)")
					continue
				}
				rep.problem("bbolt: %v", err)
			}
			return nil
		})
	})
	if err != nil {
		rep.problem("bbolt's check could not run: %v", err)
		return
	}
	rep.BoltChecked = true
}

func isOurBucket(name string) bool {
	return slices.ContainsFunc(allBuckets, func(b []byte) bool { return string(b) == name })
}

// collector decodes the entries a walk visits and counts them by kind.
type collector struct {
	ok, bad   map[string]int
	seen      map[string]bool // top-level buckets that have been entered
	order     []string
	ps        boltfile.Problems
	format    string
	version   int
	runs      map[string]bool
	resultsOf map[string]int // run id -> results
}

func (c *collector) enter(bucket string) {
	top, _, _ := strings.Cut(bucket, "/")
	if !c.seen[top] {
		c.seen[top] = true
		c.order = append(c.order, top)
	}
}

func (c *collector) visit(bucket string, k, v []byte) {
	c.enter(bucket)
	if bucket == "meta" {
		switch string(k) {
		case metaFormatKey:
			c.format = string(v)
		case metaVersionKey:
			if len(v) == 1 {
				c.version = int(v[0])
			}
		}
		return
	}
	// The same decoding as Salvage's, so that both agree on what reads.
	_, err := decodeAs(bucket, k, v)
	switch {
	case err == errNotOurs:
		return
	case err != nil:
		c.bad[bucket]++
		c.ps.Addf(bucket, 0, "entry %s: %v", printableKey(k), err)
		return
	}
	switch bucket {
	case KindRuns:
		c.runs[string(k)] = true
	case KindResults:
		runID, _, _ := splitResultKey(k)
		c.resultsOf[runID]++
	}
	c.ok[bucket]++
}

func printableKey(k []byte) string {
	const max = 80
	s := strconv.QuoteToASCII(string(k))
	if len(s) > max {
		s = s[:max] + "…\""
	}
	return s
}

// decodeRunValue decodes a run record stored under key.
func decodeRunValue(key, v []byte) (report.RunInfo, error) {
	var info report.RunInfo
	if err := json.Unmarshal(v, &info); err != nil {
		return info, fmt.Errorf("unreadable run record: %v", err)
	}
	if info.ID != string(key) {
		return info, fmt.Errorf("the record names run %q", info.ID)
	}
	return info, nil
}

// splitResultKey parses "<run id>/<index>".
func splitResultKey(key []byte) (string, int, bool) {
	i := bytes.LastIndexByte(key, resultSep)
	if i <= 0 || len(key)-i-1 != indexDigits {
		return "", 0, false
	}
	idx, err := strconv.Atoi(string(key[i+1:]))
	if err != nil || idx < 0 {
		return "", 0, false
	}
	return string(key[:i]), idx, true
}

// decodeResultValue decodes a result stored under key and returns its run.
func decodeResultValue(key, v []byte) (string, *eval.Result, error) {
	runID, idx, ok := splitResultKey(key)
	if !ok {
		return "", nil, errors.New("malformed result key")
	}
	var r eval.Result
	if err := json.Unmarshal(v, &r); err != nil {
		return runID, nil, fmt.Errorf("unreadable result: %v", err)
	}
	if r.Index != idx {
		return runID, nil, fmt.Errorf("the result is of sample %d, its key of sample %d", r.Index, idx)
	}
	return runID, &r, nil
}

// verifyChatValue decodes a chat entry and checks that its request hashes
// to key, as an import does: a damaged entry can never answer for another
// request.
func verifyChatValue(key, v []byte) error {
	var m entry.ChatMeta
	_, _, payload, err := entry.Decode(v, &m, "chat")
	if err != nil {
		return err
	}
	if len(m.Response.Choices) == 0 {
		return errors.New("chat entry without choices")
	}
	var req eval.ChatRequest
	if err := json.Unmarshal(payload, &req); err != nil {
		return fmt.Errorf("unreadable chat request: %v", err)
	}
	if req.Key() != string(key) {
		return errors.New("the stored request does not hash to the entry's key")
	}
	return nil
}

func verifyEmbeddingValue(key, v []byte) error {
	var m entry.EmbedMeta
	_, _, payload, err := entry.Decode(v, &m, "embedding")
	if err != nil {
		return err
	}
	if eval.EmbedKey(m.Endpoint, m.Model, m.Dimensions, m.Text) != string(key) {
		return errors.New("the stored text and model do not hash to the entry's key")
	}
	if len(payload) == 0 {
		return errors.New("empty vector")
	}
	_, err = entry.DecodeVector(payload)
	return err
}

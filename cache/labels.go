package cache

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/report/labels"
	bolt "go.etcd.io/bbolt"
)

// KindLabels is the kind of the human labels' entries.
const KindLabels = "labels"

// Human labels live in their own bucket, keyed by labels.LabelKey (content,
// not run): clearing the cache or deleting runs never touches them.
var bucketLabels = []byte("labels")

func checkLabel(l labels.Label) error {
	if _, err := hex.DecodeString(l.Key); err != nil || len(l.Key) != 64 {
		return fmt.Errorf("label of %q: key %q is not a sha256", l.Item, l.Key)
	}
	if l.Key != labels.LabelKey(l.SampleKey, l.Task, l.Item) {
		return fmt.Errorf("label of %q: its key is not that of its sample, task and item", l.Item)
	}
	return labels.CheckLabelValue(l.Task, l.Value)
}

// PutLabels stores labels, replacing those of the same keys; durable when
// it returns. A label whose key is not the hash of its content is refused,
// so that a label can never answer for another item.
func (db *DB) PutLabels(ls []labels.Label) error {
	if len(ls) == 0 {
		return nil
	}
	keys := make([][]byte, len(ls))
	vals := make([][]byte, len(ls))
	for i, l := range ls {
		if err := checkLabel(l); err != nil {
			return err
		}
		v, err := json.Marshal(l)
		if err != nil {
			return err
		}
		keys[i], vals[i] = []byte(l.Key), v
	}
	return db.update(func(tx *bolt.Tx) error { return putAll(tx.Bucket(bucketLabels), keys, vals) })
}

// DeleteLabels removes the labels of keys (absent ones are skipped) and
// returns how many there were.
func (db *DB) DeleteLabels(keys []string) (int, error) {
	n := 0
	err := db.update(func(tx *bolt.Tx) error {
		n = 0 // the function may run more than once
		b := tx.Bucket(bucketLabels)
		for _, k := range keys {
			if b.Get([]byte(k)) == nil {
				continue
			}
			if err := b.Delete([]byte(k)); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// Labels returns the stored labels of keys, or every stored label when keys
// is nil, by key.
func (db *DB) Labels(keys []string) (map[string]labels.Label, error) {
	out := map[string]labels.Label{}
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketLabels)
		if b == nil {
			return nil
		}
		get := func(k, v []byte) error {
			l, err := decodeLabelValue(k, v)
			if err != nil {
				return damaged(db.path, "label %s: %v", printableKey(k), err)
			}
			out[l.Key] = l
			return nil
		}
		if keys == nil {
			return b.ForEach(get)
		}
		for _, k := range keys {
			if v := b.Get([]byte(k)); v != nil {
				if err := get([]byte(k), v); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// SortLabels orders labels for an export: by sample, task, then item.
func SortLabels(ls []labels.Label) {
	slices.SortFunc(ls, func(a, b labels.Label) int {
		return cmp.Or(strings.Compare(a.Sample, b.Sample), strings.Compare(a.Task, b.Task), strings.Compare(a.Item, b.Item))
	})
}

func decodeLabelValue(k, v []byte) (labels.Label, error) {
	var l labels.Label
	if err := json.Unmarshal(v, &l); err != nil {
		return l, fmt.Errorf("unreadable label: %v", err)
	}
	if l.Key != string(k) {
		return l, errors.New("the label is stored under another key")
	}
	return l, checkLabel(l)
}

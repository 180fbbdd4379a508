package cache

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// DeleteRuns removes the runs with these exact ids (not prefixes or
// "latest": resolve them first) and all their results, in one transaction,
// and says how many run records and results it removed. An id that is not
// recorded is skipped, so that a deletion repeated after the loss of a
// holder succeeds. The file does not shrink until Compact.
//
// It does not know which runs are being evaluated: refusing a live run is
// the caller's (the holder's, or the command's) business. A run deleted
// under its evaluator fails its next PutResult.
func (db *DB) DeleteRuns(ids []string) (runs, results int, err error) {
	for _, id := range ids {
		if err := checkRunID(id); err != nil {
			return 0, 0, err
		}
	}
	if len(ids) == 0 {
		return 0, 0, nil
	}
	err = db.update(func(tx *bolt.Tx) error {
		runs, results = 0, 0 // the function may run more than once
		rb, resb := tx.Bucket(bucketRuns), tx.Bucket(bucketResults)
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			// Deleting under a cursor skips entries in bbolt; collect first.
			prefix := append([]byte(id), resultSep)
			var keys [][]byte
			c := resb.Cursor()
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
				keys = append(keys, append([]byte(nil), k...))
			}
			for _, k := range keys {
				if err := resb.Delete(k); err != nil {
					return err
				}
			}
			results += len(keys)
			if rb.Get([]byte(id)) != nil {
				if err := rb.Delete([]byte(id)); err != nil {
					return err
				}
				runs++
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("delete runs from %s: %w", db.path, err)
	}
	return runs, results, nil
}

package cache

import (
	"bytes"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// DeleteRuns removes the runs with these exact ids and all their results,
// in one transaction, and says how many records and results it removed.
// An unknown id is skipped, so that a deletion repeated after the loss of
// a holder succeeds. Refusing a live run is the caller's business.
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
		for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
			prefix := append([]byte(id), resultSep)
			var keys [][]byte
			c := resb.Cursor()
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
				keys = append(keys, bytes.Clone(k))
			}
			if err := deleteAll(resb, keys); err != nil {
				return err
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

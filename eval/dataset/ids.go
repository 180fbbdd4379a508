package dataset

import (
	"errors"
	"hash/maphash"

	"github.com/ragscope/ragscope/eval"
)

// Duplicate ids. Runs are compared by id, so a repeated id is an invalid
// record, found while the file is scanned: the first error must be the
// first in the file, and a repeat skipped under --skip-invalid shifts the
// Index of every sample after it. Keeping every id would make a scan grow
// with the ids' lengths, so a scan keeps a 64-bit hash of each in an
// open-addressing set (8 bytes a slot, at most 3/4 full: 11 to 22 bytes an
// id, 32 while the set doubles).
//
// A hash seen before only makes the record a suspect. The verdict stays
// exact thus: the scan goes on taking every suspect for a repeat (without
// --skip-invalid it stops at the first), then one more pass over the file
// keeps the ids whose hashes the suspects have and checks that each
// suspect's id was met before it, which also gives where, for the message.
// A suspect whose id was not met before is a collision of two ids' hashes
// (some 1e-8 likely for a million ids): its provisional verdict may have
// skipped a good record, so the scan is done again with another seed.
// After hashedAttempts scans the ids are kept whole (exactIDs), as they are
// when the dataset cannot be read twice (Read from a stream).

// idCheck tells whether a sample's id repeats an earlier one.
type idCheck interface {
	// dup is called for each sample with an id, in order, c.idSeq
	// numbering them; on a repeat it records the sample as invalid
	// (c.skipDup or c.bad) and returns true with what that returned.
	dup(c *collector, s *eval.Sample, idKey string) (bool, error)
}

// hashedAttempts is how many scans hash the ids before they are kept whole.
const hashedAttempts = 3

// newIDHash gives the id hash of a scan's attempt (0, 1, ...); tests
// replace it to force collisions.
var newIDHash = func(attempt int) func(string) uint64 {
	seed := maphash.MakeSeed()
	return func(id string) uint64 { return maphash.String(seed, id) }
}

var (
	// errSuspect ends a scan without --skip-invalid at the first suspect
	// repeat, which one more pass confirms or clears.
	errSuspect = errors.New("dataset: suspected duplicate id")
	// errCollision ends a confirming pass that found a suspect whose id
	// was not met before it: the scan must be done again.
	errCollision = errors.New("dataset: id hash collision")
	// errConfirmed ends a confirming pass once the last suspect is
	// confirmed, when the rest of the file cannot change the outcome.
	errConfirmed = errors.New("dataset: duplicate ids confirmed")
)

// hashSet is an open-addressing set of 64-bit hashes with linear probing;
// slot value 0 means empty, so a hash of 0 is stored as 1 (a collision like
// any other, caught by the confirmation).
type hashSet struct {
	slots []uint64
	n     int
}

// add inserts h and reports whether it was there already.
func (t *hashSet) add(h uint64) bool {
	if h == 0 {
		h = 1
	}
	if t.n >= len(t.slots)/4*3 {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch t.slots[i] {
		case h:
			return true
		case 0:
			t.slots[i] = h
			t.n++
			return false
		}
	}
}

func (t *hashSet) grow() {
	old := t.slots
	t.slots = make([]uint64, max(2*len(old), 1024))
	mask := uint64(len(t.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = h
	}
}

// hashedIDs is the scan's check: ids by their hashes, repeats suspected.
type hashedIDs struct {
	hash     func(string) uint64
	set      hashSet
	suspects []suspect
}

// suspect is a record whose id's hash was seen before. note is set for
// those whose message is shown (the error, or an entry of Skipped).
type suspect struct {
	seq  int64
	hash uint64
	note *dupNote
}

// dupNote is what the message about a repeat needs: the record's id and
// where it is, its entry in Skipped (-1 for the error), and where the id
// was first used, which the confirming pass fills in.
type dupNote struct {
	id, idKey, file, unit string
	line                  int
	skip                  int
	first                 idSite
}

func (h *hashedIDs) dup(c *collector, s *eval.Sample, idKey string) (bool, error) {
	sum := h.hash(s.ID)
	if !h.set.add(sum) {
		return false, nil
	}
	sp := suspect{seq: c.idSeq, hash: sum}
	note := &dupNote{id: s.ID, idKey: idKey, file: c.name, unit: c.unit, line: s.Line, skip: -1}
	if !c.skip {
		sp.note = note
		h.suspects = append(h.suspects, sp)
		return true, errSuspect
	}
	if len(c.skipped) < MaxSkipped {
		note.skip = len(c.skipped)
		sp.note = note
	}
	h.suspects = append(h.suspects, sp)
	c.dupSeqs = append(c.dupSeqs, c.idSeq)
	// The reason is written once the confirming pass knows the first use.
	return true, c.bad(s.Line, "id", "")
}

// confirmIDs is the confirming pass's check: it keeps the first site of
// each id whose hash a suspect has, and checks each suspect against them.
type confirmIDs struct {
	h      *hashedIDs
	hashes map[uint64]bool
	firsts map[string]idSite
	next   int // the next suspect
	// toEnd: read the whole file (to compare its sha256 with the scan's)
	// rather than stop after the last suspect.
	toEnd bool
}

func newConfirmIDs(h *hashedIDs, toEnd bool) *confirmIDs {
	k := &confirmIDs{h: h, hashes: make(map[uint64]bool, len(h.suspects)), firsts: map[string]idSite{}, toEnd: toEnd}
	for _, sp := range h.suspects {
		k.hashes[sp.hash] = true
	}
	return k
}

func (k *confirmIDs) dup(c *collector, s *eval.Sample, _ string) (bool, error) {
	sum := k.h.hash(s.ID)
	if !k.hashes[sum] {
		return false, nil
	}
	if k.next < len(k.h.suspects) && k.h.suspects[k.next].seq == c.idSeq {
		sp := k.h.suspects[k.next]
		k.next++
		first, ok := k.firsts[s.ID]
		if !ok {
			return true, errCollision
		}
		if sp.note != nil {
			sp.note.first = first
		}
		if k.next == len(k.h.suspects) && !k.toEnd {
			return true, errConfirmed
		}
		return true, nil
	}
	if _, ok := k.firsts[s.ID]; !ok {
		k.firsts[s.ID] = idSite{c.name, s.Line}
	}
	return false, nil
}

// exactIDs keeps every id whole, with where it was first used.
type exactIDs map[string]idSite

func (x exactIDs) dup(c *collector, s *eval.Sample, idKey string) (bool, error) {
	if first, ok := x[s.ID]; ok {
		return true, c.skipDup(s, idKey, first)
	}
	x[s.ID] = idSite{c.name, s.Line}
	return false, nil
}

// replayIDs is Stream's check: the repeats are the records the scan
// found to be (seqs, in order), which Stream skips without keeping ids.
type replayIDs struct {
	seqs []int64
}

func (r *replayIDs) dup(c *collector, s *eval.Sample, _ string) (bool, error) {
	if len(r.seqs) == 0 || r.seqs[0] != c.idSeq {
		return false, nil
	}
	r.seqs = r.seqs[1:]
	return true, c.bad(s.Line, "id", "repeats an earlier id")
}

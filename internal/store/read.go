package store

import (
	"fmt"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

// readPage is how many results a reader of a stored run (a report, a
// resumed run) reads from the store at once: its memory is a page, whatever
// the size of the run.
const readPage = 256

// Each yields run id's stored results in index order, a page at a
// time; keep, when set, says which indexes to yield.
func Each(st cache.Store, id string, keep func(int) bool) func(yield func(*eval.Result) error) error {
	return func(yield func(*eval.Result) error) error {
		// The next page is read (decoded) while this one is yielded (mostly
		// encoded), so the two share the cores; none is left being read
		// when this returns.
		type fetched struct {
			page []*eval.Result
			next int
			err  error
		}
		fetch := func(from int) chan fetched {
			c := make(chan fetched, 1)
			go func() {
				_, page, next, err := st.RunPage(id, from, readPage)
				c <- fetched{page, next, err}
			}()
			return c
		}
		pending := fetch(0)
		defer func() {
			if pending != nil {
				<-pending
			}
		}()
		for from := 0; from >= 0; {
			f := <-pending
			pending = nil
			if f.err != nil {
				return f.err
			}
			page, next := f.page, f.next
			if next > from {
				pending = fetch(next)
			}
			for _, r := range page {
				if keep != nil && !keep(r.Index) {
					continue
				}
				if err := yield(r); err != nil {
					return err
				}
			}
			if next >= 0 && next <= from {
				return fmt.Errorf("run %s: the store went back from sample %d to %d", id, from, next)
			}
			from = next
		}
		return nil
	}
}

// Result is run id's result of sample index.
func Result(st cache.Store, id string, index int) (*eval.Result, error) {
	_, page, _, err := st.RunPage(id, index, 1)
	if err != nil {
		return nil, err
	}
	if len(page) == 0 || page[0].Index != index {
		return nil, fmt.Errorf("run %s has no result for sample %d", id, index)
	}
	return page[0], nil
}

// Cursor reads a stored run's results in index order as they are
// asked for, a page at a time.
type Cursor struct {
	st   cache.Store
	id   string
	page []*eval.Result
	pos  int
	next int // where the following page starts; -1 after the last
	err  error
	read bool
}

// NewCursor is a Cursor over run id of st.
func NewCursor(st cache.Store, id string) *Cursor { return &Cursor{st: st, id: id} }

// Finished is the stored result of sample index when it finished without
// failing, nil otherwise (also when the store cannot be read: the sample
// is then evaluated again, which costs calls but loses nothing). Asked out
// of order it starts over from index.
func (c *Cursor) Finished(index int) *eval.Result {
	if c.read && c.pos > 0 && c.page[c.pos-1].Index >= index {
		c.read = false // asked for an earlier sample: start over
	}
	if !c.read {
		c.page, c.pos, c.next, c.read = nil, 0, index, true
	}
	for {
		for c.pos < len(c.page) && c.page[c.pos].Index < index {
			c.pos++
		}
		if c.pos < len(c.page) {
			if r := c.page[c.pos]; r.Index == index && !r.Failed() {
				return r
			}
			return nil
		}
		if c.next < 0 || c.err != nil {
			return nil
		}
		_, c.page, c.next, c.err = c.st.RunPage(c.id, c.next, readPage)
		c.pos = 0
	}
}

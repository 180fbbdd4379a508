package holder

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ragscope/ragscope/internal/outfile"
)

// The hand-over of claims from one holder to the next. A client with a
// call on the wire still holds its claim when its holder goes away, but
// the next holder does not know it and would grant the call to another
// client, which would pay it again. So a holder keeps, beside its socket,
// the pids of the clients it granted claims to (the claimers file); the
// next holder reads it and, for at most handoverWait, grants no new claim
// until each of those still alive has come back (Client.Lost tells them at
// once) and re-registered its claims (Rejoin).

// handoverWait bounds how long a new holder waits for its predecessor's
// claimers: one that does not come back in time (hung, or busy for
// seconds before it notices) only costs the calls it had in flight.
var handoverWait = 3 * time.Second

// claimersName is the file of claimer pids, in the socket's directory.
const claimersName = "claimers"

// handover is a new holder waiting for its predecessor's claimers.
type handover struct {
	mu     sync.Mutex
	expect map[int]bool
	done   chan struct{}
	finish func() // closes done, once
}

func newHandover(expect map[int]bool) *handover {
	h := &handover{expect: expect, done: make(chan struct{})}
	h.finish = sync.OnceFunc(func() { close(h.done) })
	if len(expect) == 0 {
		h.finish()
		return h
	}
	time.AfterFunc(handoverWait, h.finish)
	return h
}

// back marks pid as come back.
func (h *handover) back(pid int) {
	h.mu.Lock()
	delete(h.expect, pid)
	left := len(h.expect)
	h.mu.Unlock()
	if left == 0 {
		h.finish()
	}
}

// wait returns once new claims may be granted, or when ctx is done.
func (h *handover) wait(ctx context.Context) error {
	select {
	case <-h.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readClaimers reads and removes the claimers file a predecessor left in
// dir: the pids, still alive, other than ours.
func readClaimers(dir string) map[int]bool {
	path := filepath.Join(dir, claimersName)
	b, err := os.ReadFile(path)
	_ = os.Remove(path)
	if err != nil {
		return nil
	}
	out := map[int]bool{}
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
			out[pid] = true
		}
	}
	return out
}

// writeClaimers writes the pids of the clients holding or having held
// claims, for a successor; none: the file goes.
func (s *Server) writeClaimers() {
	s.claimersMu.Lock()
	defer s.claimersMu.Unlock()
	s.mu.Lock()
	var pids []int
	for c := range s.conns {
		if c.claimer.Load() && c.pid > 0 {
			pids = append(pids, c.pid)
		}
	}
	s.mu.Unlock()
	slices.Sort(pids)
	pids = slices.Compact(pids)
	if slices.Equal(pids, s.claimersWritten) {
		return
	}
	path := filepath.Join(filepath.Dir(s.sock), claimersName)
	if len(pids) == 0 {
		if err := os.Remove(path); err == nil || errors.Is(err, os.ErrNotExist) {
			s.claimersWritten = nil
		}
		return
	}
	var b strings.Builder
	for _, p := range pids {
		fmt.Fprintln(&b, p)
	}
	if outfile.Write(path, []byte(b.String())) == nil {
		s.claimersWritten = pids
	}
}

// markClaimer records that c holds claims, for a successor to wait for.
func (c *conn) markClaimer() {
	if c.claimer.CompareAndSwap(false, true) {
		c.srv.writeClaimers()
	}
}

// HandoverDone is closed once the predecessor's claimers have come back (or
// the hand-over ran out of time): the holder's own new claims wait for it.
func (s *Server) HandoverDone() <-chan struct{} { return s.handover.done }

// Rejoin re-registers, for a client that held them at the previous holder,
// the claims it still holds, and ends the hand-over's wait for it. Each
// key granted comes back with its token; 0 for a key someone else holds.
func (c *Client) Rejoin(keys []string) ([]uint64, error) {
	return ask[[]uint64](c.Stub, "Rejoin", keys)
}

package holder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"net/rpc/jsonrpc"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ragscope/ragscope/cache"
)

// Server-side bounds of the calls that wait: a client cannot tell the
// server over net/rpc that it gave up, so it asks again while it cares. A
// claim that waited its bound answers "not granted": the caller looks the
// key up and claims again, as after any wait.
const (
	maxLiveWait  = 5 * time.Second
	maxClaimWait = 2 * time.Second
)

// The most results of a RunPage reply and of a RunSummaries one (which
// leaves out the contexts and traces): a page is one message.
const (
	maxRunPage     = 512
	maxSummaryPage = 4096
)

// ServeOptions describe the holder to its clients.
type ServeOptions struct {
	// Version is ragscope's version, announced in the Hello.
	Version string
	// Role says what the holder is doing ("run", "open", "serve").
	Role string
	// Runs evaluates runs for clients; nil when this holder does not.
	Runs RunService
}

// Server serves one open database on its socket.
type Server struct {
	db    *cache.DB
	opt   ServeOptions
	sock  string
	hello Hello
	uid   int // the uid a peer must have
	ln    *net.UnixListener
	// sockFile identifies the socket we created, so that Close never
	// removes a socket a successor has put in its place.
	sockFile fs.FileInfo

	ctx    context.Context // cancelled by Close: ends every wait
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once

	// handover holds new claims back until the previous holder's claimers
	// have come back (see handover.go).
	handover *handover
	// claimersMu serialises writes of the claimers file; claimersWritten
	// is what it holds.
	claimersMu      sync.Mutex
	claimersWritten []int

	mu     sync.Mutex
	closed bool
	conns  map[*conn]struct{}
	live   map[string]liveEntry
}

type liveEntry struct {
	owner *conn // nil: the holder's own run
	LiveRun
	progress *Progress // the evaluator's last word on it; nil: none yet
}

// Serve serves db on its socket (SocketPath) until Close. Close the server
// before the database: calls in flight use it.
//
// A socket that nothing answers on (a holder that died) is removed; one
// that answers makes Serve fail with an error wrapping ErrServed.
func Serve(db *cache.DB, opt ServeOptions) (*Server, error) {
	return serve(db, opt, os.Getuid())
}

// serve is Serve with the uid peers must have, which tests fake: connecting
// as another user is not something a test can do.
func serve(db *cache.DB, opt ServeOptions, peerUID int) (*Server, error) {
	if db == nil {
		return nil, errors.New("holder: Serve needs an open database")
	}
	dbPath, err := filepath.Abs(db.Path())
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", db.Path(), err)
	}
	if db.ReadOnly() {
		return nil, fmt.Errorf("database %s is open read-only; only a process that can write it may serve it", dbPath)
	}
	if opt.Role == "" {
		opt.Role = "holder"
	}
	sock, err := SocketPath(dbPath)
	if err != nil {
		return nil, err
	}
	if err := ensureSocketDir(filepath.Dir(sock), os.Getuid()); err != nil {
		return nil, fmt.Errorf("database %s: %w", dbPath, err)
	}
	if err := RemoveStale(sock); err != nil {
		return nil, err
	}
	// Whoever held the database before us may have left clients with
	// claims; they come back now (handover.go).
	expect := readClaimers(filepath.Dir(sock))
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			// Another process bound it between our check and our bind.
			return nil, fmt.Errorf("database %s is already served on %s by another process: %w", dbPath, sock, ErrServed)
		}
		return nil, fmt.Errorf("database %s: cannot listen on %s: %w", dbPath, sock, err)
	}
	// We remove the file ourselves, and only if it is still ours.
	ln.SetUnlinkOnClose(false)
	// The directory is already owner-only; the mode of the socket is a
	// second fence should the directory ever be opened up.
	if err := os.Chmod(sock, 0o600); err != nil {
		_ = ln.Close()
		_ = os.Remove(sock)
		return nil, fmt.Errorf("database %s: cannot restrict the socket %s: %w", dbPath, sock, err)
	}
	fi, err := os.Lstat(sock)
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("database %s: the socket %s vanished: %w", dbPath, sock, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		db: db, opt: opt, sock: sock, uid: peerUID, ln: ln, sockFile: fi,
		hello: Hello{
			Protocol: Protocol, Version: opt.Version, PID: os.Getpid(), Role: opt.Role,
			DB: dbPath, Started: time.Now().UTC(),
		},
		ctx: ctx, cancel: cancel,
		handover: newHandover(expect),
		conns:    map[*conn]struct{}{},
		live:     map[string]liveEntry{},
	}
	s.wg.Go(s.accept)
	return s, nil
}

// BeginRun announces a run this process is evaluating (see Live).
func (s *Server) BeginRun(id string) {
	s.beginRun(id, nil, LiveRun{PID: s.hello.PID, Role: s.hello.Role})
}

// EndRun withdraws a run announced by BeginRun.
func (s *Server) EndRun(id string) { s.endRun(id, nil) }

// beginRun records a live run of owner (nil: the holder's own).
func (s *Server) beginRun(id string, owner *conn, lr LiveRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live[id] = liveEntry{owner: owner, LiveRun: lr}
}

// endRun withdraws a live run, only if owner began it.
func (s *Server) endRun(id string, owner *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.live[id]; ok && e.owner == owner {
		delete(s.live, id)
	}
}

// Live lists the runs being evaluated now, by this process or its clients.
func (s *Server) Live() map[string]LiveRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]LiveRun, len(s.live))
	for id, e := range s.live {
		out[id] = e.LiveRun
	}
	return out
}

// Close stops serving: no new connections, every connection closed (its
// claims released, its runs no longer live), the socket removed if it is
// still ours. It returns once every call in flight has returned.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		conns := slices.Collect(maps.Keys(s.conns))
		s.mu.Unlock()
		_ = s.ln.Close()
		s.cancel()
		for _, c := range conns {
			_ = c.nc.Close()
		}
		s.wg.Wait()
		if fi, serr := os.Lstat(s.sock); serr == nil && os.SameFile(fi, s.sockFile) {
			if rerr := os.Remove(s.sock); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err = fmt.Errorf("database %s: cannot remove its socket %s: %w; remove it by hand", s.hello.DB, s.sock, rerr)
			}
			// The directory goes too, unless it is not empty: no successor
			// can be creating its socket there before our caller lets go
			// of the file's lock.
			_ = os.Remove(filepath.Dir(s.sock))
		}
	})
	return err
}

func (s *Server) accept() {
	pause := 5 * time.Millisecond
	for {
		nc, err := s.ln.AcceptUnix()
		if err != nil {
			if s.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors, most likely: give the process a
			// moment rather than spinning.
			select {
			case <-time.After(pause):
			case <-s.ctx.Done():
				return
			}
			pause = min(2*pause, time.Second)
			continue
		}
		pause = 5 * time.Millisecond
		s.wg.Go(func() { s.serveConn(nc) })
	}
}

// checkPeer is the refusal for a peer of another uid, "" when it may
// connect. An unknown uid (no SO_PEERCRED on this system) is let through:
// the owner-only directory already kept others out.
func checkPeer(peerUID, ownerUID int) string {
	if peerUID < 0 || peerUID == ownerUID {
		return ""
	}
	return fmt.Sprintf("refused: uid %d is not the owner (uid %d) of this database", peerUID, ownerUID)
}

// conn is one client connection. Claims it was granted and runs it began
// belong to it, so that a client that dies (or is killed mid-request)
// leaves nothing held behind.
type conn struct {
	srv *Server
	nc  *net.UnixConn
	pid int
	// ctx ends when the client hangs up, so that its LiveUpdates and Claim
	// waits stop at once instead of at their bound.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	claims map[uint64]func()
	next   uint64
	// claimer: it was granted a claim; a successor waits for it.
	claimer atomic.Bool
}

func (s *Server) serveConn(nc *net.UnixConn) {
	uid, pid, err := peerCred(nc)
	if err != nil {
		_ = nc.Close()
		return
	}
	if msg := checkPeer(uid, s.uid); msg != "" {
		_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
		_ = writeHello(nc, Hello{Protocol: Protocol, Error: msg})
		_ = nc.Close()
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	c := &conn{srv: s, nc: nc, pid: pid, ctx: ctx, cancel: cancel, claims: map[uint64]func(){}}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel()
		_ = nc.Close()
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer c.finish()

	if err := writeHello(nc, s.hello); err != nil {
		_ = nc.Close()
		return
	}
	c.serveCalls(jsonrpc.NewServerCodec(hangupConn{nc, cancel}))
}

// finish releases what the connection held, after its last call returned
// (so no grant can arrive after it).
func (c *conn) finish() {
	c.cancel()
	c.mu.Lock()
	claims := c.claims
	c.claims = nil
	c.mu.Unlock()
	for _, release := range claims {
		release()
	}
	s := c.srv
	s.mu.Lock()
	delete(s.conns, c)
	for id, e := range s.live {
		if e.owner == c {
			delete(s.live, id)
		}
	}
	closing := s.closed
	s.mu.Unlock()
	// A client that leaves takes its claims with it; one that the holder
	// closes on its way out keeps its pid in the file, for the next holder.
	if c.claimer.Load() && !closing {
		s.writeClaimers()
	}
}

func (c *conn) addClaim(release func()) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	c.claims[c.next] = release
	return c.next
}

func (c *conn) release(token uint64) {
	c.mu.Lock()
	release := c.claims[token]
	delete(c.claims, token)
	c.mu.Unlock()
	if release != nil {
		release()
	}
}

// hangupConn calls hangup as soon as a read fails, that is as soon as the
// other end hangs up (either end is always reading): the client closes
// Lost, the server ends the waits (Watch, Claim) of the gone client.
type hangupConn struct {
	net.Conn
	hangup func()
}

func (h hangupConn) Read(p []byte) (int, error) {
	n, err := h.Conn.Read(p)
	if err != nil {
		h.hangup()
	}
	return n, err
}

func writeHello(nc net.Conn, h Hello) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	_, err = nc.Write(append(b, '\n'))
	return err
}

// noRunServicePhrase is how a client recognises ErrNoRunService in the
// text that net/rpc carries instead of the error.
const noRunServicePhrase = "does not run detached runs"

// usagePrefix marks, in the text net/rpc carries, an error of the
// client's flags or input (exit.UsageError); the client strips it.
const usagePrefix = "usage error: "

// stoppingPhrase is how a client recognises an answer cut short because the
// holder is stopping: ErrLost, so that it takes over and asks again.
const stoppingPhrase = "the holder is stopping"

var errStopping = errors.New(stoppingPhrase)

type noRunServiceError struct{ hello Hello }

func (e noRunServiceError) Error() string {
	return fmt.Sprintf("the holder of %s (pid %d, role %s) %s; start `ragscope serve --db %s` instead",
		e.hello.DB, e.hello.PID, e.hello.Role, noRunServicePhrase, e.hello.DB)
}

func (e noRunServiceError) Is(target error) bool { return target == ErrNoRunService }

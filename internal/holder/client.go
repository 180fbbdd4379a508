package holder

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/rpc"
	"net/rpc/jsonrpc"
	"os"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/exit"
)

const (
	defaultDialTimeout = 2 * time.Second
	// maxHello bounds the greeting so that something else listening on
	// the socket cannot make us read forever.
	maxHello = 64 << 10
	// staleProbe bounds the connect that tells a live socket from a
	// stale one; a live holder accepts at once (the kernel does).
	staleProbe = time.Second
)

// Client is a connection to the holder of a database; it implements
// cache.Store over the socket. It is safe for concurrent use: calls are
// multiplexed on the one connection.
type Client struct {
	Stub
	sock   string
	hello  Hello
	rpc    *rpc.Client
	closed atomic.Bool
	once   sync.Once
	done   chan struct{} // closed by Close: the monitor stops
	lost   chan struct{} // closed when the connection drops (see Lost)

	// What the monitor needs to tell a holder that stopped answering (a
	// process stopped with Ctrl-Z keeps its socket and its lock, and its
	// clients' calls wait silently): the calls in flight, the last reply.
	pending   atomic.Int64
	lastReply atomic.Int64 // unix nanoseconds
	hungMu    sync.Mutex
	hung      bool
	onHung    func(hung bool)
}

// Hung-holder detection: while calls are in flight and nothing has come
// back for pingAfter, the client pings the holder (a call every holder
// answers at once); a ping unanswered for HungAfter means the holder is
// hung or stopped, and its answer, whenever it comes, that it is back.
const (
	pingAfter = time.Second
	// HungAfter is how long a holder may leave a ping unanswered before
	// its clients say it may be hung: as long as Dial waits for a greeting.
	HungAfter   = defaultDialTimeout
	monitorTick = 250 * time.Millisecond
)

var _ cache.Store = (*Client)(nil)

// Dial connects to the holder serving on sockPath (see SocketPath) and reads
// its Hello, all within timeout (2 s when zero). Nobody serving gives an
// error wrapping ErrNoHolder, a holder of another protocol ErrIncompatible.
func Dial(sockPath string, timeout time.Duration) (*Client, error) {
	if timeout <= 0 {
		timeout = defaultDialTimeout
	}
	deadline := time.Now().Add(timeout)
	fi, err := statSocket(sockPath)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("cannot reach the socket %s: permission denied; the database's directory belongs to another user: use a database of your own (--db FILE)", sockPath)
	case err != nil:
		return nil, err
	case fi == nil:
		return nil, fmt.Errorf("no ragscope process serves this database (no socket %s): %w", sockPath, ErrNoHolder)
	}
	if owner, me := fileOwner(fi), os.Getuid(); owner >= 0 && owner != me {
		return nil, fmt.Errorf("the socket %s belongs to %s, not to you (uid %d): that user's ragscope holds this database; use a database of your own (--db FILE)",
			sockPath, userName(owner), me)
	}
	nc, err := net.DialTimeout("unix", sockPath, timeout)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("nothing answers on the socket %s (the process that served the database is gone): %w", sockPath, ErrNoHolder)
		}
		return nil, fmt.Errorf("cannot connect to the holder of the database on %s: %w", sockPath, err)
	}
	_ = nc.SetDeadline(deadline)
	h, err := readHello(nc)
	switch {
	case err != nil:
		err = helloError(sockPath, timeout, err)
	case h.Error != "":
		err = fmt.Errorf("the holder on %s: %s; use a database of your own (--db FILE)", sockPath, h.Error)
	case h.Protocol != Protocol:
		err = incompatible(sockPath, h)
	}
	if err != nil {
		_ = nc.Close()
		return nil, err
	}
	_ = nc.SetDeadline(time.Time{})
	lost := make(chan struct{})
	c := &Client{sock: sockPath, hello: h, rpc: jsonrpc.NewClient(hangupConn{nc, sync.OnceFunc(func() { close(lost) })}),
		done: make(chan struct{}), lost: lost}
	c.Stub = NewStub(c.call)
	c.lastReply.Store(time.Now().UnixNano())
	go c.monitor()
	return c, nil
}

// Lost is closed as soon as the connection to the holder drops, whether or
// not a call waits on it, so that a client holding claims comes back to the
// next holder at once (handover.go).
func (c *Client) Lost() <-chan struct{} { return c.lost }

// OnHung sets what is called when the holder stops answering (true) and
// when it answers again (false); from the monitor's goroutine, never while
// a call of this client holds a lock of the caller.
func (c *Client) OnHung(fn func(hung bool)) {
	c.hungMu.Lock()
	defer c.hungMu.Unlock()
	c.onHung = fn
}

func (c *Client) setHung(hung bool) {
	c.hungMu.Lock()
	changed := c.hung != hung
	c.hung = hung
	fn := c.onHung
	c.hungMu.Unlock()
	if changed && fn != nil {
		fn(hung)
	}
}

// monitor pings a holder that has answered nothing for a while as calls
// wait on it, and reports one that does not answer the ping.
func (c *Client) monitor() {
	tick := time.NewTicker(monitorTick)
	defer tick.Stop()
	var ping chan struct{} // closed when the ping in flight is answered
	var sent time.Time
	for {
		select {
		case <-c.done:
			return
		case <-tick.C:
		}
		if ping != nil {
			select {
			case <-ping:
				ping = nil
				if !c.closed.Load() {
					c.setHung(false)
				}
			default:
				if time.Since(sent) >= HungAfter {
					c.setHung(true)
				}
				continue
			}
		}
		quiet := time.Since(time.Unix(0, c.lastReply.Load()))
		if c.pending.Load() == 0 || quiet < pingAfter {
			continue
		}
		sent = time.Now()
		// Go does not block on an answer, but its write may block on a
		// holder that reads nothing: send it from a goroutine of its own.
		ping = make(chan struct{})
		go func(answered chan struct{}) {
			<-c.rpc.Go("Store.Ping", nil, new([]any), make(chan *rpc.Call, 1)).Done
			c.lastReply.Store(time.Now().UnixNano())
			close(answered)
		}(ping)
	}
}

// readHello reads the greeting a byte at a time: whatever follows it
// belongs to the RPC codec, which must see it from its first byte.
func readHello(nc net.Conn) (Hello, error) {
	var (
		line []byte
		b    [1]byte
	)
	for {
		n, err := nc.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
			if len(line) > maxHello {
				return Hello{}, errBadHello{errors.New("no end of line in its first 64 KiB")}
			}
			continue
		}
		if err != nil {
			return Hello{}, err
		}
	}
	var h Hello
	if err := json.Unmarshal(line, &h); err != nil {
		return Hello{}, errBadHello{err}
	}
	return h, nil
}

type errBadHello struct{ err error }

func (e errBadHello) Error() string { return e.err.Error() }

func helloError(sock string, timeout time.Duration, err error) error {
	var bad errBadHello
	switch {
	case errors.As(err, &bad):
		return fmt.Errorf("something answers on the socket %s but not with a ragscope greeting (%v); if it is another ragscope version, stop it or use the same version: %w",
			sock, bad.err, ErrIncompatible)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("the holder of the database on %s did not greet within %s; it may be hung: try again, or stop that process", sock, timeout)
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		// A holder shutting down closes what it accepted; the caller
		// should try again or take over, as if nobody served.
		return fmt.Errorf("the holder on %s hung up before greeting (it is stopping): %w", sock, ErrNoHolder)
	}
	return fmt.Errorf("cannot read the greeting of the holder on %s: %w", sock, err)
}

func incompatible(sock string, h Hello) error {
	version := cmp.Or(h.Version, "an unknown version")
	db := cmp.Or(h.DB, "served on "+sock)
	pid := "an unknown pid"
	if h.PID > 0 {
		pid = "pid " + strconv.Itoa(h.PID)
	}
	return fmt.Errorf("database %s is held by ragscope %s (%s), which speaks holder protocol %d; this ragscope speaks protocol %d: stop that process or use the same ragscope version: %w",
		db, version, pid, h.Protocol, Protocol, ErrIncompatible)
}

func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("user %s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}

// statSocket is the socket file at sockPath, nil when there is none.
func statSocket(sockPath string) (fs.FileInfo, error) {
	fi, err := os.Lstat(sockPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("cannot check the socket %s: %w", sockPath, err)
	case fi.Mode().Type() != fs.ModeSocket:
		return nil, fmt.Errorf("%s is not a socket (mode %s); remove it, ragscope serves the database there", sockPath, fi.Mode())
	}
	return fi, nil
}

// RemoveStale removes a socket file that nothing answers on, left by a
// holder that died; one that answers is reported with ErrServed.
func RemoveStale(sockPath string) error {
	fi, err := statSocket(sockPath)
	if fi == nil {
		return err
	}
	nc, err := net.DialTimeout("unix", sockPath, staleProbe)
	switch {
	case err == nil:
		_ = nc.SetDeadline(time.Now().Add(staleProbe))
		h, _ := readHello(nc)
		_ = nc.Close()
		who := "another process"
		if h.PID > 0 {
			who = fmt.Sprintf("ragscope %s (pid %d, %s)", h.Version, h.PID, h.Role)
		}
		return fmt.Errorf("the database is already served on %s by %s; connect to it or stop it: %w", sockPath, who, ErrServed)
	case errors.Is(err, syscall.EAGAIN):
		// A full accept queue: someone is listening, just busy.
		return fmt.Errorf("the database is already served on %s by a busy process; connect to it or stop it: %w", sockPath, ErrServed)
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case !errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("cannot tell whether the socket %s is in use: %w", sockPath, err)
	}
	// Only the file we found refusing: not one a new holder just bound.
	if now, err := os.Lstat(sockPath); err != nil || !os.SameFile(now, fi) {
		return nil
	}
	if err := os.Remove(sockPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot remove the stale socket %s: %w; remove it by hand", sockPath, err)
	}
	return nil
}

// Hello is the holder's greeting.
func (c *Client) Hello() Hello { return c.hello }

// Path is the holder's database file.
func (c *Client) Path() string { return c.hello.DB }

// ReadOnly is false: only a process that can write the file serves it.
func (c *Client) ReadOnly() bool { return false }

// Close closes the connection; the holder releases the claims and ends the
// runs this client held.
func (c *Client) Close() error {
	var err error
	c.once.Do(func() {
		c.closed.Store(true)
		close(c.done)
		err = c.rpc.Close()
	})
	return err
}

// remoteError is an error the holder's store returned, with its text; the
// few the caller decides on keep their identity.
type remoteError struct {
	msg      string
	sentinel error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.sentinel }

// wrap turns what net/rpc reports into the errors callers decide on.
func (c *Client) wrap(err error) error {
	if err == nil {
		return nil
	}
	var se rpc.ServerError
	if errors.As(err, &se) {
		if msg, ok := strings.CutPrefix(string(se), usagePrefix); ok {
			return exit.UsageError{Err: errors.New(msg)}
		}
		if strings.Contains(string(se), noRunServicePhrase) {
			return &remoteError{msg: string(se), sentinel: ErrNoRunService}
		}
		if string(se) == stoppingPhrase {
			return fmt.Errorf("%w of database %s (pid %d): %s", ErrLost, c.hello.DB, c.hello.PID, stoppingPhrase)
		}
		return se
	}
	if c.closed.Load() {
		return fmt.Errorf("the connection to the holder of %s was closed by this process: %w", c.hello.DB, cache.ErrClosed)
	}
	if isLost(err) {
		return fmt.Errorf("%w of database %s (pid %d, socket %s): %w", ErrLost, c.hello.DB, c.hello.PID, c.sock, err)
	}
	return fmt.Errorf("database %s through its holder (pid %d): %w", c.hello.DB, c.hello.PID, err)
}

func isLost(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, rpc.ErrShutdown) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.As(err, &ne)
}

// call sends method with args, in order, and reads the values of its reply
// into results, in order; net/rpc leaves them zero when the call fails.
func (c *Client) call(method string, args []any, results ...any) error {
	_, err := c.callCtx(context.Background(), method, args, results...)
	return err
}

// callCtx is call for the methods that wait: it stops waiting when ctx is
// done. The call itself runs on (the server bounds it) and its reply, if
// any, goes to the returned call's Done.
func (c *Client) callCtx(ctx context.Context, method string, args []any, results ...any) (*rpc.Call, error) {
	c.pending.Add(1)
	defer func() {
		// Whatever came back, the holder is alive (or its connection is
		// gone, which the call reports).
		c.lastReply.Store(time.Now().UnixNano())
		c.pending.Add(-1)
	}()
	// encoding/json decodes each value of the reply's array into the
	// pointer the slice holds there.
	call := c.rpc.Go("Store."+method, args, &results, make(chan *rpc.Call, 1))
	select {
	case <-call.Done:
		return call, c.wrap(call.Error)
	case <-ctx.Done():
		return call, ctx.Err()
	}
}

// RunSummaries is cache.DB.RunSummaries through the holder, which sends at
// most maxSummaryPage a reply, read here with the summary reader.
func (c *Client) RunSummaries(ref string, from, limit int, fn func(*eval.Result) error) (int, error) {
	var (
		raw  []json.RawMessage
		next int
	)
	if err := c.call("RunSummaries", []any{ref, from, limit}, &raw, &next); err != nil {
		return -1, err
	}
	var d cache.SummaryDecoder
	for i, b := range raw {
		res, err := d.Decode(b)
		if err != nil {
			return -1, fmt.Errorf("the holder's summary %d of run %s from sample %d cannot be read (%v); are both processes the same ragscope version?", i, ref, from, err)
		}
		if err := fn(res); err != nil {
			return -1, err
		}
	}
	return next, nil
}

// LiveUpdates: the holder answers each request within maxLiveWait, so a
// longer wait is a series of requests; a cancelled ctx returns at once.
func (c *Client) LiveUpdates(ctx context.Context, runID string, after int64, wait time.Duration) (cache.LiveBatch, error) {
	var deadline time.Time
	if wait > 0 {
		deadline = time.Now().Add(wait)
	}
	for first := true; ; first = false {
		if err := ctx.Err(); err != nil {
			return cache.LiveBatch{Seq: after}, err
		}
		w := maxLiveWait
		if wait > 0 {
			left := time.Until(deadline)
			if left <= 0 && !first {
				return cache.LiveBatch{Seq: after}, nil
			}
			// The holder reads a wait of zero as "its bound".
			w = max(min(w, left), time.Nanosecond)
		}
		var b cache.LiveBatch
		if _, err := c.callCtx(ctx, "LiveUpdates", []any{runID, after, w}, &b); err != nil {
			return cache.LiveBatch{Seq: after}, err
		}
		if after < 0 || b.Reset || b.Run != nil || len(b.Results) > 0 {
			return b, nil
		}
		after = b.Seq
	}
}

// Claim: the holder holds a granted claim for this
// connection: release it, or close the connection, or die.
func (c *Client) Claim(ctx context.Context, key string) (func(), bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	var (
		granted bool
		token   uint64
	)
	call, err := c.callCtx(ctx, "Claim", []any{key}, &granted, &token)
	if err != nil {
		if ctx.Err() != nil {
			// Abandoned: should the claim be granted after all, nobody
			// will fetch; let the waiters behind it go.
			go func() {
				<-call.Done
				if call.Error == nil && granted {
					c.Release(token)()
				}
			}()
		}
		return nil, false, err
	}
	if !granted {
		return nil, false, nil
	}
	return c.Release(token), true, nil
}

// Release is the release func of a granted claim (by Claim, or again by
// Rejoin). Its error is dropped: if the connection is gone, so is the claim.
func (c *Client) Release(token uint64) func() {
	return sync.OnceFunc(func() { _ = c.call("Release", []any{token}) })
}

// DeleteRuns: the holder refuses a live run.
func (c *Client) DeleteRuns(ids []string) (runs, results int, err error) {
	err = c.call("DeleteRuns", []any{ids}, &runs, &results)
	return runs, results, err
}

// Export: the holder sends the whole export in one reply; nothing is
// written to w unless it succeeded.
func (c *Client) Export(w io.Writer) (n int, err error) {
	var data []byte
	if err := c.call("Export", nil, &data, &n); err != nil {
		return 0, err
	}
	if _, err := w.Write(data); err != nil {
		return 0, fmt.Errorf("export %s: %w", c.hello.DB, err)
	}
	return n, nil
}

// Import reads the input whole before it sends it.
func (c *Client) Import(r io.Reader) (n int, err error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return 0, fmt.Errorf("import into %s: read the input: %w", c.hello.DB, err)
	}
	err = c.call("Import", []any{data}, &n)
	return n, err
}

// BeginRun announces a run this process is evaluating; it stays live until
// EndRun or until this connection closes.
func (c *Client) BeginRun(id string) error {
	return c.call("BeginRun", []any{id})
}

// EndRun withdraws a run announced by BeginRun.
func (c *Client) EndRun(id string) error {
	return c.call("EndRun", []any{id})
}

// Live lists the runs being evaluated now, by the holder or its clients.
func (c *Client) Live() (map[string]LiveRun, error) { return ask[map[string]LiveRun](c.Stub, "Live") }

// Submit hands a run to the holder's RunService and returns its id. It is
// not idempotent: after ErrLost the run may or may not have started.
func (c *Client) Submit(req SubmitRequest) (string, error) { return ask[string](c.Stub, "Submit", req) }

// Stop cancels a run the holder's RunService is evaluating.
func (c *Client) Stop(id string) error {
	return c.call("Stop", []any{id})
}

// Outcome waits until a run the holder's RunService evaluates has ended
// and says how, or until ctx is done; an unknown run comes back at once.
func (c *Client) Outcome(ctx context.Context, id string) (RunOutcome, error) {
	for {
		if err := ctx.Err(); err != nil {
			return RunOutcome{}, err
		}
		var r RunOutcome
		if _, err := c.callCtx(ctx, "Outcome", []any{id}, &r); err != nil {
			return RunOutcome{}, err
		}
		if r.Done || !r.Known {
			return r, nil
		}
	}
}

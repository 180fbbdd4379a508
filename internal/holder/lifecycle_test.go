package holder

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
)

func TestSocketPath(t *testing.T) {
	uid := os.Getuid()
	short := filepath.Join(t.TempDir(), "h.db")
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 90), "h.db")
	if err := os.MkdirAll(filepath.Dir(long), 0o700); err != nil {
		t.Fatal(err)
	}
	hashOf := func(p string) string {
		sum := sha256.Sum256([]byte(p))
		return hex.EncodeToString(sum[:])[:16]
	}
	tests := []struct {
		name string
		db   string
		want string
	}{
		{"beside the database", short, filepath.Join(filepath.Dir(short), ".h.db.holder", "sock")},
		{"too long: under the fallback root", long, filepath.Join(fallbackRoot, "ragscope-"+strconv.Itoa(uid), hashOf(long), "sock")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.db == short && len(tc.want) > maxSockPath {
				t.Skipf("the test directory %s is too long to test the short path", filepath.Dir(short))
			}
			got, err := SocketPath(tc.db)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("SocketPath(%s) = %s, want %s", tc.db, got, tc.want)
			}
			if again, _ := SocketPath(tc.db); again != got {
				t.Fatalf("not deterministic: %s then %s", got, again)
			}
			if len(got) > maxSockPath {
				t.Fatalf("%s is %d bytes, over %d", got, len(got), maxSockPath)
			}
		})
	}

	t.Run("spellings of one file share a socket", func(t *testing.T) {
		dir := t.TempDir()
		real := filepath.Join(dir, "real")
		if err := os.Mkdir(real, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		t.Chdir(dir)
		want, err := SocketPath(filepath.Join(real, "h.db"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"real/h.db", "link/h.db", filepath.Join(dir, "link", "..", "real", "h.db")} {
			if got, err := SocketPath(p); err != nil || got != want {
				t.Errorf("SocketPath(%s) = %s, %v; want %s", p, got, err, want)
			}
		}
	})

	t.Run("the default fallback root is /tmp", func(t *testing.T) {
		p := "/" + strings.Repeat("x", 120) + "/h.db"
		got, fallback := socketPathIn(p, "/tmp", 1234)
		if want := "/tmp/ragscope-1234/" + hashOf(p) + "/sock"; !fallback || got != want {
			t.Fatalf("got %s (%v), want %s", got, fallback, want)
		}
	})

	t.Run("fallback root created owner-only", func(t *testing.T) {
		fi, err := os.Lstat(filepath.Join(fallbackRoot, "ragscope-"+strconv.Itoa(uid)))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Fatalf("mode %s", fi.Mode().Perm())
		}
	})

	t.Run("fallback root open to others", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "ragscope-"+strconv.Itoa(uid))
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(root, 0o755); err != nil {
			t.Fatal(err)
		}
		err := ensurePrivateRoot(root, uid)
		if err == nil || !strings.Contains(err.Error(), "chmod 700 "+root) {
			t.Fatalf("got %v, want advice to chmod 700 %s", err, root)
		}
	})

	t.Run("fallback root of another user", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("needs root to give the directory to another user")
		}
		root := filepath.Join(t.TempDir(), "ragscope-0")
		if err := os.Mkdir(root, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(root, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := ensurePrivateRoot(root, 0); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Fatalf("got %v", err)
		}
	})
}

func TestServeAndDial(t *testing.T) {
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{Version: "1.2.3", Role: "open"})

	fi, err := os.Lstat(srv.Socket())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %s, want 0600", fi.Mode().Perm())
	}
	if di, err := os.Lstat(filepath.Dir(srv.Socket())); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("socket directory: %v %v, want 0700", di.Mode(), err)
	}

	cl := dial(t, srv.Socket())
	h := cl.Hello()
	abs, _ := filepath.Abs(db.Path())
	if h.Protocol != Protocol || h.Version != "1.2.3" || h.Role != "open" || h.PID != os.Getpid() || h.DB != abs || h.Started.IsZero() || h.Error != "" {
		t.Fatalf("hello %+v", h)
	}
	waitClients(t, srv, 1)
	if n := srv.Clients(); n != 1 {
		t.Fatalf("Clients = %d", n)
	}
	_ = cl.Close()
	waitClients(t, srv, 0)

	t.Run("a second server on the same socket", func(t *testing.T) {
		_, err := Serve(db, ServeOptions{})
		if !errors.Is(err, ErrServed) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
			t.Fatalf("got %v, want ErrServed naming the pid", err)
		}
		if err := RemoveStale(srv.Socket()); !errors.Is(err, ErrServed) {
			t.Fatalf("RemoveStale on a live socket: %v, want ErrServed", err)
		}
		dial(t, srv.Socket()) // still served
	})

	t.Run("read-only database", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "ro.db")
		w, err := cache.Open(path, cache.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_ = w.Close()
		ro, err := cache.Open(path, cache.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if _, err := Serve(ro, ServeOptions{}); err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Fatalf("served a read-only database: %v", err)
		}
	})
}

// A holder killed with SIGKILL leaves its socket file; nothing answers on it.
func TestStaleSocket(t *testing.T) {
	db := newDB(t)
	sock, err := SocketPath(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(sock, time.Second); !errors.Is(err, ErrNoHolder) {
		t.Fatalf("Dial with no socket: %v, want ErrNoHolder", err)
	}
	if err := os.Mkdir(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	leaveStale := func() {
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		ln.SetUnlinkOnClose(false)
		_ = ln.Close()
	}

	leaveStale()
	_, err = Dial(sock, time.Second)
	if !errors.Is(err, ErrNoHolder) || !strings.Contains(err.Error(), sock) {
		t.Fatalf("Dial on a stale socket: %v, want ErrNoHolder naming %s", err, sock)
	}
	if err := RemoveStale(sock); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("RemoveStale left the socket: %v", err)
	}
	if err := RemoveStale(sock); err != nil {
		t.Fatalf("RemoveStale with no socket: %v", err)
	}

	leaveStale()
	srv := serveDB(t, db, ServeOptions{})
	cl := dial(t, srv.Socket())
	if _, err := cl.Runs(); err != nil {
		t.Fatal(err)
	}
}

// Close removes only its own socket, not one a successor bound meanwhile.
func TestCloseLeavesASuccessorsSocket(t *testing.T) {
	db := newDB(t)
	srv, err := Serve(db, ServeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(srv.Socket()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", srv.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(srv.Socket()); err != nil {
		t.Fatalf("Close removed the successor's socket: %v", err)
	}
}

func TestDialRefusals(t *testing.T) {
	// fake serves one greeting on a socket of its own and returns its path.
	fake := func(t *testing.T, greeting string) string {
		sock := filepath.Join(t.TempDir(), "sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		t.Cleanup(func() { _ = ln.Close(); <-done })
		go func() {
			defer close(done)
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				_, _ = c.Write([]byte(greeting))
				// Hold the connection open until the listener closes, so
				// the client decides on the greeting alone.
				go func() {
					<-t.Context().Done()
					_ = c.Close()
				}()
			}
		}()
		return sock
	}
	hello := func(h Hello) string {
		b, _ := json.Marshal(h)
		return string(b) + "\n"
	}
	tests := []struct {
		name     string
		greeting string
		is       error
		says     []string
	}{
		{"older protocol", hello(Hello{Protocol: Protocol - 1, Version: "0.1.9", PID: 4242, Role: "run", DB: "/x/h.db"}), ErrIncompatible,
			[]string{"/x/h.db", "0.1.9", "pid 4242", fmt.Sprintf("protocol %d", Protocol-1), fmt.Sprintf("protocol %d", Protocol), "stop that process or use the same ragscope version"}},
		{"newer protocol", hello(Hello{Protocol: Protocol + 1, Version: "9.0"}), ErrIncompatible, []string{"9.0", fmt.Sprintf("protocol %d", Protocol+1)}},
		{"not a greeting", "SSH-2.0-OpenSSH\n", ErrIncompatible, []string{"not with a ragscope greeting"}},
		{"refused", hello(Hello{Protocol: Protocol, Error: "refused: uid 7 is not the owner (uid 8) of this database"}), nil,
			[]string{"refused: uid 7 is not the owner (uid 8)", "--db FILE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sock := fake(t, tc.greeting)
			_, err := Dial(sock, 5*time.Second)
			if err == nil {
				t.Fatal("Dial succeeded")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("%v, want %v", err, tc.is)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not say %q", err, s)
				}
			}
		})
	}
	t.Run("silent holder", func(t *testing.T) {
		sock := fake(t, "")
		_, err := Dial(sock, 50*time.Millisecond)
		if err == nil || errors.Is(err, ErrNoHolder) || !strings.Contains(err.Error(), "did not greet") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("not a socket", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "sock")
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Dial(p, time.Second); err == nil || !strings.Contains(err.Error(), "not a socket") {
			t.Fatalf("got %v", err)
		}
	})
}

func TestSocketOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the socket to another user (uid 65534)")
	}
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{})
	if err := os.Chown(srv.Socket(), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := Dial(srv.Socket(), time.Second)
	name := "uid 65534"
	if u, lerr := user.LookupId("65534"); lerr == nil {
		name = "user " + u.Username
	}
	if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "--db FILE") {
		t.Fatalf("got %v, want a refusal naming %s", err, name)
	}
}

func TestPeerCheck(t *testing.T) {
	tests := []struct {
		peer, owner int
		want        string
	}{
		{1000, 1000, ""},
		{0, 0, ""},
		{-1, 1000, ""}, // unknown: the directory's mode decided
		{1001, 1000, "refused: uid 1001 is not the owner (uid 1000) of this database"},
		{0, 1000, "refused: uid 0 is not the owner (uid 1000) of this database"},
	}
	for _, tc := range tests {
		if got := checkPeer(tc.peer, tc.owner); got != tc.want {
			t.Errorf("checkPeer(%d, %d) = %q, want %q", tc.peer, tc.owner, got, tc.want)
		}
	}

	// End to end, with the server told its owner is someone else.
	db := newDB(t)
	srv, err := serve(db, ServeOptions{}, os.Getuid()+1)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, err = Dial(srv.Socket(), 5*time.Second)
	want := checkPeer(os.Getuid(), os.Getuid()+1)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	if n := srv.Clients(); n != 0 {
		t.Fatalf("a refused peer counts as a client: %d", n)
	}
}

// A holder stopped (kill -STOP, Ctrl-Z) while a client's call waits on
// it: within HungAfter and a few ticks the client says so, and once the
// holder goes on the call returns and the client says it answers again.
func TestStoppedHolderIsReported(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "h.db")
	h := startHelper(t, "serve", dbPath, "")
	sock, err := SocketPath(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	cl := dial(t, sock)
	hung := make(chan bool, 4)
	cl.OnHung(func(b bool) { hung <- b })
	if err := h.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer h.Process.Signal(syscall.SIGCONT)
	// The signal is delivered on its own time: wait until it has been.
	for deadline := time.Now().Add(10 * time.Second); !ProcessStopped(h.Process.Pid); {
		if time.Now().After(deadline) {
			t.Fatal("the holder did not stop")
		}
		runtime.Gosched()
	}
	returned := make(chan error, 1)
	go func() {
		_, err := cl.Runs()
		returned <- err
	}()
	select {
	case b := <-hung:
		if !b {
			t.Fatal("the client said the stopped holder answers")
		}
	case err := <-returned:
		t.Fatalf("a call to a stopped holder returned: %v", err)
	case <-time.After(HungAfter + 10*time.Second):
		t.Fatal("the client never said its holder stopped answering")
	}
	if !cl.Hung() {
		t.Error("Hung() is false while the holder is stopped")
	}
	if err := h.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-returned:
		if err != nil {
			t.Fatalf("the call after the holder went on: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not return once the holder went on")
	}
	select {
	case b := <-hung:
		if b {
			t.Fatal("the client said the holder stopped again")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client never said its holder answers again")
	}
	if ProcessStopped(os.Getpid()) {
		t.Error("ProcessStopped is true for a running process")
	}
}

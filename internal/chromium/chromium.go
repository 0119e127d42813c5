// Package chromium drives headless Chromium for tests of hinge's HTML
// pages: it starts Debian's chromium with the flags a closed network needs,
// talks the DevTools protocol to it over a pipe (--remote-debugging-pipe:
// JSON messages separated by NUL bytes on file descriptors 3 and 4, so no
// port and no WebSocket), opens pages, evaluates JavaScript in them, types
// into them and collects their console errors and uncaught exceptions.
//
// The browser is the one in HINGE_TEST_CHROMIUM (.ci/run installs Debian's
// chromium and sets it), else chromium on the PATH; without either, tests
// skip with a message saying how to run them.
package chromium

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Env names the environment variable holding the browser's path.
const Env = "HINGE_TEST_CHROMIUM"

// Flags are the command-line flags the browser runs with: headless, no
// sandbox (tests may run as root), and nothing that reaches for the
// network by itself (on a closed network those connections fail).
var Flags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--mute-audio"}

// Find returns the browser's path, or skips tb when there is none. A path
// set in Env that is not a program fails tb: a configured browser that is
// missing is an error, not a reason to skip.
func Find(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv(Env); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			tb.Fatalf("%s=%s: %v", Env, p, err)
		}
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	tb.Skipf("no Chromium: install Debian's chromium package (apt-get install chromium) or set %s to the browser to run this test; .ci/run installs it", Env)
	return ""
}

// Timeout bounds each DevTools call and each wait.
var Timeout = 60 * time.Second

// Browser is a running headless Chromium.
type Browser struct {
	cmd    *exec.Cmd
	in     *os.File // the browser reads commands here (its fd 3)
	out    *os.File // and writes replies and events here (its fd 4)
	stderr *syncWriter

	mu      sync.Mutex
	nextID  int
	pending map[int]chan reply
	events  []event
	closed  error
	wake    chan struct{}
}

type reply struct {
	Result json.RawMessage
	Err    error
}

type event struct {
	Method, Session string
	Params          json.RawMessage
}

// Start starts the browser for tb; it is stopped when tb ends.
func Start(tb testing.TB) *Browser {
	tb.Helper()
	bin := Find(tb)
	profile := tb.TempDir()
	cmdIn, toBrowser, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	fromBrowser, cmdOut, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	args := append(append([]string(nil), Flags...), "--user-data-dir="+profile, "--remote-debugging-pipe", "about:blank")
	cmd := exec.Command(bin, args...)
	cmd.ExtraFiles = []*os.File{cmdIn, cmdOut}
	stderr := &syncWriter{w: &bytes.Buffer{}}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting %s: %v", bin, err)
	}
	cmdIn.Close()
	cmdOut.Close()
	b := &Browser{cmd: cmd, in: toBrowser, out: fromBrowser, stderr: stderr, pending: map[int]chan reply{}, wake: make(chan struct{}, 1)}
	go b.read()
	tb.Cleanup(func() {
		_, _ = b.call("", "Browser.close", nil)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		b.in.Close()
		b.out.Close()
	})
	if _, err := b.call("", "Browser.getVersion", nil); err != nil {
		tb.Fatalf("%s does not answer on the DevTools pipe: %v\n%s", bin, err, b.Stderr())
	}
	return b
}

// syncWriter serialises writes (the process's stderr copier against Stderr).
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Stderr is what the browser has written to its standard error so far.
func (b *Browser) Stderr() string {
	b.stderr.mu.Lock()
	defer b.stderr.mu.Unlock()
	return b.stderr.w.String()
}

// read dispatches the browser's messages: replies to their callers,
// events to the event list.
func (b *Browser) read() {
	r := bufio.NewReaderSize(b.out, 1<<16)
	for {
		msg, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.closed = fmt.Errorf("the browser closed its DevTools pipe: %v", err)
			for id, ch := range b.pending {
				ch <- reply{Err: b.closed}
				delete(b.pending, id)
			}
			b.mu.Unlock()
			b.notify()
			return
		}
		var m struct {
			ID        int             `json:"id"`
			Method    string          `json:"method"`
			SessionID string          `json:"sessionId"`
			Params    json.RawMessage `json:"params"`
			Result    json.RawMessage `json:"result"`
			Error     *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(msg[:len(msg)-1], &m); err != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				rep := reply{Result: m.Result}
				if m.Error != nil {
					rep.Err = fmt.Errorf("DevTools error %d: %s", m.Error.Code, m.Error.Message)
				}
				ch <- rep
			}
		} else if m.Method != "" {
			b.events = append(b.events, event{Method: m.Method, Session: m.SessionID, Params: m.Params})
		}
		b.mu.Unlock()
		b.notify()
	}
}

func (b *Browser) notify() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// call sends one DevTools command (to a page's session, or to the browser
// when session is empty) and waits for its result.
func (b *Browser) call(session, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	if b.closed != nil {
		b.mu.Unlock()
		return nil, b.closed
	}
	b.nextID++
	id := b.nextID
	ch := make(chan reply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r.Result, r.Err
	case <-time.After(Timeout):
		return nil, fmt.Errorf("%s: no answer in %v", method, Timeout)
	}
}

// Page is a tab of the browser.
type Page struct {
	b       *Browser
	session string
}

// Open opens url in a new tab and waits until it has loaded.
func (b *Browser) Open(url string) (*Page, error) {
	res, err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		return nil, err
	}
	var t struct {
		TargetID string `json:"targetId"`
	}
	if err := json.Unmarshal(res, &t); err != nil {
		return nil, err
	}
	res, err = b.call("", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true})
	if err != nil {
		return nil, err
	}
	var a struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &a); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: a.SessionID}
	for _, m := range []string{"Runtime.enable", "Log.enable", "Page.enable", "Network.enable"} {
		if _, err := b.call(p.session, m, nil); err != nil {
			return nil, err
		}
	}
	if _, err := b.call(p.session, "Page.navigate", map[string]any{"url": url}); err != nil {
		return nil, err
	}
	if err := p.waitEvent("Page.loadEventFired"); err != nil {
		return nil, err
	}
	return p, nil
}

// waitEvent waits for an event of the page.
func (p *Page) waitEvent(method string) error {
	deadline := time.After(Timeout)
	for {
		p.b.mu.Lock()
		for _, e := range p.b.events {
			if e.Session == p.session && e.Method == method {
				p.b.mu.Unlock()
				return nil
			}
		}
		closed := p.b.closed
		p.b.mu.Unlock()
		if closed != nil {
			return closed
		}
		select {
		case <-p.b.wake:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			return fmt.Errorf("no %s in %v", method, Timeout)
		}
	}
}

// Eval evaluates a JavaScript expression in the page (a promise is
// awaited) and decodes its value, which must be JSON, into out (nil: the
// value is dropped). An exception thrown is an error.
func (p *Page) Eval(expr string, out any) error {
	res, err := p.b.call(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("%s: %s %s", clip(expr), r.Exception.Text, r.Exception.Exception.Description)
	}
	if out == nil {
		return nil
	}
	if len(r.Result.Value) == 0 {
		return fmt.Errorf("%s: no value", clip(expr))
	}
	return json.Unmarshal(r.Result.Value, out)
}

// WaitFor evaluates a JavaScript condition until it is true.
func (p *Page) WaitFor(cond string) error {
	deadline := time.Now().Add(Timeout)
	for {
		var ok bool
		if err := p.Eval("Boolean("+cond+")", &ok); err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: still false after %v", clip(cond), Timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// InsertText types text into the focused element, as the keyboard would
// (the page sees input events).
func (p *Page) InsertText(text string) error {
	_, err := p.b.call(p.session, "Input.insertText", map[string]any{"text": text})
	return err
}

// Errors returns the page's errors so far: console.error and
// console.assert messages, uncaught exceptions, and log entries of level
// error (a failed load, a blocked request).
func (p *Page) Errors() []string {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	var out []string
	for _, e := range p.b.events {
		if e.Session != p.session {
			continue
		}
		switch e.Method {
		case "Runtime.consoleAPICalled":
			var c struct {
				Type string `json:"type"`
				Args []struct {
					Value       any    `json:"value"`
					Description string `json:"description"`
				} `json:"args"`
			}
			if json.Unmarshal(e.Params, &c) == nil && (c.Type == "error" || c.Type == "assert") {
				var parts []string
				for _, a := range c.Args {
					if a.Description != "" {
						parts = append(parts, a.Description)
					} else {
						parts = append(parts, fmt.Sprint(a.Value))
					}
				}
				out = append(out, "console."+c.Type+": "+strings.Join(parts, " "))
			}
		case "Runtime.exceptionThrown":
			var x struct {
				Details struct {
					Text      string `json:"text"`
					Exception struct {
						Description string `json:"description"`
					} `json:"exception"`
				} `json:"exceptionDetails"`
			}
			if json.Unmarshal(e.Params, &x) == nil {
				out = append(out, "exception: "+x.Details.Text+" "+x.Details.Exception.Description)
			}
		case "Log.entryAdded":
			var l struct {
				Entry struct {
					Level, Text, URL string
				} `json:"entry"`
			}
			if json.Unmarshal(e.Params, &l) == nil && l.Entry.Level == "error" {
				out = append(out, "log: "+l.Entry.Text+" "+l.Entry.URL)
			}
		}
	}
	return out
}

// Requests returns the URLs the page has asked for, its own among them.
func (p *Page) Requests() []string {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	var out []string
	for _, e := range p.b.events {
		if e.Session == p.session && e.Method == "Network.requestWillBeSent" {
			var r struct {
				Request struct {
					URL string `json:"url"`
				} `json:"request"`
			}
			if json.Unmarshal(e.Params, &r) == nil {
				out = append(out, r.Request.URL)
			}
		}
	}
	return out
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

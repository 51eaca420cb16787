package fullbuild

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/validation"
)

// ServeCommand is the subcommand of the full build that serves the API
// server's CRD validation to a light build, on its standard input and
// output (ServeCRDValidation). It is not meant to be typed.
const ServeCommand = "serve-crd-validation"

// The protocol, one JSON value per request and per response: the light
// build sends {"id", "crd"} (the CRD in version v1, as the internal CRD it
// was given converts to), the full build answers {"id", "errors"} or
// {"id", "error"} for each, in any order — it validates requests
// concurrently.
type request struct {
	ID  uint64          `json:"id"`
	CRD json.RawMessage `json:"crd"`
}

type response struct {
	ID     uint64      `json:"id"`
	Errors []wireError `json:"errors,omitempty"`
	Error  string      `json:"error,omitempty"`
}

// wireError is a field.Error as far as immutable-gen reads it: the value
// only when it is a scalar (string, bool or number; diagnostics never show
// another — validation's describe), with its Go kind so that it prints as
// the API server's own value does.
type wireError struct {
	Type   field.ErrorType `json:"type"`
	Field  string          `json:"field"`
	Detail string          `json:"detail,omitempty"`
	Origin string          `json:"origin,omitempty"`
	Value  *wireValue      `json:"value,omitempty"`
}

type wireValue struct {
	Kind string `json:"kind"` // string, bool, int, uint or float
	Text string `json:"text"`
}

func toWire(e *field.Error) wireError {
	w := wireError{Type: e.Type, Field: e.Field, Detail: e.Detail, Origin: e.Origin}
	switch v := e.BadValue.(type) {
	case string:
		w.Value = &wireValue{"string", v}
	case bool:
		w.Value = &wireValue{"bool", strconv.FormatBool(v)}
	case int:
		w.Value = &wireValue{"int", strconv.FormatInt(int64(v), 10)}
	case int32:
		w.Value = &wireValue{"int", strconv.FormatInt(int64(v), 10)}
	case int64:
		w.Value = &wireValue{"int", strconv.FormatInt(v, 10)}
	case uint64:
		w.Value = &wireValue{"uint", strconv.FormatUint(v, 10)}
	case float64:
		w.Value = &wireValue{"float", strconv.FormatFloat(v, 'g', -1, 64)}
	}
	return w
}

func (w wireError) fieldError() *field.Error {
	e := &field.Error{Type: w.Type, Field: w.Field, Detail: w.Detail, Origin: w.Origin}
	if w.Value != nil {
		var err error
		switch w.Value.Kind {
		case "string":
			e.BadValue = w.Value.Text
		case "bool":
			e.BadValue, err = strconv.ParseBool(w.Value.Text)
		case "int":
			e.BadValue, err = strconv.ParseInt(w.Value.Text, 10, 64)
		case "uint":
			e.BadValue, err = strconv.ParseUint(w.Value.Text, 10, 64)
		case "float":
			e.BadValue, err = strconv.ParseFloat(w.Value.Text, 64)
		}
		if err != nil {
			e.BadValue = nil
		}
	}
	return e
}

// ServeCRDValidation answers the requests of a CRDValidator read from r
// with s's findings written to w, until r ends; it returns when every
// answer is written. Requests are validated concurrently, GOMAXPROCS at a
// time, as the light build's CRDs are generated.
func ServeCRDValidation(r io.Reader, w io.Writer, s validation.Server) error {
	dec := json.NewDecoder(r)
	var (
		mu      sync.Mutex
		enc     = json.NewEncoder(w)
		werr    error
		wg      sync.WaitGroup
		workers = make(chan struct{}, runtime.GOMAXPROCS(0))
	)
	write := func(resp response) {
		mu.Lock()
		defer mu.Unlock()
		if werr == nil {
			werr = enc.Encode(resp)
		}
	}
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			wg.Wait()
			if errors.Is(err, io.EOF) {
				return werr
			}
			return errors.Join(fmt.Errorf("reading a request: %w", err), werr)
		}
		workers <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-workers; wg.Done() }()
			write(serveOne(req, s))
		}()
	}
}

func serveOne(req request, s validation.Server) response {
	resp := response{ID: req.ID}
	var v1 apiextv1.CustomResourceDefinition
	if err := json.Unmarshal(req.CRD, &v1); err != nil {
		resp.Error = "decoding the CRD: " + err.Error()
		return resp
	}
	var internal apiextensions.CustomResourceDefinition
	if err := apiextv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &internal, nil); err != nil {
		resp.Error = "converting the CRD: " + err.Error()
		return resp
	}
	errs, err := s.ValidateCRD(&internal)
	if err != nil {
		resp.Error = err.Error()
		return resp
	}
	resp.Errors = make([]wireError, len(errs))
	for i, e := range errs {
		resp.Errors[i] = toWire(e)
	}
	return resp
}

// CRDValidator is the API server's CRD validation (validation.Server) run
// by a child process of the full build: `immutable-gen serve-crd-validation`
// as Locate finds or builds it. The child is started at the first request
// and serves every request of the run; Close ends it. A CRDValidator is
// safe for concurrent use.
type CRDValidator struct {
	start func() (*exec.Cmd, func(), error)

	once     sync.Once
	startErr error
	cmd      *exec.Cmd
	cleanup  func()
	stderr   *tail
	done     chan struct{} // closed when the child's output ended
	readErr  error         // why, once done is closed

	// The requests are written under wmu; the pending answers are kept
	// under pmu, which the reader takes without waiting for a write (a
	// writer blocked on a full pipe must not block the reader that lets
	// the child go on).
	wmu     sync.Mutex
	enc     *json.Encoder
	stdin   io.WriteCloser
	pmu     sync.Mutex
	nextID  uint64
	pending map[uint64]chan response
}

// NewCRDValidator returns a CRDValidator whose child is the full build
// Locate gives; notes receives Locate's notes (a build of the full build,
// once per immutable-gen binary).
func NewCRDValidator(notes io.Writer) *CRDValidator {
	return newCRDValidator(func() (*exec.Cmd, func(), error) {
		path, cleanup, err := Locate(context.Background(), notes)
		if err != nil {
			return nil, nil, err
		}
		return exec.Command(path, ServeCommand), cleanup, nil
	})
}

func newCRDValidator(start func() (*exec.Cmd, func(), error)) *CRDValidator {
	return &CRDValidator{start: start, pending: map[uint64]chan response{}, done: make(chan struct{})}
}

// ValidateCRD returns the errors the API server's validation of a new CRD
// finds in crd, ordered by their text, as validation/apiserver.InProcess
// does in the full build. An error says that the child could not be
// started or did not answer.
func (v *CRDValidator) ValidateCRD(crd *apiextensions.CustomResourceDefinition) (field.ErrorList, error) {
	v.once.Do(func() { v.startErr = v.startChild() })
	if v.startErr != nil {
		return nil, v.startErr
	}
	var v1 apiextv1.CustomResourceDefinition
	if err := apiextv1.Convert_apiextensions_CustomResourceDefinition_To_v1_CustomResourceDefinition(crd, &v1, nil); err != nil {
		return nil, fmt.Errorf("converting the CRD: %w", err)
	}
	data, err := json.Marshal(&v1)
	if err != nil {
		return nil, err
	}
	ch := make(chan response, 1)
	v.pmu.Lock()
	v.nextID++
	id := v.nextID
	v.pending[id] = ch
	v.pmu.Unlock()
	v.wmu.Lock()
	err = v.enc.Encode(request{ID: id, CRD: data})
	v.wmu.Unlock()
	if err != nil {
		v.pmu.Lock()
		delete(v.pending, id)
		v.pmu.Unlock()
		return nil, v.childError(fmt.Errorf("sending a CRD: %w", err))
	}
	var resp response
	select {
	case resp = <-ch:
	case <-v.done:
		select {
		case resp = <-ch: // answered just before the end
		default:
			return nil, v.childError(v.readErr)
		}
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("the full build: %s", resp.Error)
	}
	errs := make(field.ErrorList, len(resp.Errors))
	for i, w := range resp.Errors {
		errs[i] = w.fieldError()
	}
	return errs, nil
}

func (v *CRDValidator) startChild() error {
	cmd, cleanup, err := v.start()
	if err != nil {
		return err
	}
	v.cmd, v.cleanup, v.stderr = cmd, cleanup, &tail{max: 4 << 10}
	cmd.Stderr = v.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		cleanup()
		return fmt.Errorf("starting the full build: %w", err)
	}
	v.stdin, v.enc = stdin, json.NewEncoder(stdin)
	go v.read(stdout)
	return nil
}

// read hands each response to its request until the child's output ends.
func (v *CRDValidator) read(stdout io.Reader) {
	dec := json.NewDecoder(stdout)
	for {
		var resp response
		if err := dec.Decode(&resp); err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("it exited")
			}
			v.readErr = err
			close(v.done)
			return
		}
		v.pmu.Lock()
		ch := v.pending[resp.ID]
		delete(v.pending, resp.ID)
		v.pmu.Unlock()
		if ch != nil {
			ch <- resp
		}
	}
}

// childError says that the child failed, with the end of what it wrote on
// its standard error.
func (v *CRDValidator) childError(err error) error {
	msg := fmt.Sprintf("the full build (%s %s) did not answer: %v", v.cmd.Path, ServeCommand, err)
	if s := strings.TrimSpace(v.stderr.String()); s != "" {
		msg += "; it wrote: " + strings.Join(strings.Fields(s), " ")
	}
	return errors.New(msg)
}

// Close ends the child, if it was started, and waits for it.
func (v *CRDValidator) Close() error {
	v.once.Do(func() { v.startErr = errors.New("closed") })
	if v.cmd == nil {
		return nil
	}
	defer v.cleanup()
	v.stdin.Close()
	if err := v.cmd.Wait(); err != nil {
		return v.childError(err)
	}
	return nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

var _ validation.Server = (*CRDValidator)(nil)

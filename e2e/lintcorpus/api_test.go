package lintcorpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/lint"
	"github.com/immutable-gen/immutable-gen/placement"
	"github.com/immutable-gen/immutable-gen/preflight"
	"github.com/immutable-gen/immutable-gen/schema"
)

// apiStats counts what TestCorpusFixesKeepTheAPIWorking checked and
// skipped, for its log.
type apiStats struct {
	crds, versions, creates, statusWrites, setLater, fixedAtCreation, mutable int
	skipped                                                                   []string
}

// TestCorpusFixesKeepTheAPIWorking applies every fix lint suggests
// (lint.ApplyFix, the first option of each) to each CRD of the corpus and
// checks, on the API server's validator (preflight) and against the CRD
// as its project wrote it, that the fixed CRD still lets its users and
// controllers work:
//
//	(a) creating a minimal valid object (built from the schema, repaired
//	    with the optional fields the server's errors point at) succeeds;
//	(b) the first status write (adding status) succeeds;
//	(c) an optional field absent at creation and set by a later update
//	    (a controller filling it in; a later status write adding a status
//	    field) succeeds wherever the original CRD allows it — unless the
//	    fix is the strict presence rule on that very field, the choice
//	    lint documents for a field nothing says is filled in later
//	    (placement.FilledLater);
//	(d) an update that changes only a label, or one field's value, succeeds
//	    wherever the original CRD allows it.
//
// preflight models the status subresource as the server does on create
// (status dropped) and on an update of the main resource (status kept
// from the stored object). A status write — an update through the
// status subresource, which changes only status — is checked as an update
// of the same CRD without the subresource that changes only status: the
// same schema, rules and ratcheting, over the same two objects.
//
// A CRD whose original version refuses every object the test can build
// is skipped, with the reason logged and counted.
func TestCorpusFixesKeepTheAPIWorking(t *testing.T) {
	dirs := downloadAll(t)
	var st apiStats
	for i, p := range corpus {
		t.Run(p.name, func(t *testing.T) {
			res, err := lint.Files(paths(p, dirs[i]))
			if err != nil {
				t.Fatal(err)
			}
			byFile := map[string][]diag.Diagnostic{}
			var files []string
			for _, f := range res.Findings {
				if f.Fix == "" || f.Version == "" {
					continue
				}
				if _, ok := byFile[f.Pos.Filename]; !ok {
					files = append(files, f.Pos.Filename)
				}
				byFile[f.Pos.Filename] = append(byFile[f.Pos.Filename], f)
			}
			for _, file := range files {
				for _, crd := range crdDocuments(t, file) {
					name, _ := crd["metadata"].(map[string]any)["name"].(string)
					var mine []diag.Diagnostic
					for _, f := range byFile[file] {
						if f.CRD == name {
							mine = append(mine, f)
						}
					}
					checkFixedCRD(t, &st, p.name+" "+name, crd, mine)
				}
			}
		})
	}
	t.Logf("%d fixed CRDs, %d versions: %d creates, %d first status writes, %d fields set later (%d refused on purpose: fixed at creation by the strict presence rule), %d updates of mutable fields; %d skipped",
		st.crds, st.versions, st.creates, st.statusWrites, st.setLater, st.fixedAtCreation, st.mutable, len(st.skipped))
	for _, s := range st.skipped {
		t.Logf("skipped: %s", s)
	}
}

// crdDocuments returns the CRD documents of a file, as generic JSON trees.
func crdDocuments(t *testing.T, file string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if sigsyaml.Unmarshal(doc, &obj) != nil || obj == nil || obj["kind"] != "CustomResourceDefinition" {
			continue
		}
		if _, ok := obj["metadata"].(map[string]any); ok {
			out = append(out, obj)
		}
	}
}

// server is a CRD on the API server's validator: its main resource, and
// its status writes.
type server struct {
	main, status *preflight.Checker
}

func newServer(crd map[string]any) (server, error) {
	raw, err := json.Marshal(crd)
	if err != nil {
		return server{}, err
	}
	main, err := preflight.NewChecker([]preflight.CRD{{Source: "main", Raw: raw}})
	if err != nil {
		return server{}, err
	}
	noSub := clone(crd).(map[string]any)
	for _, v := range noSub["spec"].(map[string]any)["versions"].([]any) {
		delete(v.(map[string]any), "subresources")
	}
	raw, err = json.Marshal(noSub)
	if err != nil {
		return server{}, err
	}
	status, err := preflight.NewChecker([]preflight.CRD{{Source: "status", Raw: raw}})
	return server{main, status}, err
}

// request is obj as the server decodes a request's JSON body: integers
// as int64 (an enum's or default's 4 read from the CRD is a float64).
func request(obj map[string]any) map[string]any {
	raw, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, &out); err != nil {
		panic(err)
	}
	return out
}

// create returns the server's errors on creating obj ("" when allowed).
func (s server) create(obj map[string]any) string {
	r, err := s.main.Create(request(obj))
	if err != nil {
		return err.Error()
	}
	return errorsOf(r)
}

// update returns the server's errors on the update old → obj, through
// the status subresource when status is set ("" when allowed).
func (s server) update(obj, old map[string]any, status bool) string {
	c := s.main
	if status {
		c = s.status
	}
	r, err := c.Update(request(obj), request(old))
	if err != nil {
		return err.Error()
	}
	return errorsOf(r)
}

func errorsOf(r preflight.Result) string {
	var out []string
	for _, e := range r.Errors {
		out = append(out, e.Error())
	}
	return strings.Join(out, "; ")
}

// checkFixedCRD applies the fixes of findings to crd and checks (a)–(d) in
// every version a fix changed.
func checkFixedCRD(t *testing.T, st *apiStats, name string, crd map[string]any, findings []diag.Diagnostic) {
	t.Helper()
	fixed := clone(crd).(map[string]any)
	var applied []diag.Diagnostic
	for _, f := range findings {
		if lint.ApplyFix(fixed, f) {
			applied = append(applied, f)
		}
	}
	if len(applied) == 0 {
		return
	}
	orig, err := newServer(crd)
	if err != nil {
		st.skipped = append(st.skipped, fmt.Sprintf("%s: the API server refuses the original CRD: %v", name, err))
		return
	}
	after, err := newServer(fixed)
	if err != nil {
		t.Errorf("%s: after %d fixes the API server refuses the CRD: %v", name, len(applied), err)
		return
	}
	st.crds++
	c := &crdCheck{t: t, st: st, name: name, crd: crd, applied: applied, orig: orig, fixed: after}
	var versions []string
	for _, f := range applied {
		if !slices.Contains(versions, f.Version) {
			versions = append(versions, f.Version)
		}
	}
	for _, v := range versions {
		c.version(v)
	}
}

// crdCheck is one fixed CRD under test.
type crdCheck struct {
	t           *testing.T
	st          *apiStats
	name        string
	crd         map[string]any
	applied     []diag.Diagnostic
	orig, fixed server
}

func (c *crdCheck) version(v string) {
	spec := c.crd["spec"].(map[string]any)
	var root, fixedRoot map[string]any
	fixedCRD := clone(c.crd).(map[string]any)
	for _, f := range c.applied {
		lint.ApplyFix(fixedCRD, f)
	}
	for i, x := range spec["versions"].([]any) {
		vm := x.(map[string]any)
		if vm["name"] == v {
			root = vm["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
			fixedRoot = fixedCRD["spec"].(map[string]any)["versions"].([]any)[i].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
		}
	}
	if root == nil {
		return
	}
	tree, err := schema.Build(root)
	if err != nil {
		c.skip(v, "the schema: %v", err)
		return
	}
	c.st.versions++
	group, _ := spec["group"].(string)
	kind, _ := spec["names"].(map[string]any)["kind"].(string)
	meta := map[string]any{"name": "lintcorpus"}
	if spec["scope"] == "Namespaced" {
		meta["namespace"] = "default"
	}
	obj := map[string]any{"apiVersion": group + "/" + v, "kind": kind, "metadata": meta}
	props, _ := root["properties"].(map[string]any)
	for _, p := range sortedKeys(props) {
		if p == "apiVersion" || p == "kind" || p == "metadata" || p == "status" {
			continue
		}
		// spec, and every other top-level field an object needs.
		if p != "spec" && !slices.Contains(stringsOf(root["required"]), p) {
			continue
		}
		val, err := minimal(props[p].(map[string]any))
		if err != nil {
			c.skip(v, "no minimal object: %v", err)
			return
		}
		obj[p] = val
	}

	// (a) create.
	if errs := c.repair(obj, root, func(o map[string]any) string { return c.orig.create(o) }); errs != "" {
		c.skip(v, "the original CRD refuses every object built from its schema: %s", errs)
		return
	}
	c.st.creates++
	c.check(v, "(a) create", obj, nil, false)

	// (b) the first status write.
	withStatus := obj
	if ss, ok := props["status"].(map[string]any); ok {
		status, err := minimal(ss)
		if err == nil {
			next := clone(obj).(map[string]any)
			next["status"] = status
			if errs := c.repair(next, root, func(o map[string]any) string { return c.orig.update(o, obj, true) }); errs == "" {
				c.st.statusWrites++
				c.check(v, "(b) the first status write", next, obj, true)
				withStatus = next
			} else {
				c.skip(v, "(b) the original CRD refuses every first status write built from its schema: %s", errs)
			}
		}
	}

	// (c) fields set later: the optional properties of the objects a fix
	// added a rule to, and of every object under status.
	added := addedRules(root, fixedRoot, "")
	var at func(n *schema.Node, val map[string]any, base map[string]any, status bool)
	at = func(n *schema.Node, val map[string]any, base map[string]any, status bool) {
		if n.Parent != nil && (added[n.Path()] != nil || status) {
			for _, p := range sortedNodeKeys(n.Properties) {
				child := n.Properties[p]
				if _, present := val[p]; present || child.AlwaysPresent() {
					continue
				}
				x, err := minimal(rawOf(root, child))
				if err != nil {
					continue
				}
				newObj := clone(base).(map[string]any)
				setAt(newObj, child, x)
				if c.orig.update(newObj, base, status) != "" {
					continue // the original CRD does not allow it either
				}
				c.st.setLater++
				errs := c.fixed.update(newObj, base, status)
				if errs != "" && !status && strictFix(c.applied, v, child) && placement.FilledLater(child) == "" {
					c.st.fixedAtCreation++ // the strict presence rule, as its fix says
					continue
				}
				c.fail(v, fmt.Sprintf("(c) setting %s after creation", child.Path()), errs, newObj, base, status)
			}
		}
		for _, p := range sortedNodeKeys(n.Properties) {
			child := n.Properties[p]
			cv, ok := val[p].(map[string]any)
			if !ok || child.Type() != "object" || (n.Parent == nil && p == "metadata") {
				continue
			}
			at(child, cv, base, status || (n.Parent == nil && p == "status"))
		}
	}
	at(tree, clone(obj).(map[string]any), obj, false)
	if st, ok := withStatus["status"].(map[string]any); ok && tree.Properties["status"] != nil {
		at(tree.Properties["status"], clone(st).(map[string]any), withStatus, true)
	}

	// (d) updates of mutable fields: a label, and each field's value.
	labelled := clone(obj).(map[string]any)
	labelled["metadata"].(map[string]any)["labels"] = map[string]any{"lintcorpus": "changed"}
	c.st.mutable++
	c.differential(v, "(d) a label change", labelled, obj, false)
	var leaves func(n *schema.Node, val map[string]any)
	leaves = func(n *schema.Node, val map[string]any) {
		for _, p := range sortedNodeKeys(n.Properties) {
			child := n.Properties[p]
			if n.Parent == nil && (p == "metadata" || p == "status" || p == "apiVersion" || p == "kind") {
				continue
			}
			switch x := val[p].(type) {
			case map[string]any:
				leaves(child, x)
			case nil, []any:
			default:
				y, ok := changed(rawOf(root, child), x)
				if !ok {
					continue
				}
				newObj := clone(obj).(map[string]any)
				setAt(newObj, child, y)
				c.st.mutable++
				c.differential(v, "(d) changing "+child.Path(), newObj, obj, false)
			}
		}
	}
	leaves(tree, obj)
}

// repair adds to obj, while check refuses it, the optional properties of
// the objects the errors name (or their parents), one at a time, keeping
// each that removes errors; it returns the errors left ("" when allowed).
func (c *crdCheck) repair(obj, root map[string]any, check func(map[string]any) string) string {
	errs := check(obj)
	sideways := 0
	for round := 0; errs != "" && round < 12; round++ {
		best, bestErrs := "", errs
		var bestObj map[string]any
		side, sideErrs := "", ""
		var sideObj map[string]any
		for _, cand := range candidates(obj, root, errs) {
			try := clone(obj).(map[string]any)
			if !cand.add(try) {
				continue
			}
			e := check(try)
			switch {
			case count(e) < count(bestErrs):
				best, bestErrs, bestObj = cand.path, e, try
			case side == "" && count(e) == count(errs) && e != errs:
				// Another error in place of this one: the field the
				// error asked for is there, and needs more.
				side, sideErrs, sideObj = cand.path, e, try
			}
		}
		if best == "" && side != "" && sideways < 4 {
			sideways++
			best, bestErrs, bestObj = side, sideErrs, sideObj
		}
		if best == "" {
			return errs
		}
		for k := range obj {
			delete(obj, k)
		}
		for k, x := range bestObj {
			obj[k] = x
		}
		errs = bestErrs
	}
	return errs
}

func count(errs string) int {
	if errs == "" {
		return 0
	}
	return strings.Count(errs, "; ") + 1
}

// candidate is an optional property to add to an object.
type candidate struct {
	path string
	add  func(obj map[string]any) bool
}

// errorPath finds the field paths of the server's errors: "spec.a.b: …".
var errorPath = regexp.MustCompile(`(?:^|; )([A-Za-z0-9_.\-]+(?:\[[^\]]*\])*(?:\.[A-Za-z0-9_\-]+)*): `)

// candidates are the optional properties, absent from obj, of the objects
// at the errors' paths and of their parents.
func candidates(obj, root map[string]any, errs string) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for _, m := range errorPath.FindAllStringSubmatch(errs, -1) {
		path := m[1]
		if strings.Contains(path, "[") {
			path = path[:strings.Index(path, "[")]
		}
		for path != "" {
			parts := strings.Split(path, ".")
			if !seen[path] {
				seen[path] = true
				out = append(out, optionalAt(obj, root, parts)...)
				// An empty list whose rules want an item: one minimal item.
				if l, ok := valueAt(obj, parts).([]any); ok && len(l) == 0 {
					out = append(out, itemOf(root, parts)...)
				}
				// And of the objects in it: a rule on an object names it,
				// not the field below that it asks for.
				if v, ok := valueAt(obj, parts).(map[string]any); ok {
					for _, k := range sortedKeys(v) {
						if _, ok := v[k].(map[string]any); ok && !seen[path+"."+k] {
							seen[path+"."+k] = true
							out = append(out, optionalAt(obj, root, append(slices.Clone(parts), k))...)
						}
					}
				}
			}
			path = strings.Join(parts[:len(parts)-1], ".")
		}
	}
	if !seen["spec"] {
		out = append(out, optionalAt(obj, root, []string{"spec"})...)
	}
	return out
}

// itemOf returns the candidate that adds a minimal item to the empty list
// at parts.
func itemOf(root map[string]any, parts []string) []candidate {
	s := root
	for _, p := range parts {
		props, _ := s["properties"].(map[string]any)
		if s, _ = props[p].(map[string]any); s == nil {
			return nil
		}
	}
	items, _ := s["items"].(map[string]any)
	if items == nil {
		return nil
	}
	x, err := minimal(items)
	if err != nil {
		return nil
	}
	return []candidate{{strings.Join(parts, ".") + "[0]", func(o map[string]any) bool {
		for _, p := range parts[:len(parts)-1] {
			next, ok := o[p].(map[string]any)
			if !ok {
				return false
			}
			o = next
		}
		o[parts[len(parts)-1]] = []any{clone(x)}
		return true
	}}}
}

// valueAt returns the value at the property path parts in obj, or nil.
func valueAt(obj map[string]any, parts []string) any {
	var cur any = obj
	for _, p := range parts {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// optionalAt returns the candidates of the object at parts (present in
// obj), or of the first item of the list of objects there.
func optionalAt(obj, root map[string]any, parts []string) []candidate {
	s, val := root, obj
	for _, p := range parts {
		props, _ := s["properties"].(map[string]any)
		s, _ = props[p].(map[string]any)
		v, _ := val[p].(map[string]any)
		if s == nil {
			return nil
		}
		if v == nil {
			// The last step may be a list of objects: its first item.
			l, _ := val[p].([]any)
			items, _ := s["items"].(map[string]any)
			if p != parts[len(parts)-1] || len(l) == 0 || items == nil {
				return nil
			}
			if v, _ = l[0].(map[string]any); v == nil {
				return nil
			}
			s = items
			parts = append(slices.Clone(parts), "0")
		}
		val = v
	}
	props, _ := s["properties"].(map[string]any)
	var out []candidate
	for _, name := range sortedKeys(props) {
		if _, present := val[name]; present {
			continue
		}
		x, err := minimal(props[name].(map[string]any))
		if err != nil {
			continue
		}
		out = append(out, candidate{strings.Join(append(slices.Clone(parts), name), "."), func(o map[string]any) bool {
			var cur any = o
			for _, p := range parts {
				switch c := cur.(type) {
				case map[string]any:
					cur = c[p]
				case []any:
					if len(c) == 0 {
						return false
					}
					cur = c[0]
				}
			}
			m, ok := cur.(map[string]any)
			if !ok {
				return false
			}
			m[name] = clone(x)
			return true
		}})
	}
	return out
}

// check runs the update old → obj (a create when old is nil) on the
// fixed CRD, as the original accepts it.
func (c *crdCheck) check(v, what string, obj, old map[string]any, status bool) {
	var errs string
	if old == nil {
		errs = c.fixed.create(obj)
	} else {
		errs = c.fixed.update(obj, old, status)
	}
	c.fail(v, what, errs, obj, old, status)
}

// differential checks that the fixed CRD allows an update the original
// allows.
func (c *crdCheck) differential(v, what string, obj, old map[string]any, status bool) {
	if c.orig.update(obj, old, status) != "" {
		return
	}
	c.fail(v, what, c.fixed.update(obj, old, status), obj, old, status)
}

// fail reports a change the fixed CRD refuses, naming the fixes that
// refuse it alone.
func (c *crdCheck) fail(v, what, errs string, obj, old map[string]any, status bool) {
	if errs == "" {
		return
	}
	var culprits []string
	for _, f := range c.applied {
		one := clone(c.crd).(map[string]any)
		lint.ApplyFix(one, f)
		s, err := newServer(one)
		if err != nil {
			culprits = append(culprits, fmt.Sprintf("%s %s: fix %q (the API server refuses the CRD with it alone: %v)", f.ID, f.Path, f.Fix, err))
			continue
		}
		var e string
		if old == nil {
			e = s.create(obj)
		} else {
			e = s.update(obj, old, status)
		}
		if e != "" {
			culprits = append(culprits, fmt.Sprintf("%s %s: fix %q", f.ID, f.Path, f.Fix))
		}
	}
	c.t.Errorf("%s %s: %s is refused after lint's fixes: %s\n  by the fix(es):\n  %s", c.name, v, what, errs, strings.Join(culprits, "\n  "))
}

func (c *crdCheck) skip(v, format string, args ...any) {
	c.st.skipped = append(c.st.skipped, fmt.Sprintf("%s %s: %s", c.name, v, fmt.Sprintf(format, args...)))
}

// strictFix reports whether a fix applied in version v is the strict
// presence rule for the property n: `has(self.n) == has(oldSelf.n)`.
func strictFix(applied []diag.Diagnostic, v string, n *schema.Node) bool {
	for _, f := range applied {
		if f.Version == v && f.Path == n.Path() && strings.Contains(f.Fix, "add the rule `has(self.") && strings.Index(f.Fix, "== has(oldSelf.") < strings.Index(f.Fix, "` to the x-kubernetes-validations") {
			return true
		}
	}
	return false
}

// addedRules returns, by schema path, the rules the fixed schema has that
// the original has not.
func addedRules(orig, fixed map[string]any, path string) map[string][]any {
	out := map[string][]any{}
	var walk func(o, f map[string]any, path string)
	walk = func(o, f map[string]any, path string) {
		or, _ := o["x-kubernetes-validations"].([]any)
		fr, _ := f["x-kubernetes-validations"].([]any)
		if len(fr) > len(or) {
			out[path] = fr[len(or):]
		}
		op, _ := o["properties"].(map[string]any)
		fp, _ := f["properties"].(map[string]any)
		for k, fv := range fp {
			ov, _ := op[k].(map[string]any)
			if fm, ok := fv.(map[string]any); ok && ov != nil {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(ov, fm, p)
			}
		}
	}
	walk(orig, fixed, path)
	return out
}

// rawOf returns the schema node of n in root (through properties only).
func rawOf(root map[string]any, n *schema.Node) map[string]any {
	var names []string
	for a := n; a.Parent != nil; a = a.Parent {
		names = append(names, a.Name)
	}
	s := root
	for i := len(names) - 1; i >= 0; i-- {
		props, _ := s["properties"].(map[string]any)
		s, _ = props[names[i]].(map[string]any)
		if s == nil {
			return map[string]any{}
		}
	}
	return s
}

// setAt sets the property n (reached through properties) in obj to x.
func setAt(obj map[string]any, n *schema.Node, x any) {
	var names []string
	for a := n; a.Parent != nil; a = a.Parent {
		names = append(names, a.Name)
	}
	o := obj
	for i := len(names) - 1; i > 0; i-- {
		next, ok := o[names[i]].(map[string]any)
		if !ok {
			next = map[string]any{}
			o[names[i]] = next
		}
		o = next
	}
	o[names[0]] = clone(x)
}

func sortedNodeKeys(m map[string]*schema.Node) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// clone deep-copies a JSON value.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	}
	return v
}

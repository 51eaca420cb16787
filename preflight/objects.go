package preflight

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/immutable-gen/immutable-gen/runtime/manifest"
)

// An Object is one object of a manifest, and where it was read.
type Object struct {
	// Source is the file and the document's number in it, from 1, e.g.
	// "deploy/app.yaml#2"; an item of a List document adds its index,
	// "deploy/list.yaml#1.items[3]".
	Source string
	Object map[string]interface{}
}

// Key identifies an object across two versions of a manifest set.
type Key struct {
	APIVersion, Kind, Namespace, Name string
}

// String renders the key as kubectl names objects: Kind.group/name, with
// the namespace in front when there is one.
func (k Key) String() string {
	s := k.Kind
	if i := strings.LastIndex(k.APIVersion, "/"); i >= 0 {
		s += "." + k.APIVersion[:i]
	}
	s += "/" + k.Name
	if k.Namespace != "" {
		s = k.Namespace + "/" + s
	}
	return s
}

// KeyOf returns an object's key. The group of apiVersion and the kind
// identify the resource; the version is kept for rendering, not for pairing.
func KeyOf(obj map[string]interface{}) Key {
	u := unstructured.Unstructured{Object: obj}
	return Key{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

// pairKey is what pairs objects: the group, not the version, of apiVersion,
// since an object may move to another version of its resource.
func (k Key) pairKey() Key {
	g := ""
	if i := strings.LastIndex(k.APIVersion, "/"); i >= 0 {
		g = k.APIVersion[:i]
	}
	return Key{APIVersion: g, Kind: k.Kind, Namespace: k.Namespace, Name: k.Name}
}

// Load reads the objects of a file, or of every .yaml, .yml and .json file
// below a directory (in lexical order, hidden files and directories
// skipped). A file may hold several YAML documents or JSON values, and List
// objects, whose items are read. Numbers decode as the API server decodes
// them: integers as int64, other numbers as float64.
func Load(path string) ([]Object, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return loadFile(path)
	}
	var out []Object
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != path && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !isManifest(p) {
			return nil
		}
		objs, err := loadFile(p)
		out = append(out, objs...)
		return err
	})
	return out, err
}

func isManifest(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func loadFile(path string) ([]Object, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads the objects of one manifest; name is used in Object.Source
// and in errors.
func Parse(name string, data []byte) ([]Object, error) {
	var out []Object
	for doc := range manifest.Documents(data) {
		n, raw := doc.Number, doc.JSON
		if doc.Err != nil {
			return nil, fmt.Errorf("%s: document %d: %v", name, n, doc.Err)
		}
		var obj map[string]interface{}
		if err := utiljson.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("%s: document %d is not an object: %v", name, n, err)
		}
		src := fmt.Sprintf("%s#%d", name, n)
		if kind, _ := obj["kind"].(string); strings.HasSuffix(kind, "List") {
			if items, ok := obj["items"].([]interface{}); ok {
				for i, it := range items {
					m, ok := it.(map[string]interface{})
					if !ok {
						return nil, fmt.Errorf("%s: document %d: items[%d] is not an object", name, n, i)
					}
					out = append(out, Object{Source: fmt.Sprintf("%s.items[%d]", src, i), Object: m})
				}
				continue
			}
		}
		out = append(out, Object{Source: src, Object: obj})
	}
	return out, nil
}

// A Change is one object's change between two manifest sets: Old is nil for
// a creation, New is nil for a deletion.
type Change struct {
	Key      Key
	Old, New *Object
}

// Pair matches the objects of an old and a new manifest set by the group of
// their apiVersion, kind, namespace and name, and returns one Change per
// key, sorted by key. Two objects with the same key on one side are an
// error, as is an object without kind or name.
func Pair(old, new []Object) ([]Change, error) {
	byKey := map[Key]*Change{}
	add := func(objs []Object, isNew bool) error {
		for i := range objs {
			o := &objs[i]
			k := KeyOf(o.Object)
			if k.Kind == "" || k.APIVersion == "" {
				return fmt.Errorf("%s: the object has no apiVersion or kind", o.Source)
			}
			if k.Name == "" {
				return fmt.Errorf("%s: the %s has no metadata.name: objects are paired by name", o.Source, k.Kind)
			}
			pk := k.pairKey()
			c := byKey[pk]
			if c == nil {
				c = &Change{Key: k}
				byKey[pk] = c
			}
			slot := &c.Old
			if isNew {
				slot = &c.New
				c.Key = k
			}
			if *slot != nil {
				return fmt.Errorf("%s: %s is also defined at %s", o.Source, k, (*slot).Source)
			}
			*slot = o
		}
		return nil
	}
	if err := add(old, false); err != nil {
		return nil, err
	}
	if err := add(new, true); err != nil {
		return nil, err
	}
	out := make([]Change, 0, len(byKey))
	for _, c := range byKey {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Key.pairKey(), out[j].Key.pairKey()
		if a.APIVersion != b.APIVersion {
			return a.APIVersion < b.APIVersion
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return out, nil
}

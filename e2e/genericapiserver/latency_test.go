package genericapiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// TestAdmissionPluginLatency measures what the ImmutableFields plugin adds
// to an update, the way a cluster pays it: whole-object updates (PUT) of a
// Deployment-sized custom resource (about 9 KB: annotations, 32 parameters,
// 32 shards) through the server's loopback client, through etcd. The same
// server serves two copies of the CRD: cacheclusters.cache.example.com,
// which the plugin checks, and cacheclusters.unchecked.example.com, the same
// schema in another group, which it is not configured for (it answers at
// once, after one map lookup). The two are updated alternately, in rounds
// whose order alternates, with 1 and then 8 concurrent clients; the test
// reports latencies and the differences (pooled, and the median of the
// rounds' differences, which a loaded machine disturbs least), and asserts
// only that every update succeeded. Bounded: 2 × 400 updates per level.
func TestAdmissionPluginLatency(t *testing.T) {
	config := startServer(t, writeAdmissionConfig(t))
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	checked := installCRD(t, config, dyn, plainCRD(t))
	other := plainCRD(t)
	other.Name = "cacheclusters.unchecked.example.com"
	other.Spec.Group = "unchecked.example.com"
	unchecked := installCRD(t, config, dyn, other)

	const perLevel = 400
	for _, clients := range []int{1, 8} {
		sides := map[string]*latencies{"checked": {}, "unchecked": {}}
		objs := map[string][]*unstructured.Unstructured{}
		for name, gvr := range map[string]schema.GroupVersionResource{"checked": checked, "unchecked": unchecked} {
			for c := 0; c < clients; c++ {
				objs[name] = append(objs[name], createLarge(t, dyn, gvr, fmt.Sprintf("load-%d-%d", clients, c)))
			}
		}
		size := objectSize(t, objs["checked"][0])
		const rounds = 10
		for round := 0; round < rounds; round++ {
			order := []string{"checked", "unchecked"}
			if round%2 == 1 {
				order[0], order[1] = order[1], order[0]
			}
			for _, side := range order {
				gvr := checked
				if side == "unchecked" {
					gvr = unchecked
				}
				updateRound(t, dyn.Resource(gvr).Namespace(namespace), objs[side], perLevel/rounds/clients, round, sides[side])
			}
		}
		c, u := sides["checked"], sides["unchecked"]
		c.sort()
		u.sort()
		t.Logf("%d client(s), %d-byte objects, %d updates each:", clients, size, len(c.d))
		t.Logf("  unchecked: p50 %v  p99 %v  mean %v  %.0f updates/s", u.q(0.5), u.q(0.99), u.mean(), u.rate())
		t.Logf("  checked:   p50 %v  p99 %v  mean %v  %.0f updates/s", c.q(0.5), c.q(0.99), c.mean(), c.rate())
		t.Logf("  plugin adds: p50 %v, mean %v per update (%.1f%% of the mean); median of the rounds' p50 differences %v",
			c.q(0.5)-u.q(0.5), c.mean()-u.mean(), 100*float64(c.mean()-u.mean())/float64(u.mean()), c.medianDiff(u))
	}
}

// latencies of updates, the wall time of the rounds that made them, and
// each round's median.
type latencies struct {
	mu     sync.Mutex
	d      []time.Duration
	wall   time.Duration
	rounds []time.Duration
}

// medianDiff is the median over rounds of l's round median minus o's.
func (l *latencies) medianDiff(o *latencies) time.Duration {
	var d []time.Duration
	for i := range l.rounds {
		d = append(d, l.rounds[i]-o.rounds[i])
	}
	slices.Sort(d)
	return d[len(d)/2].Round(10 * time.Microsecond)
}

func (l *latencies) sort() { slices.Sort(l.d) }
func (l *latencies) q(q float64) time.Duration {
	i := min(len(l.d)-1, max(0, int(q*float64(len(l.d))+0.5)-1))
	return l.d[i].Round(10 * time.Microsecond)
}
func (l *latencies) mean() time.Duration {
	var sum time.Duration
	for _, d := range l.d {
		sum += d
	}
	return (sum / time.Duration(len(l.d))).Round(10 * time.Microsecond)
}
func (l *latencies) rate() float64 { return float64(len(l.d)) / l.wall.Seconds() }

// updateRound has each client update its object n times (a mutable field
// and a parameter's value change: allowed), one update at a time.
func updateRound(t *testing.T, res dynamic.ResourceInterface, objs []*unstructured.Unstructured, n, round int, into *latencies) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(objs))
	start := time.Now()
	for i := range objs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < n; k++ {
				obj := objs[i]
				_ = unstructured.SetNestedField(obj.Object, fmt.Sprintf("7.%d.%d", round, k), "spec", "version")
				_ = unstructured.SetNestedField(obj.Object, fmt.Sprintf("%dmb", round*100+k), "spec", "parameters", "p00")
				began := time.Now()
				out, err := res.Update(context.Background(), obj, metav1.UpdateOptions{})
				took := time.Since(began)
				if err != nil {
					errs <- fmt.Errorf("update %s: %v", obj.GetName(), err)
					return
				}
				objs[i] = out
				into.mu.Lock()
				into.d = append(into.d, took)
				into.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	into.wall += time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	this := append([]time.Duration(nil), into.d[len(into.d)-n*len(objs):]...)
	slices.Sort(this)
	into.rounds = append(into.rounds, this[len(this)/2])
}

// createLarge creates a CacheCluster of about 9 KB.
func createLarge(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
	t.Helper()
	u := object(t, strings.Replace(cluster, "NAME", name, 1))
	u.SetAPIVersion(gvr.Group + "/" + gvr.Version)
	annotations := map[string]string{}
	for i := 0; i < 11; i++ {
		annotations[fmt.Sprintf("example.com/note-%02d", i)] = strings.Repeat(fmt.Sprintf("%x", i), 300)
	}
	u.SetAnnotations(annotations)
	params := map[string]interface{}{}
	for i := 0; i < 32; i++ {
		params[fmt.Sprintf("p%02d", i)] = fmt.Sprintf("value-%02d-abcdefghij", i)
	}
	_ = unstructured.SetNestedMap(u.Object, params, "spec", "parameters")
	var shards []interface{}
	for i := 0; i < 32; i++ {
		shards = append(shards, map[string]interface{}{"name": fmt.Sprintf("shard-%02d", i), "replicas": int64(1 + i%3)})
	}
	_ = unstructured.SetNestedSlice(u.Object, shards, "spec", "shards")
	created, err := dyn.Resource(gvr).Namespace(namespace).Create(context.Background(), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return created
}

func objectSize(t *testing.T, u *unstructured.Unstructured) int {
	t.Helper()
	b, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

package main

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/immutable-gen/immutable-gen/bench/webhook/apis/v1"
)

// podSetScale sets the size of a PodSet: the entries of each immutable
// part. The default is the immutable-heavy workload of issue 21 (objects
// of about 9 KB: containers 4.2 KB, volumes 2 KB, hosts 1.1 KB, routes
// 1.1 KB); large() is an object of about 1 MB, still mostly immutable.
type podSetScale struct {
	envPerContainer int
	volumes         int
	hosts           int
	routes          int
}

var (
	defaultPodSet = podSetScale{envPerContainer: 11, volumes: 20, hosts: 34, routes: 13}
	largePodSet   = podSetScale{envPerContainer: 2600, volumes: 1900, hosts: 8000, routes: 1300}
)

// podSet returns a PodSet shaped like a JobSet's replicated job: three
// containers with env, ports, resources, probes and mounts, volumes, hosts
// and routes, all immutable, beside mutable replicas, suspend and status,
// and metadata as a cluster stores it.
func podSet(sc podSetScale, image string, replicas int32) *benchv1.PodSet {
	containers := make([]benchv1.Container, 0, 3)
	for c := 0; c < 3; c++ {
		env := make([]benchv1.EnvVar, 0, sc.envPerContainer)
		for e := 0; e < sc.envPerContainer; e++ {
			env = append(env, benchv1.EnvVar{Name: fmt.Sprintf("SETTING_%d_%04d", c, e), Value: fmt.Sprintf("value-%d-%04d-abcdefgh", c, e)})
		}
		img := fmt.Sprintf("registry.example.com/team/sidecar-%d:v1.2.3", c)
		if c == 1 {
			img = image
		}
		containers = append(containers, benchv1.Container{
			Name:            fmt.Sprintf("container-%d", c),
			Image:           img,
			ImagePullPolicy: "IfNotPresent",
			Args:            []string{"--port=8080", "--log-level=info", "--metrics-bind-address=:9090"},
			Env:             env,
			Ports: []benchv1.ContainerPort{
				{Name: "http", ContainerPort: int32(8080 + c), Protocol: "TCP"},
				{Name: "metrics", ContainerPort: int32(9090 + c), Protocol: "TCP"},
			},
			Resources: benchv1.Resources{
				Requests: map[string]string{"cpu": "100m", "memory": "128Mi"},
				Limits:   map[string]string{"cpu": "500m", "memory": "512Mi"},
			},
			LivenessProbe:  &benchv1.Probe{Path: "/healthz", Port: int32(8080 + c), InitialDelaySeconds: 15, PeriodSeconds: 20, FailureThreshold: 3},
			ReadinessProbe: &benchv1.Probe{Path: "/readyz", Port: int32(8080 + c), InitialDelaySeconds: 5, PeriodSeconds: 10, FailureThreshold: 3},
			VolumeMounts: []benchv1.VolumeMount{
				{Name: "config-0", MountPath: "/etc/config", ReadOnly: true},
				{Name: "data-2", MountPath: "/var/lib/data"},
			},
		})
	}
	mode := int32(0o644)
	volumes := make([]benchv1.Volume, 0, sc.volumes)
	for v := 0; v < sc.volumes; v++ {
		switch v % 3 {
		case 0:
			volumes = append(volumes, benchv1.Volume{Name: fmt.Sprintf("config-%d", v), ConfigMap: &benchv1.ConfigMapVolume{
				Name: fmt.Sprintf("checkout-config-%d", v), DefaultMode: &mode,
				Items: []benchv1.KeyToPath{{Key: "app.yaml", Path: "app.yaml"}, {Key: "log.yaml", Path: "log.yaml"}},
			}})
		case 1:
			volumes = append(volumes, benchv1.Volume{Name: fmt.Sprintf("secret-%d", v), Secret: &benchv1.SecretVolume{SecretName: fmt.Sprintf("checkout-tls-%d", v)}})
		default:
			volumes = append(volumes, benchv1.Volume{Name: fmt.Sprintf("data-%d", v), EmptyDir: &benchv1.EmptyDirVolume{Medium: "Memory", SizeLimit: "1Gi"}})
		}
	}
	hosts := make([]string, 0, sc.hosts)
	for h := 0; h < sc.hosts; h++ {
		hosts = append(hosts, fmt.Sprintf("node-%05d.zone-a.example.com", h))
	}
	routes := make(map[string]benchv1.Route, sc.routes)
	for r := 0; r < sc.routes; r++ {
		routes[fmt.Sprintf("route-%04d", r)] = benchv1.Route{Host: fmt.Sprintf("r%04d.shop.example.com", r), Path: fmt.Sprintf("/api/v%d", r%3+1), Port: 443, TLS: true}
	}
	suspend := false
	return &benchv1.PodSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "bench.immutable-gen.io/v1", Kind: "PodSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "checkout", Namespace: "shop", UID: "6b0f3e5e-8d7e-4f3c-9a55-0c6f1f0b2a11",
			ResourceVersion: "123456", Generation: 7,
			Labels: map[string]string{"app.kubernetes.io/name": "checkout", "app.kubernetes.io/part-of": "shop"},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "bench.immutable-gen.io/v1",
				FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:spec":{"f:replicas":{},"f:suspend":{}}}`),
			}},
		},
		Spec: benchv1.PodSetSpec{Replicas: replicas, Suspend: &suspend, Containers: containers, Volumes: volumes, Hosts: hosts, Routes: routes},
		Status: benchv1.PodSetStatus{ObservedGeneration: 7, Ready: replicas, Conditions: []metav1.Condition{
			{Type: "Available", Status: metav1.ConditionTrue, Reason: "MinimumReplicasAvailable", Message: "ready", ObservedGeneration: 7},
		}},
	}
}

// unstructured returns the PodSet as a cluster stores a custom resource:
// unstructured content (its JSON has sorted keys, as the API server writes
// it).
func unstructured(p *benchv1.PodSet) map[string]interface{} {
	b, err := json.Marshal(p)
	if err != nil {
		panic(err) // the types marshal
	}
	var m map[string]interface{}
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}

// podSetRequests builds the immutable-heavy mix: of every four updates,
// three are allowed (replicas; suspend; a label and a route added) and one
// is denied (the image of the second container, inside the immutable list
// map).
func podSetRequests(sc podSetScale) mix {
	const image = "registry.example.com/team/checkout:v1.2.3"
	old := unstructured(podSet(sc, image, 3))
	var m mix
	m.objectSize = len(mustJSON(old))
	m.immutableSize = immutableBytes(old)
	add := func(deny bool, p *benchv1.PodSet) {
		m.add(deny, reviewBody(fmt.Sprintf("uid-%d", len(m.bodies)), "PodSet", unstructured(p), old, "podsets"))
	}
	add(false, podSet(sc, image, 5))
	suspended := podSet(sc, image, 3)
	t := true
	suspended.Spec.Suspend = &t
	add(false, suspended)
	relabelled := podSet(sc, image, 3)
	relabelled.Labels["release"] = "canary"
	relabelled.Spec.Routes["route-new"] = benchv1.Route{Host: "new.shop.example.com", Path: "/", Port: 443}
	add(false, relabelled)
	add(true, podSet(sc, "registry.example.com/team/checkout:v1.2.4", 3))
	return m
}

// immutableBytes is the size of the JSON of the spec's immutable parts.
func immutableBytes(obj map[string]interface{}) int {
	spec := obj["spec"].(map[string]interface{})
	n := 0
	for _, k := range []string{"containers", "volumes", "hosts", "routes"} {
		n += len(mustJSON(spec[k]))
	}
	return n
}

func mustJSON(v interface{}) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

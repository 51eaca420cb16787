package validators

import (
	"fmt"

	deployv1 "github.com/immutable-gen/immutable-gen/bench/validators/apis/deploy/v1"
	widgetv1 "github.com/immutable-gen/immutable-gen/bench/validators/apis/widget/v1"
)

func ptr[T any](v T) *T { return &v }

// widget is a realistic Widget: every field set.
func widget() *widgetv1.Widget {
	w := &widgetv1.Widget{Spec: widgetv1.WidgetSpec{
		Name:     "orders",
		Class:    "gold",
		Size:     3,
		Replicas: ptr[int32](2),
		Config:   widgetv1.WidgetConfig{Engine: "v8", Version: ptr("1.2.0"), Args: []string{"--cache", "--verbose"}},
		Storage:  &widgetv1.Storage{Class: "ssd", SizeGiB: 10},
		Zones:    []string{"eu-west-1a", "eu-west-1b", "eu-west-1c"},
		Ports: []widgetv1.Port{
			{Name: "http", Port: 80, Protocol: "TCP"},
			{Name: "https", Port: 443, Protocol: "TCP"},
		},
		Labels: map[string]string{"team": "payments", "app": "orders"},
		Tags:   []string{"prod", "pci"},
		Backends: []widgetv1.Backend{
			{Name: "primary", Address: "10.0.0.1", Weight: 3},
			{Name: "secondary", Address: "10.0.0.2", Weight: 1},
		},
		Options:      &widgetv1.Options{Mode: "fast", Verbose: true},
		Description:  "the orders widget",
		SeedSnapshot: "orders-2026-11-01",
		Shards:       []widgetv1.Shard{{Name: "s0", Replicas: 3}, {Name: "s1", Replicas: 3}},
	}}
	w.APIVersion, w.Kind = "bench.immutable-gen.io/v1", "Widget"
	w.Name, w.Namespace = "orders", "default"
	return w
}

// container is a realistic container of a Deployment's pod template.
func container(name string, port int32) deployv1.Container {
	return deployv1.Container{
		Name:    name,
		Image:   "registry.example.com/" + name + ":1.4.2",
		Command: []string{"/bin/" + name},
		Args:    []string{"--port", fmt.Sprint(port), "--log-level", "info"},
		Ports: []deployv1.ContainerPort{
			{Name: "http", ContainerPort: port, Protocol: "TCP"},
			{Name: "metrics", ContainerPort: port + 1000, Protocol: "TCP"},
		},
		Env: []deployv1.EnvVar{
			{Name: "LOG_LEVEL", Value: "info"},
			{Name: "PORT", Value: fmt.Sprint(port)},
			{Name: "REGION", Value: "eu-west-1"},
			{Name: "DB_PASSWORD", ValueFrom: &deployv1.EnvVarSource{SecretKeyRef: &deployv1.KeySelector{Name: "db", Key: "password"}}},
			{Name: "FEATURES", ValueFrom: &deployv1.EnvVarSource{ConfigMapKeyRef: &deployv1.KeySelector{Name: "features", Key: name, Optional: ptr(true)}}},
		},
		Resources: deployv1.ResourceRequirements{
			Limits:   map[string]string{"cpu": "1", "memory": "512Mi"},
			Requests: map[string]string{"cpu": "250m", "memory": "256Mi"},
		},
		VolumeMounts: []deployv1.VolumeMount{
			{Name: "config", MountPath: "/etc/" + name, ReadOnly: true},
			{Name: "cache", MountPath: "/var/cache/" + name},
		},
		LivenessProbe:          &deployv1.Probe{HTTPGet: &deployv1.HTTPGetAction{Path: "/healthz", Port: port}, InitialDelaySeconds: 5, PeriodSeconds: 10, FailureThreshold: 3},
		ReadinessProbe:         &deployv1.Probe{HTTPGet: &deployv1.HTTPGetAction{Path: "/ready", Port: port}, PeriodSeconds: 5},
		ImagePullPolicy:        "IfNotPresent",
		TerminationMessagePath: "/dev/termination-log",
	}
}

// deployment is a realistic Deployment: three containers, an init
// container, three volumes, a selector, tolerations.
func deployment() *deployv1.Deployment {
	d := &deployv1.Deployment{Spec: deployv1.DeploymentSpec{
		Replicas: ptr[int32](3),
		Selector: &deployv1.LabelSelector{
			MatchLabels:      map[string]string{"app": "orders", "tier": "backend"},
			MatchExpressions: []deployv1.LabelSelectorRequirement{{Key: "track", Operator: "In", Values: []string{"stable", "canary"}}},
		},
		Template: deployv1.PodTemplateSpec{
			Metadata: deployv1.TemplateMeta{
				Labels:      map[string]string{"app": "orders", "tier": "backend", "track": "stable"},
				Annotations: map[string]string{"prometheus.io/scrape": "true"},
			},
			Spec: deployv1.PodSpec{
				Volumes: []deployv1.Volume{
					{Name: "config", Source: deployv1.VolumeSource{ConfigMap: &deployv1.ConfigMapVolumeSource{Name: "orders-config", DefaultMode: ptr[int32](0o644)}}},
					{Name: "cache", Source: deployv1.VolumeSource{EmptyDir: &deployv1.EmptyDirVolumeSource{SizeLimit: ptr("1Gi")}}},
					{Name: "tls", Source: deployv1.VolumeSource{Secret: &deployv1.SecretVolumeSource{SecretName: "orders-tls"}}},
				},
				InitContainers:                []deployv1.Container{container("migrate", 9000)},
				Containers:                    []deployv1.Container{container("orders", 8080), container("sidecar", 8081), container("proxy", 8443)},
				RestartPolicy:                 "Always",
				TerminationGracePeriodSeconds: ptr[int64](30),
				DNSPolicy:                     "ClusterFirst",
				NodeSelector:                  map[string]string{"kubernetes.io/os": "linux", "pool": "general"},
				ServiceAccountName:            "orders",
				AutomountServiceAccountToken:  ptr(false),
				SecurityContext:               &deployv1.PodSecurityContext{RunAsUser: ptr[int64](1000), RunAsNonRoot: ptr(true), FSGroup: ptr[int64](2000), SupplementalGroups: []int64{3000}},
				ImagePullSecrets:              []string{"registry-a", "registry-b"},
				SchedulerName:                 "default-scheduler",
				Tolerations: []deployv1.Toleration{
					{Key: "dedicated", Operator: "Equal", Value: "orders", Effect: "NoSchedule"},
					{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: ptr[int64](300)},
				},
				PriorityClassName: "high",
			},
		},
		Strategy:                deployv1.DeploymentStrategy{Type: "RollingUpdate", RollingUpdate: &deployv1.RollingUpdateDeployment{MaxUnavailable: ptr("25%"), MaxSurge: ptr("25%")}},
		MinReadySeconds:         5,
		RevisionHistoryLimit:    ptr[int32](10),
		ProgressDeadlineSeconds: ptr[int32](600),
	}}
	d.APIVersion, d.Kind = "bench.immutable-gen.io/v1", "Deployment"
	d.Name, d.Namespace = "orders", "default"
	return d
}

// benchCase is one update of the benchmarks: new and old, and the fields
// each validator must report.
type benchCase struct {
	name     string
	obj, old interface{}
	// want is the fields the runtime reports; validation-gen reports
	// wantVG where it differs (set order).
	want, wantVG []string
}

// benchCases returns the updates every validator is measured on, as fresh
// copies (new and old never share memory, as after decoding a request).
func benchCases() map[string][]benchCase {
	wc := func(mut func(*widgetv1.Widget)) *widgetv1.Widget { w := widget(); mut(w); return w }
	dc := func(mut func(*deployv1.Deployment)) *deployv1.Deployment { d := deployment(); mut(d); return d }
	return map[string][]benchCase{
		"Widget": {
			{name: "unchanged", obj: widget(), old: widget()},
			{name: "mutable-change", obj: wc(func(w *widgetv1.Widget) { w.Spec.Replicas = ptr[int32](5) }), old: widget()},
			{name: "immutable-change", obj: wc(func(w *widgetv1.Widget) { w.Spec.Backends[1].Address = "10.0.0.9" }), old: widget(),
				want: []string{"spec.backends[1].address"}},
			{name: "reordered-set", obj: wc(func(w *widgetv1.Widget) { w.Spec.Zones[0], w.Spec.Zones[2] = w.Spec.Zones[2], w.Spec.Zones[0] }), old: widget(),
				wantVG: []string{"spec.zones"}},
		},
		"Deployment": {
			{name: "unchanged", obj: deployment(), old: deployment()},
			{name: "mutable-change", obj: dc(func(d *deployv1.Deployment) {
				d.Spec.Template.Spec.Containers[2].Image = "registry.example.com/proxy:1.5.0"
			}), old: deployment()},
			{name: "immutable-change", obj: dc(func(d *deployv1.Deployment) { d.Spec.Template.Spec.Containers[2].VolumeMounts[1].Name = "tmp" }), old: deployment(),
				want: []string{"spec.template.spec.containers[2].volumeMounts[1].name"}},
			{name: "reordered-set", obj: dc(func(d *deployv1.Deployment) {
				s := d.Spec.Template.Spec.ImagePullSecrets
				s[0], s[1] = s[1], s[0]
			}), old: deployment(),
				wantVG: []string{"spec.template.spec.imagePullSecrets"}},
		},
	}
}

package main

import (
	"encoding/json"
	"fmt"
)

// workload returns a Workload shaped like a Deployment as a cluster stores
// it: labels, the last-applied annotation, managed fields, a pod template
// of three containers with env, probes, resources and mounts, and status.
// envPerContainer scales its size; serviceName and image are what the
// request mix changes.
func workload(envPerContainer int, serviceName, image string, replicas int64) map[string]interface{} {
	containers := make([]interface{}, 0, 3)
	for c := 0; c < 3; c++ {
		env := make([]interface{}, 0, envPerContainer)
		for e := 0; e < envPerContainer; e++ {
			env = append(env, map[string]interface{}{
				"name":  fmt.Sprintf("SETTING_%02d_%02d", c, e),
				"value": fmt.Sprintf("value-%02d-%02d-abcdefgh", c, e),
			})
		}
		img := fmt.Sprintf("registry.example.com/team/sidecar-%d:v1.2.3", c)
		if c == 0 {
			img = image
		}
		containers = append(containers, map[string]interface{}{
			"name":            fmt.Sprintf("container-%d", c),
			"image":           img,
			"imagePullPolicy": "IfNotPresent",
			"args":            []interface{}{"--port=8080", "--log-level=info", "--metrics-bind-address=:9090"},
			"env":             env,
			"ports": []interface{}{
				map[string]interface{}{"name": "http", "containerPort": int64(8080 + c), "protocol": "TCP"},
				map[string]interface{}{"name": "metrics", "containerPort": int64(9090 + c), "protocol": "TCP"},
			},
			"resources": map[string]interface{}{
				"requests": map[string]interface{}{"cpu": "100m", "memory": "128Mi"},
				"limits":   map[string]interface{}{"cpu": "500m", "memory": "512Mi"},
			},
			"livenessProbe": map[string]interface{}{
				"httpGet":             map[string]interface{}{"path": "/healthz", "port": int64(8080 + c), "scheme": "HTTP"},
				"initialDelaySeconds": int64(15), "periodSeconds": int64(20), "timeoutSeconds": int64(1),
				"successThreshold": int64(1), "failureThreshold": int64(3),
			},
			"readinessProbe": map[string]interface{}{
				"httpGet":             map[string]interface{}{"path": "/readyz", "port": int64(8080 + c), "scheme": "HTTP"},
				"initialDelaySeconds": int64(5), "periodSeconds": int64(10), "timeoutSeconds": int64(1),
				"successThreshold": int64(1), "failureThreshold": int64(3),
			},
			"volumeMounts": []interface{}{
				map[string]interface{}{"name": "config", "mountPath": "/etc/config", "readOnly": true},
				map[string]interface{}{"name": "data", "mountPath": "/var/lib/data"},
			},
			"securityContext": map[string]interface{}{
				"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "runAsNonRoot": true,
				"capabilities": map[string]interface{}{"drop": []interface{}{"ALL"}},
			},
			"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
		})
	}
	labels := map[string]interface{}{
		"app.kubernetes.io/name": "checkout", "app.kubernetes.io/instance": "checkout-prod",
		"app.kubernetes.io/part-of": "shop", "app.kubernetes.io/managed-by": "operator",
	}
	spec := map[string]interface{}{
		"serviceName": serviceName,
		"replicas":    replicas,
		"selector":    map[string]interface{}{"matchLabels": map[string]interface{}{"app.kubernetes.io/name": "checkout", "app.kubernetes.io/instance": "checkout-prod"}},
		"storage":     map[string]interface{}{"class": "fast-ssd", "size": "20Gi"},
		"labels":      map[string]interface{}{"team": "payments", "tier": "backend", "cost-center": "cc-1234"},
		"ports": []interface{}{
			map[string]interface{}{"name": "http", "port": int64(80), "protocol": "TCP"},
			map[string]interface{}{"name": "grpc", "port": int64(9000), "protocol": "TCP"},
		},
		"template": map[string]interface{}{
			"metadata": map[string]interface{}{"labels": labels, "annotations": map[string]interface{}{"prometheus.io/scrape": "true"}},
			"spec": map[string]interface{}{
				"serviceAccountName":            "checkout",
				"terminationGracePeriodSeconds": int64(30),
				"dnsPolicy":                     "ClusterFirst",
				"restartPolicy":                 "Always",
				"schedulerName":                 "default-scheduler",
				"containers":                    containers,
				"volumes": []interface{}{
					map[string]interface{}{"name": "config", "configMap": map[string]interface{}{"name": "checkout-config", "defaultMode": int64(420)}},
					map[string]interface{}{"name": "data", "emptyDir": map[string]interface{}{}},
				},
				"affinity": map[string]interface{}{"podAntiAffinity": map[string]interface{}{
					"preferredDuringSchedulingIgnoredDuringExecution": []interface{}{map[string]interface{}{
						"weight": int64(100),
						"podAffinityTerm": map[string]interface{}{
							"topologyKey":   "kubernetes.io/hostname",
							"labelSelector": map[string]interface{}{"matchLabels": map[string]interface{}{"app.kubernetes.io/name": "checkout"}},
						},
					}},
				}},
			},
		},
	}
	obj := map[string]interface{}{
		"apiVersion": "bench.immutable-gen.io/v1",
		"kind":       "Workload",
		"metadata": map[string]interface{}{
			"name": "checkout", "namespace": "shop", "uid": "6b0f3e5e-8d7e-4f3c-9a55-0c6f1f0b2a11",
			"resourceVersion": "123456", "generation": int64(7), "creationTimestamp": "2026-01-02T03:04:05Z",
			"labels": labels,
			"managedFields": []interface{}{map[string]interface{}{
				"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "bench.immutable-gen.io/v1",
				"time": "2026-01-02T03:04:05Z", "fieldsType": "FieldsV1",
				"fieldsV1": map[string]interface{}{"f:metadata": map[string]interface{}{"f:labels": map[string]interface{}{".": map[string]interface{}{}}}, "f:spec": map[string]interface{}{"f:replicas": map[string]interface{}{}, "f:serviceName": map[string]interface{}{}, "f:template": map[string]interface{}{}}},
			}},
		},
		"spec": spec,
		"status": map[string]interface{}{
			"observedGeneration": int64(7), "replicas": replicas, "readyReplicas": replicas,
			"conditions": []interface{}{
				map[string]interface{}{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "lastTransitionTime": "2026-01-02T03:04:05Z"},
				map[string]interface{}{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable", "lastTransitionTime": "2026-01-02T03:04:05Z"},
			},
		},
	}
	// The last-applied annotation holds the spec as the user wrote it.
	applied, _ := json.Marshal(map[string]interface{}{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "spec": map[string]interface{}{"serviceName": serviceName, "replicas": replicas}})
	obj["metadata"].(map[string]interface{})["annotations"] = map[string]interface{}{
		"kubectl.kubernetes.io/last-applied-configuration": string(applied),
	}
	return obj
}

// reviewBody returns an AdmissionReview v1 request for the update of old to
// obj, as kube-apiserver sends it.
func reviewBody(uid, kind string, obj, old map[string]interface{}, resource string) []byte {
	review := map[string]interface{}{
		"apiVersion": "admission.k8s.io/v1",
		"kind":       "AdmissionReview",
		"request": map[string]interface{}{
			"uid":             uid,
			"kind":            map[string]interface{}{"group": "bench.immutable-gen.io", "version": "v1", "kind": kind},
			"resource":        map[string]interface{}{"group": "bench.immutable-gen.io", "version": "v1", "resource": resource},
			"requestKind":     map[string]interface{}{"group": "bench.immutable-gen.io", "version": "v1", "kind": kind},
			"requestResource": map[string]interface{}{"group": "bench.immutable-gen.io", "version": "v1", "resource": resource},
			"name":            "checkout",
			"namespace":       "shop",
			"operation":       "UPDATE",
			"userInfo":        map[string]interface{}{"username": "system:serviceaccount:shop:deployer", "groups": []interface{}{"system:serviceaccounts", "system:authenticated"}},
			"object":          obj,
			"oldObject":       old,
			"dryRun":          false,
			"options":         map[string]interface{}{"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1"},
		},
	}
	b, err := json.Marshal(review)
	if err != nil {
		panic(err) // maps of JSON values always marshal
	}
	return b
}

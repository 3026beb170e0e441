package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// admit sends obj, as the API server would on create, through the mutating and then the
// validating webhook Kueue registered for its kind on server's mux (paths as controller-runtime's
// builder makes them: /mutate-<group>-<version>-<kind>, dots in the group as dashes). It returns
// the mutated object's JSON, or the message of Kueue's refusal.
func admit(ctx context.Context, server webhook.Server, gvk schema.GroupVersionKind, resource string, obj client.Object, raw []byte) ([]byte, string, error) {
	mutated, refusal, err := review(ctx, server, "/mutate-"+pathOf(gvk), gvk, resource, obj, raw)
	if err != nil || refusal != "" {
		return nil, refusal, err
	}
	_, refusal, err = review(ctx, server, "/validate-"+pathOf(gvk), gvk, resource, obj, mutated)
	if err != nil || refusal != "" {
		return nil, refusal, err
	}
	return mutated, "", nil
}

func pathOf(gvk schema.GroupVersionKind) string {
	return strings.ReplaceAll(gvk.Group, ".", "-") + "-" + gvk.Version + "-" + strings.ToLower(gvk.Kind)
}

// review posts one AdmissionReview to path and applies the JSON patch a mutating webhook answers.
func review(ctx context.Context, server webhook.Server, path string, gvk schema.GroupVersionKind, resource string, obj client.Object, raw []byte) ([]byte, string, error) {
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID("review-" + string(obj.GetUID())),
			Kind:      metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
			Resource:  metav1.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: resource},
			Name:      obj.GetName(),
			Namespace: obj.GetNamespace(),
			Operation: admissionv1.Create,
			UserInfo:  authenticationv1.UserInfo{Username: "kadmit-oracle"},
			Object:    runtime.RawExtension{Raw: raw},
		},
	})
	if err != nil {
		return nil, "", err
	}
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	server.WebhookMux().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return nil, "", fmt.Errorf("webhook %s answered HTTP %d: %s", path, rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		return nil, "", fmt.Errorf("webhook %s: %w", path, err)
	}
	resp := out.Response
	if resp == nil {
		return nil, "", fmt.Errorf("webhook %s gave no response", path)
	}
	if !resp.Allowed {
		msg := "denied"
		if resp.Result != nil && resp.Result.Message != "" {
			msg = resp.Result.Message
		}
		return nil, msg, nil
	}
	if len(resp.Patch) == 0 {
		return raw, "", nil
	}
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		return nil, "", fmt.Errorf("webhook %s: its patch: %w", path, err)
	}
	patched, err := patch.Apply(raw)
	if err != nil {
		return nil, "", fmt.Errorf("webhook %s: applying its patch: %w", path, err)
	}
	return patched, "", nil
}

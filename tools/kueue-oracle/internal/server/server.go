// Package server marks the harness's own writes that stand for what the API server itself sets
// (a created object's uid and creationTimestamp as the input shows them): such writes are not
// requests, and are not checked against the CRD's schema (objects.Defaulter.Intercept).
package server

import "context"

type stampingKey struct{}

// Stamping marks ctx's writes as the API server's own.
func Stamping(ctx context.Context) context.Context {
	return context.WithValue(ctx, stampingKey{}, true)
}

// IsStamping says whether ctx's writes are the API server's own.
func IsStamping(ctx context.Context) bool {
	v, _ := ctx.Value(stampingKey{}).(bool)
	return v
}

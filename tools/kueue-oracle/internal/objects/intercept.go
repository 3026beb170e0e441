package objects

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/server"
)

// Restore writes a stored object back as it was, bypassing the client (an object tracker's
// Update): a patch the CRD refuses is undone with it.
type Restore func(gvr schema.GroupVersionResource, obj client.Object) error

// Intercept puts the API server's handling of Kueue's kinds (Defaulter.Write: the CRD's
// structural defaults, schema and CEL validation rules) in front of a fake client's writes:
// a create, an update or a status update the CRD refuses is refused with the API server's
// error and not stored; a patch (whose result only the client computes) is applied, its
// result validated against the object before it, and undone with restore where refused.
// Without restore, patches are not validated. Kueue's controllers get the error as from an
// API server. next's functions, where set, do the write; else the client.
func (d *Defaulter) Intercept(scheme *runtime.Scheme, next interceptor.Funcs, restore Restore) interceptor.Funcs {
	if d == nil {
		return next
	}
	f := next
	stored := func(ctx context.Context, c client.Reader, obj client.Object) client.Object {
		raw, err := scheme.New(mustGVK(scheme, obj))
		if err != nil {
			return nil
		}
		old := raw.(client.Object)
		if c.Get(ctx, client.ObjectKeyFromObject(obj), old) != nil {
			return nil
		}
		return old
	}
	checkPatch := func(ctx context.Context, c client.Reader, before, obj client.Object, status bool, err error) error {
		if err != nil || before == nil || restore == nil || !d.knows(scheme, obj) || server.IsStamping(ctx) {
			return err
		}
		if verr := d.Write(ctx, scheme, obj.DeepCopyObject().(client.Object), before, status); verr != nil {
			gvk := mustGVK(scheme, before)
			plural, _ := meta.UnsafeGuessKindToResource(gvk)
			if rerr := restore(plural, before); rerr != nil {
				return rerr
			}
			_ = c.Get(ctx, client.ObjectKeyFromObject(before), obj)
			return verr
		}
		return nil
	}
	f.Create = func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
		if server.IsStamping(ctx) {
			// not a request
		} else if err := d.Write(ctx, scheme, obj, nil, false); err != nil {
			return err
		}
		if next.Create != nil {
			return next.Create(ctx, c, obj, opts...)
		}
		return c.Create(ctx, obj, opts...)
	}
	f.Update = func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
		if d.knows(scheme, obj) && !server.IsStamping(ctx) {
			if old := stored(ctx, c, obj); old != nil {
				if err := d.Write(ctx, scheme, obj, old, false); err != nil {
					return err
				}
			}
		}
		if next.Update != nil {
			return next.Update(ctx, c, obj, opts...)
		}
		return c.Update(ctx, obj, opts...)
	}
	f.SubResourceUpdate = func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
		if sub == "status" && d.knows(scheme, obj) && !server.IsStamping(ctx) {
			if old := stored(ctx, c, obj); old != nil {
				if err := d.Write(ctx, scheme, obj, old, true); err != nil {
					return err
				}
			}
		}
		if next.SubResourceUpdate != nil {
			return next.SubResourceUpdate(ctx, c, sub, obj, opts...)
		}
		return c.SubResource(sub).Update(ctx, obj, opts...)
	}
	f.Patch = func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
		before := stored(ctx, c, obj)
		var err error
		if next.Patch != nil {
			err = next.Patch(ctx, c, obj, patch, opts...)
		} else {
			err = c.Patch(ctx, obj, patch, opts...)
		}
		return checkPatch(ctx, c, before, obj, false, err)
	}
	f.SubResourcePatch = func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
		before := stored(ctx, c, obj)
		var err error
		if next.SubResourcePatch != nil {
			err = next.SubResourcePatch(ctx, c, sub, obj, patch, opts...)
		} else {
			err = c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		}
		return checkPatch(ctx, c, before, obj, sub == "status", err)
	}
	return f
}

func (d *Defaulter) knows(scheme *runtime.Scheme, obj client.Object) bool {
	gvk, err := apiutil.GVKForObject(obj, scheme)
	return err == nil && d.Knows(gvk)
}

func mustGVK(scheme *runtime.Scheme, obj client.Object) (gvk schema.GroupVersionKind) {
	gvk, _ = apiutil.GVKForObject(obj, scheme)
	return gvk
}

package objects

import (
	"context"
	"fmt"
	"sync"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// crdVersion validates one version of one of Kueue's CRDs as the API server's custom resource
// handler does (apiextensions-apiserver pkg/registry/customresource: strategy.go Validate and
// ValidateUpdate, status_strategy.go ValidateUpdate, validator.go): the OpenAPI schema
// (apiserver/validation), embedded ObjectMeta, x-kubernetes-list-type, then the
// x-kubernetes-validations CEL rules (apiserver/schema/cel), with CRD validation ratcheting on
// updates (GA, always on since Kubernetes v1.33). The validators are built on first use: the
// CEL rules are compiled then.
type crdVersion struct {
	kind       schema.GroupVersionKind
	namespaced bool
	status     bool // the version has the status subresource
	props      *apiextensions.JSONSchemaProps
	structural *structuralschema.Structural

	once            sync.Once
	err             error
	validator       apiservervalidation.SchemaValidator
	statusValidator apiservervalidation.SchemaValidator
	cel             *cel.Validator
}

func (v *crdVersion) build() error {
	v.once.Do(func() {
		if v.validator, _, v.err = apiservervalidation.NewSchemaValidator(v.props); v.err != nil {
			return
		}
		if st, ok := v.props.Properties["status"]; ok && v.status {
			if v.statusValidator, _, v.err = apiservervalidation.NewSchemaValidator(&st); v.err != nil {
				return
			}
		}
		v.cel = cel.NewValidator(v.structural, true, celconfig.PerCallLimit)
	})
	return v.err
}

// blocking is customresource's hasBlockingErr: CEL rules are not run over an object with such errors.
func blocking(errs field.ErrorList) (bool, *field.Error) {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return false, nil
}

func (v *crdVersion) typeMeta(u *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	if u.GetKind() != v.kind.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), u.GetKind(), fmt.Sprintf("must be %v", v.kind.Kind)))
	}
	if u.GetAPIVersion() != v.kind.GroupVersion().String() {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u.GetAPIVersion(), fmt.Sprintf("must be %v", v.kind.GroupVersion())))
	}
	return errs
}

// create is customResourceStrategy.Validate.
func (v *crdVersion) create(ctx context.Context, u *unstructured.Unstructured) field.ErrorList {
	if errs := v.typeMeta(u); len(errs) > 0 {
		return errs
	}
	var errs field.ErrorList
	errs = append(errs, metavalidation.ValidateObjectMetaAccessor(u, v.namespaced, metavalidation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u.UnstructuredContent(), v.validator)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, u.Object, v.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.structural, u.Object)...)
	if has, err := blocking(errs); has {
		return append(errs, err)
	}
	celErrs, _ := v.cel.Validate(ctx, nil, v.structural, u.Object, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// update is customResourceStrategy.ValidateUpdate, or with status statusStrategy.ValidateUpdate
// (a write to the status subresource: only the status validated against the status schema).
func (v *crdVersion) update(ctx context.Context, u, old *unstructured.Unstructured, status bool) field.ErrorList {
	if errs := v.typeMeta(u); len(errs) > 0 {
		return errs
	}
	correlated := common.NewCorrelatedObject(u.Object, old.Object, &model.Structural{Structural: v.structural})
	celOpts := []cel.Option{cel.WithRatcheting(correlated)}
	errs := metavalidation.ValidateObjectMetaAccessorUpdate(u, old, field.NewPath("metadata"))
	if status && v.status {
		if st, ok := u.Object["status"]; ok && v.statusValidator != nil {
			errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(field.NewPath("status"), st, old.Object["status"],
				v.statusValidator, apiservervalidation.WithRatcheting(correlated.Key("status")))...)
		}
		if newErrs := structurallisttype.ValidateListSetsAndMaps(nil, v.structural, u.Object); len(newErrs) > 0 {
			if oldErrs := structurallisttype.ValidateListSetsAndMaps(nil, v.structural, old.Object); len(oldErrs) == 0 {
				errs = append(errs, newErrs...)
			}
		}
	} else {
		errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(nil, u.UnstructuredContent(), old.UnstructuredContent(),
			v.validator, apiservervalidation.WithRatcheting(correlated))...)
		errs = append(errs, schemaobjectmeta.Validate(nil, u.Object, v.structural, false)...)
		if oldErrs := structurallisttype.ValidateListSetsAndMaps(nil, v.structural, old.Object); len(oldErrs) == 0 {
			errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, v.structural, u.Object)...)
		}
	}
	if has, err := blocking(errs); has {
		return append(errs, err)
	}
	celErrs, _ := v.cel.Validate(ctx, nil, v.structural, u.Object, old.Object, celconfig.RuntimeCELCostBudget, celOpts...)
	return append(errs, celErrs...)
}

// Write is what the API server does with a write of one of Kueue's objects, for obj's version:
// on create or update (old the stored object; status a write to the status subresource) its
// non-nullable nulls are dropped and the CRD's structural defaults applied (to obj in place, but
// on a status write, whose spec the server keeps as stored), then it is validated against the CRD's schema and rules; the error
// is the API server's (`Workload.kueue.x-k8s.io "name" is invalid: ...`). Objects of other
// kinds pass as they are.
func (d *Defaulter) Write(ctx context.Context, scheme *runtime.Scheme, obj, old client.Object, status bool) error {
	gvk, err := apiutil.GVKForObject(obj, scheme)
	if err != nil {
		return nil
	}
	v, ok := d.versions[gvk]
	if !ok {
		return nil
	}
	if err := v.build(); err != nil {
		return fmt.Errorf("the CRD schema of %s: %w", gvk, err)
	}
	u, err := toUnstructured(obj, gvk)
	if err != nil {
		return err
	}
	// the custom resource handler's decoding: nulls the schema does not allow dropped (a typed
	// object's nil slice), then the defaults
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.structural)
	d.Default(gvk, u.Object)
	if !status {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
			return err
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
	var errs field.ErrorList
	if old == nil {
		errs = v.create(ctx, u)
	} else {
		uOld, err := toUnstructured(old, gvk)
		if err != nil {
			return err
		}
		errs = v.update(ctx, u, uOld, status)
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(gvk.GroupKind(), obj.GetName(), errs)
}

// Check is Write's create of an object as it was written (u, which it defaults in place), not as one
// of Kueue's Go types holds it (which drops `priorityClassName: ""`, a value the schema's pattern refuses).
func (d *Defaulter) Check(ctx context.Context, u *unstructured.Unstructured) error {
	gvk := u.GroupVersionKind()
	v, ok := d.versions[gvk]
	if !ok {
		return nil
	}
	if err := v.build(); err != nil {
		return fmt.Errorf("the CRD schema of %s: %w", gvk, err)
	}
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.structural)
	d.Default(gvk, u.Object)
	if errs := v.create(ctx, u); len(errs) > 0 {
		return apierrors.NewInvalid(gvk.GroupKind(), u.GetName(), errs)
	}
	return nil
}

func toUnstructured(obj client.Object, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// CRDCheck is what the API server's custom resource handler does with a create of one served version
// of any CRD (the job kinds' and the training runtimes' CRDs: internal/jobs), as Defaulter.Write is
// for Kueue's own kinds.
type CRDCheck struct{ v *crdVersion }

// NewCRDCheck builds the check of one served version of a CRD from its OpenAPI schema (namespaced: the
// CRD's scope; status: the version has the status subresource). The validators are built on first use.
func NewCRDCheck(gvk schema.GroupVersionKind, namespaced, status bool, props *apiextensionsv1.JSONSchemaProps) (*CRDCheck, error) {
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(props, &internal, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, err
	}
	return &CRDCheck{v: &crdVersion{kind: gvk, namespaced: namespaced, status: status, props: &internal, structural: s}}, nil
}

// Default fills the CRD's structural defaults (+kubebuilder:default) of obj in place.
func (c *CRDCheck) Default(obj map[string]interface{}) {
	structuraldefaulting.Default(obj, c.v.structural)
}

// Create decodes u as the handler does on create (non-nullable nulls dropped, the defaults: in place) and
// validates it (customResourceStrategy.Validate: the OpenAPI schema, ObjectMeta, list types, the CEL
// rules), without its status where the version has the status subresource (PrepareForCreate drops it).
// The error is the API server's (`JobSet.jobset.x-k8s.io "name" is invalid: ...`).
//
// First the decoding's strict field validation, which `kubectl apply` asks for (fieldValidation=Strict,
// its default since Kubernetes v1.27; kadmit reads files as it sends them): a field the version's
// schema does not have (pruned by a client that does not ask) refuses the object before any validation,
// in the API server's words (`RayCluster in version "v1alpha1" cannot be handled as a RayCluster: strict
// decoding error: unknown field "spec.workerGroupSpecs[0].numOfHosts"`, a BadRequest).
func (c *CRDCheck) Create(ctx context.Context, u *unstructured.Unstructured) error {
	if err := c.v.build(); err != nil {
		return fmt.Errorf("the CRD schema of %s: %w", c.v.kind, err)
	}
	if err := c.v.strict(u); err != nil {
		return err
	}
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, c.v.structural)
	c.Default(u.Object)
	checked := u
	if c.v.status {
		checked = u.DeepCopy()
		unstructured.RemoveNestedField(checked.Object, "status")
	}
	if errs := c.v.create(ctx, checked); len(errs) > 0 {
		return apierrors.NewInvalid(c.v.kind.GroupKind(), u.GetName(), errs)
	}
	return nil
}

// strict is the custom resource handler's strict field validation (fieldValidation=Strict, `kubectl
// apply`'s default since Kubernetes v1.27): the API server's BadRequest naming each field the version's
// schema lacks (`RayCluster in version "v1alpha1" cannot be handled as a RayCluster: strict decoding
// error: unknown field "spec.workerGroupSpecs[0].numOfHosts"`), or nil.
func (v *crdVersion) strict(u *unstructured.Unstructured) error {
	unknown := v.unknownFields(&unstructured.Unstructured{Object: withoutNullFields(u.Object)})
	if len(unknown) == 0 {
		return nil
	}
	errs := make([]error, len(unknown))
	for i, path := range unknown {
		errs[i] = fmt.Errorf(`unknown field "%s"`, path)
	}
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
		v.kind.Kind, v.kind.Version, v.kind.Kind, runtime.NewStrictDecodingError(errs)))
}

// withoutNullFields is obj as `kubectl apply` sends it: without the fields whose value is null (its
// client-side apply drops them; tools/kube-apiserver v1.35.3: `template.metadata.creationTimestamp: null`
// in a PyTorchJob, whose CRD's embedded ObjectMeta lacks it, is applied, and refused when posted as written).
// Null list items are kept (the API server decodes them as the item's empty object).
func withoutNullFields(obj map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(obj))
	for k, val := range obj {
		if val != nil {
			out[k] = withoutNullsBelow(val)
		}
	}
	return out
}

func withoutNullsBelow(val interface{}) interface{} {
	switch t := val.(type) {
	case map[string]interface{}:
		return withoutNullFields(t)
	case []interface{}:
		items := make([]interface{}, len(t))
		for i, item := range t {
			items[i] = withoutNullsBelow(item)
		}
		return items
	}
	return val
}

// Strict is crdVersion.strict for one of Kueue's kinds, in the version u is written in.
func (d *Defaulter) Strict(u *unstructured.Unstructured) error {
	if v, ok := d.versions[u.GroupVersionKind()]; ok {
		return v.strict(u)
	}
	return nil
}

// unknownFields are the paths the custom resource handler's decoding prunes from u with field
// validation on (apiextensions-apiserver customresource_handler.go, unstructuredSchemaCoercer.apply:
// the object's metadata, the schema's pruning, embedded resources' metadata), in its order; u is
// left as it is.
func (v *crdVersion) unknownFields(u *unstructured.Unstructured) []string {
	obj := u.DeepCopy().Object
	_, _, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil // malformed metadata: the validation that follows says so
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(obj, v.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, v.structural)
	if err, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, v.structural, false,
		schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true}); err == nil {
		unknown = append(unknown, paths...)
	}
	return unknown
}

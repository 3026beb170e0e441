# Shared by build, up and down (sourced, not run).
# kube_build builds etcd, kube-apiserver and kubectl (and kubeup, the starter) once per key and sets
# KUBE_BIN (the folder of the three servers' binaries) and KUBEUP (the starter). Progress goes to stderr.

KUBE_TOOL="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KUBE_CACHE="${KADMIT_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kadmit/kube-apiserver}"

# The release the binaries report as their version (component-base and client-go's version package,
# set as Kubernetes' hack/lib/version.sh does); the source is go.mod's k8s.io/kubernetes.
KUBE_VERSION=v1.35.3
KUBE_COMMIT=6c1cd99aef09161ddb07b8ade6c9564e9b9bfe27
KUBE_PACKAGES=(k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl go.etcd.io/etcd/server/v3)

kube_say() { echo "kube-apiserver: $*" >&2; }

# kube_go finds Go, or exits 2: nothing here can be built without it.
kube_go() {
  if [[ -n "${GO:-}" ]]; then
    GO_BIN="$GO"
  else
    GO_BIN="$(command -v go || true)"
  fi
  if [[ -z "$GO_BIN" || ! -x "$GO_BIN" ]]; then
    kube_say "Go is missing (no \`go\` on PATH${GO:+, and GO=$GO is not a program}): etcd, kube-apiserver and kubectl are built from Go modules; install Go 1.25 or newer"
    exit 2
  fi
  # kubeup runs `go mod download` for the CRDs: the same Go, first on PATH.
  PATH="$(dirname "$GO_BIN"):$PATH"
  export PATH
}

kube_ldflags() {
  local flags="-s -w" pkg
  for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    flags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=35"
    flags+=" -X $pkg.gitCommit=$KUBE_COMMIT -X $pkg.gitTreeState=clean"
  done
  echo "$flags"
}

# kube_key hashes what the output depends on: the Go version and platform, the flags, and files.
kube_key() {
  { "$GO_BIN" env GOVERSION GOOS GOARCH; echo "$*"; cat "$KUBE_TOOL/go.mod" "$KUBE_TOOL/go.sum"; } | sha256sum | cut -c1-16
}

# kube_go_build OUT LOG PACKAGES...: go build with a line of progress every 250 packages.
kube_go_build() {
  local out="$1" log="$2" n=0 line status
  shift 2
  local start=$SECONDS
  (cd "$KUBE_TOOL" && CGO_ENABLED=0 nice "$GO_BIN" build -v -trimpath -pgo=off -ldflags="$(kube_ldflags)" -o "$out/" "$@") \
    >> "$log" 2>&1 &
  local pid=$!
  # `go build -v` names each package as it is compiled; count them as they come.
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    local now
    now=$(grep -c . "$log" 2>/dev/null || true)
    if (( now / 250 > n / 250 )); then
      kube_say "  $now packages compiled ($((SECONDS - start))s)"
    fi
    n=$now
  done
  status=0
  wait "$pid" || status=$?
  if (( status != 0 )); then
    kube_say "go build failed ($status); the end of $log:"
    tail -n 30 "$log" | sed 's/^/  /' >&2
    exit 1
  fi
}

kube_build() {
  kube_go
  mkdir -p "$KUBE_CACHE"
  local ldflags key_servers key_up
  ldflags="$(kube_ldflags)"
  key_servers="$(kube_key "CGO_ENABLED=0 -trimpath -pgo=off $ldflags ${KUBE_PACKAGES[*]}")"
  key_up="$(kube_key "CGO_ENABLED=0 -trimpath" "$(cat "$KUBE_TOOL"/kubeup/*.go)")"
  KUBE_BIN="$KUBE_CACHE/servers-$key_servers"
  KUBEUP="$KUBE_CACHE/kubeup-$key_up/kubeup"
  if [[ -x "$KUBE_BIN/kube-apiserver" && -x "$KUBE_BIN/etcd" && -x "$KUBE_BIN/kubectl" && -x "$KUBEUP" ]]; then
    return 0
  fi
  # One build at a time per cache: a second `up` waits for the first's build, then finds it done.
  exec 9> "$KUBE_CACHE/.lock"
  if ! flock -n 9; then
    kube_say "another build into $KUBE_CACHE is under way: waiting for it"
    flock 9
  fi
  if [[ ! ( -x "$KUBE_BIN/kube-apiserver" && -x "$KUBE_BIN/etcd" && -x "$KUBE_BIN/kubectl" ) ]]; then
    local tmp
    tmp="$(mktemp -d "$KUBE_CACHE/build.XXXXXX")"
    kube_say "building kube-apiserver $KUBE_VERSION, etcd and kubectl from Go modules with $("$GO_BIN" env GOVERSION) into $KUBE_BIN"
    kube_say "  (a first build compiles ~2,300 packages, ~700 s of CPU: minutes on 2 idle cores, far longer on a busy machine; later ones reuse it; log: $tmp/build.log)"
    local start=$SECONDS
    kube_go_build "$tmp" "$tmp/build.log" "${KUBE_PACKAGES[@]}"
    mv "$tmp/server" "$tmp/etcd"   # etcd's main package is its server module's root
    rm -rf "$KUBE_BIN"
    mv "$tmp" "$KUBE_BIN"
    kube_say "built in $((SECONDS - start))s: $(du -sh "$KUBE_BIN" | cut -f1) in $KUBE_BIN"
  fi
  if [[ ! -x "$KUBEUP" ]]; then
    local tmp
    tmp="$(mktemp -d "$KUBE_CACHE/build.XXXXXX")"
    kube_say "building kubeup (the starter) into $(dirname "$KUBEUP")"
    kube_go_build "$tmp" "$tmp/build.log" ./kubeup
    rm -rf "$(dirname "$KUBEUP")"
    mv "$tmp" "$(dirname "$KUBEUP")"
  fi
  flock -u 9
  exec 9>&-
}

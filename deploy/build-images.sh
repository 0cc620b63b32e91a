#!/usr/bin/env bash
# Builds ToxGraph's container images from Debian packages and the npm registry only; nothing is
# pulled from an image registry. Needs (Debian): mmdebstrap buildah skopeo, and npm; run as root.
#
#   deploy/build-images.sh            -> deploy/out/toxgraph-VERSION.tar
#                                        deploy/out/toxgraph-services-VERSION.tar
#   podman load -i deploy/out/toxgraph-VERSION.tar    (or docker load -i ...)
#
# toxgraph           the server (Debian bookworm minbase, jemalloc, tini, the project at HEAD
#                    with its production dependencies, its own Node.js from npm's `node`
#                    package). Runs as user 10001, data in the volume /data, HEALTHCHECK on
#                    /health, SIGTERM to the server (tini as process 1).
# toxgraph-services  Debian's Virtuoso, Redis and nginx for deploy/compose.yaml: one image, one
#                    program per container (deploy/services/*).
#
# Environment: SUITE (bookworm), MIRROR (http://deb.debian.org/debian), SECURITY_MIRROR,
# OUT (deploy/out), TAG (package.json's version), ONLY (toxgraph or services: build one).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SUITE="${SUITE:-bookworm}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
SECURITY_MIRROR="${SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
OUT="${OUT:-$ROOT/deploy/out}"
TAG="${TAG:-$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$ROOT/package.json")}"
REVISION="$(git -C "$ROOT" rev-parse HEAD)"
ONLY="${ONLY:-}"

for tool in mmdebstrap buildah skopeo npm git; do
  command -v "$tool" >/dev/null || { echo "build-images: $tool is missing (apt-get install mmdebstrap buildah skopeo)" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "build-images: run as root (mmdebstrap and buildah write root-owned files)" >&2; exit 2; }

# Docker's image format from the first step: buildah ignores HEALTHCHECK and STOPSIGNAL in OCI's
export BUILDAH_FORMAT=docker
WORK="$(mktemp -d)"
CONTAINERS=()
cleanup() {
  for c in "${CONTAINERS[@]}"; do buildah rm "$c" >/dev/null 2>&1 || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$OUT"

SOURCES=(
  "deb $MIRROR $SUITE main"
  "deb $MIRROR $SUITE-updates main"
  "deb $SECURITY_MIRROR $SUITE-security main"
)
# No documentation, manual pages or translations in the images.
SLIM=(
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/info/*'
)

# rootfs NAME PACKAGES HOOK...: a Debian minbase root filesystem as a tar, with PACKAGES added
rootfs() {
  local name="$1" packages="$2"
  shift 2
  mmdebstrap --quiet --variant=minbase --include="$packages" "${SLIM[@]}" \
    --customize-hook='chroot "$1" useradd --uid 10001 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin toxgraph' \
    "$@" \
    --customize-hook='rm -rf "$1"/var/log/* "$1"/var/cache/debconf/*-old "$1"/var/lib/dpkg/*-old' \
    "$SUITE" "$WORK/$name.tar" "${SOURCES[@]}"
}

# image NAME ROOTFS CONFIG...: the root filesystem as one layer, configured, committed in
# Docker's format (OCI images have no HEALTHCHECK) and written as an archive `docker load` and
# `podman load` take.
image() {
  local name="$1" tar="$2"
  shift 2
  local c
  c="$(buildah from scratch)"
  CONTAINERS+=("$c")
  buildah add --quiet "$c" "$tar" / >/dev/null
  buildah config "$@" \
    --label org.opencontainers.image.title="$name" \
    --label org.opencontainers.image.version="$TAG" \
    --label org.opencontainers.image.revision="$REVISION" \
    --label org.opencontainers.image.source=https://github.com/toxgraph/toxgraph \
    --label org.opencontainers.image.licenses=Apache-2.0 \
    --created-by "deploy/build-images.sh" "$c"
  buildah commit --quiet --format docker --rm "$c" "localhost/$name:$TAG" >/dev/null
  CONTAINERS=("${CONTAINERS[@]/$c/}")
  rm -f "$OUT/$name-$TAG.tar"
  skopeo copy --quiet "containers-storage:localhost/$name:$TAG" "docker-archive:$OUT/$name-$TAG.tar:localhost/$name:$TAG"
  echo "build-images: $OUT/$name-$TAG.tar ($(du -h "$OUT/$name-$TAG.tar" | cut -f1))"
}

build_toxgraph() {
  # The project as committed (HEAD), with its production dependencies, among them its Node.js
  # (npm's `node` package). onnxruntime's install script would fetch GPU files: skipped, its CPU
  # binaries ship in the package, of which only this machine's platform is kept.
  mkdir -p "$WORK/app"
  git -C "$ROOT" archive --format=tar HEAD bin src ontology shapes static deploy/image package.json package-lock.json README.md \
    | tar -x -C "$WORK/app"
  (cd "$WORK/app" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --omit=dev --no-audit --no-fund --loglevel=error >/dev/null)
  local ort="$WORK/app/node_modules/onnxruntime-node/bin"
  if [ -d "$ort" ]; then
    find "$ort" -mindepth 2 -maxdepth 2 -type d ! -name linux -exec rm -rf {} +
    find "$ort" -mindepth 3 -maxdepth 3 -type d -path '*/linux/*' ! -name "$(uname -m | sed 's/x86_64/x64/;s/aarch64/arm64/')" -exec rm -rf {} +
  fi
  # Node.js's C headers (67 MB) are for building addons, which the image does not do
  rm -rf "$WORK"/app/node_modules/node/node_modules/node-*/include "$WORK"/app/node_modules/node/node_modules/node-*/share
  "$WORK/app/node_modules/.bin/node" --version >/dev/null

  rootfs toxgraph libjemalloc2,libatomic1,tini \
    --customize-hook="copy-in $WORK/app /" \
    --customize-hook='chown -R root:root "$1/app" && mkdir -p "$1/data" && chown 10001:10001 "$1/data"'
  image toxgraph "$WORK/toxgraph.tar" \
    --user 10001:10001 --workingdir /app \
    --env TOXGRAPH_HOST=0.0.0.0 --env TOXGRAPH_DATA_DIR=/data --env PORT=8080 \
    --port 8080 --volume /data --stop-signal SIGTERM \
    --entrypoint '["/usr/bin/tini", "--", "/app/bin/toxgraph-server"]' --cmd '[]' \
    --healthcheck 'CMD /app/node_modules/.bin/node /app/deploy/image/health-check.mjs' \
    --healthcheck-interval 30s --healthcheck-timeout 5s --healthcheck-start-period 60s --healthcheck-retries 3
}

build_services() {
  mkdir -p "$WORK/services"
  git -C "$ROOT" archive --format=tar HEAD deploy/services | tar -x -C "$WORK/services"
  rootfs toxgraph-services tini,virtuoso-opensource-7-bin,redis-server,nginx-light \
    --customize-hook='mkdir -p "$1/usr/local/lib/toxgraph"' \
    --customize-hook="copy-in $WORK/services/deploy/services /usr/local/lib/toxgraph" \
    --customize-hook='chown -R root:root "$1/usr/local/lib/toxgraph" && chmod 755 "$1"/usr/local/lib/toxgraph/services/*.sh && mkdir -p "$1/var/lib/toxgraph" && chown 10001:10001 "$1/var/lib/toxgraph"'
  image toxgraph-services "$WORK/toxgraph-services.tar" \
    --user 10001:10001 --workingdir /var/lib/toxgraph --volume /var/lib/toxgraph \
    --entrypoint '["/usr/bin/tini", "--"]' --cmd '["/usr/local/lib/toxgraph/services/virtuoso.sh"]'
}

case "$ONLY" in
  toxgraph) build_toxgraph ;;
  services) build_services ;;
  '') build_toxgraph; build_services ;;
  *) echo "build-images: ONLY is toxgraph or services" >&2; exit 2 ;;
esac

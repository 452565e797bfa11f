#!/usr/bin/env bash
# What the prebuilt image saves: a Dockerfile action is built from scratch at the start of every job that uses
# it, while `image: docker://ghcr.io/...` is pulled. Measures, with the oci tool (podman):
#   - the build from scratch (no layer cache; the base image is present, as it would be after its own pull);
#   - the pull's parts that can be measured without a registry: the compressed size of the layers the Dockerfile
#     adds (the download besides the base image, which a build downloads too) and loading the image from an
#     archive (unpacking and storing);
#   - the image's size and what the Dockerfile adds on top of its base.
#
#   bash bench/container_build.sh        (OCI_TOOL overrides ../shared/tools/oci; takes a few minutes)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
oci=${OCI_TOOL:-$root/../shared/tools/oci}
tag=localhost/adk-eval-gate:bench
base=docker.io/library/python:3.11-slim
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; "$oci" podman rmi -f "$tag" >/dev/null 2>&1 || true' EXIT

"$oci" build "$scratch" localhost/adk-eval-gate:bench-probe >/dev/null 2>&1 || true # base images, if missing
"$oci" podman rmi -f localhost/adk-eval-gate:bench-probe >/dev/null 2>&1 || true

since() { awk -v start="$1" -v now="$EPOCHREALTIME" 'BEGIN { printf "%.1f", now - start }'; }

start=$EPOCHREALTIME
"$oci" podman build --no-cache --network host --pull=never -q -t "$tag" . >/dev/null
build_s=$(since "$start")
printf 'build from scratch (what every run of a Dockerfile action pays): %.0f s\n' "$build_s"

# what a pull downloads besides the base image's layers (which building the Dockerfile downloads as well)
"$oci" podman save -q --format docker-dir --compress -o "$scratch/image" "$tag"
"$oci" podman save -q --format docker-dir --compress -o "$scratch/base" "$base"
added_download=0
for blob in "$scratch"/image/*; do
  name=${blob##*/}
  [[ $name == manifest.json || $name == version || -e $scratch/base/$name ]] && continue
  added_download=$((added_download + $(stat -c %s "$blob")))
done
compressed_mb=$((added_download / 1000000))

"$oci" podman save -q --format docker-archive -o "$scratch/image.tar" "$tag"
"$oci" podman rmi -f "$tag" >/dev/null
start=$EPOCHREALTIME
"$oci" podman load -q -i "$scratch/image.tar" >/dev/null
load_s=$(since "$start")

image_bytes=$("$oci" size "$tag")
base_bytes=$("$oci" size "$base")
printf 'prebuilt image: %d MB to download on top of the base image (gzip layers)\n' "$compressed_mb"
printf 'loading the whole image (base included) from an archive into podman'"'"'s vfs store: %.1f s\n' "$load_s"
printf 'image %d MB, base stand-in %d MB, added by the Dockerfile %d MB (budget 300 MB)\n' \
  $((image_bytes / 1000000)) $((base_bytes / 1000000)) $(((image_bytes - base_bytes) / 1000000))

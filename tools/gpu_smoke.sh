#!/usr/bin/env bash
# GPU smoke test of the server image's own Python environment, on a CUDA host (H100/H200 class, driver
# for CUDA 13), in one call from the repository root:
#
#   tools/gpu_smoke.sh                      (runs tools/gpu_bench.py --quick --out gpu-smoke.json)
#   tools/gpu_smoke.sh --full               (the prepared GPU measurement, under 8 minutes once the
#                                            environment is installed: gpu_bench.py --max-seconds 420
#                                            --clients 8 --out gpu-bench.json; parity, decode per batch
#                                            bucket, server ramp closed/staggered/Poisson to 4096 streams)
#   tools/gpu_smoke.sh --max-seconds 450 --out gpu-bench.json     (arguments go to gpu_bench.py)
#
# Outputs go to $OUT when it is set (a device session's folder that comes back), else to the repository
# root: the JSON, <stem>-decode.png, <stem>-server.png, <stem>-server.json (every stream) and the log.
#
# Online (pypi.org reachable): a Python 3.12 venv (.venv-gpu-smoke) gets exactly what the image gets:
# model_server/requirements-image.lock installed as the Dockerfile does (wheels only, hashes required,
# --no-deps) and mamba-ssm's Triton kernels from the sdist whose URL and sha256 the Dockerfile's ADD line
# pins (__init__ replaced, as in the image). Offline (GPU_SMOKE_OFFLINE=1, or pypi.org unreachable): the
# host's own torch (CUDA 13) and Triton, plus the wheels and the Triton-only mamba_ssm copy that
# ../shared/gpu/prepare.sh put in .whl/ and .mssm/ (run it where there is network first).
#
# Then tools/gpu_bench.py measures parity (kernels against the torch path), the kernel path taken in the
# benchmark process and in the real server it starts, and decode/server timings; the last lines printed
# summarize parity, kernel path and fallback. Exit code: gpu_bench's (0 ok, 1 parity failed or a torch
# fallback ran, 2 no CUDA); 2 at once when nvidia-smi sees no GPU, before anything is installed.
set -euo pipefail
cd "$(git rev-parse --show-toplevel 2>/dev/null || dirname "$(dirname "$(readlink -f "$0")")")"

DOCKERFILE=model_server/Dockerfile
LOCK=model_server/requirements-image.lock
VENV=${GPU_SMOKE_VENV:-.venv-gpu-smoke}
PYTHON=${PYTHON:-python3.12}
args=("$@")
default_out=gpu-smoke.json
if [ "${1:-}" = "--full" ]; then
  args=(--max-seconds 420 --clients 8 "${args[@]:1}")
  default_out=gpu-bench.json
fi
[ ${#args[@]} -gt 0 ] || args=(--quick)

say() { echo "gpu_smoke: $*" >&2; }

# The mamba-ssm sources the image uses: "<url> <sha256>" from the Dockerfile's ADD line.
mamba_source() {
  awk '/^ADD --checksum=sha256:/ { split($2, c, ":"); sha = c[2]; getline; print $1, sha; exit }' "$DOCKERFILE"
}

if [ "${1:-}" = "--mamba-source" ]; then mamba_source; exit 0; fi

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  say "no CUDA: nvidia-smi sees no GPU; run this on an H100/H200-class CUDA host"
  exit 2
fi

offline=${GPU_SMOKE_OFFLINE:-}
if [ -z "$offline" ] && ! curl -sSf -o /dev/null --max-time 10 https://pypi.org/simple/torch/; then
  say "pypi.org is not reachable: offline mode"
  offline=1
fi

if [ -n "$offline" ]; then
  [ -d .whl ] && [ -d .mssm/mamba_ssm ] || { say "offline needs .whl/ and .mssm/ from ../shared/gpu/prepare.sh"; exit 1; }
  site=$(mktemp -d)
  python3 -m pip install -q --no-index --no-deps --target "$site" .whl/*.whl
  export PYTHONPATH="$site:$PWD/.mssm:$PWD"
  PY=python3
  # mamba_ssm's Triton kernels import einops and packaging besides torch and triton
  "$PY" -c "import torch, triton, einops, packaging" 2>/dev/null \
    || { say "offline needs torch, triton, einops and packaging importable on this host"; exit 1; }
  # the load bench's client (the server section) and the plots
  "$PY" -c "import httpx, tqdm, matplotlib" 2>/dev/null \
    || say "offline: httpx, tqdm or matplotlib missing: the server section fails or the plots are skipped"
  say "offline: the host's torch and Triton, prepare.sh's wheels (not the image lock)"
else
  command -v "$PYTHON" >/dev/null || { say "$PYTHON not found: the image lock is for CPython 3.12"; exit 1; }
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  PY="$VENV/bin/python"
  say "installing $LOCK into $VENV (wheels only, hashes required)"
  "$PY" -m pip install -q --no-deps --only-binary=:all: --require-hashes -r "$LOCK"
  read -r url sha < <(mamba_source)
  tmp=$(mktemp -d)
  curl -sSfL -o "$tmp/mamba_ssm.tar.gz" "$url"
  echo "$sha  $tmp/mamba_ssm.tar.gz" | sha256sum -c --quiet -
  tar -xzf "$tmp/mamba_ssm.tar.gz" -C "$tmp"
  site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  version=$(basename "$url" .tar.gz); version=${version#mamba_ssm-}
  rm -rf "$site/mamba_ssm" && cp -r "$tmp/mamba_ssm-$version/mamba_ssm" "$site/"
  echo "__version__ = \"$version\"  # Triton-only: no compiled selective_scan_cuda" > "$site/mamba_ssm/__init__.py"
  # the load bench's client (the server section) and the plots, at the dev pins (not in the image)
  mapfile -t bench_pins < <(grep -E '^(httpx|tqdm|matplotlib)==' requirements-dev.txt)
  "$PY" -m pip install -q "${bench_pins[@]}"
  rm -rf "$tmp"
  say "torch $("$PY" -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda)'), mamba_ssm $version (Triton-only)"
fi

out=""
for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[$i]}" = "--out" ] && out=${args[$((i + 1))]}; done
[ -n "$out" ] || { out=${OUT:+$OUT/}$default_out; args+=(--out "$out"); }
code=0
"$PY" tools/gpu_bench.py "${args[@]}" > /dev/null || code=$?
[ -f "$out" ] && "$PY" tools/gpu_bench.py --summary "$out"
exit "$code"

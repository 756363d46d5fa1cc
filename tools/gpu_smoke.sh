#!/usr/bin/env bash
# GPU smoke test of the server image's own Python environment, on a CUDA host (H100/H200 class, driver
# for CUDA 13), in one call from the repository root:
#
#   tools/gpu_smoke.sh                      (runs tools/gpu_bench.py --quick --out gpu-smoke.json)
#   tools/gpu_smoke.sh --full               (the prepared GPU measurement, under 8 minutes once the
#                                            environment is installed: gpu_bench.py --max-seconds 420
#                                            --clients 8 --server-chunk-frames 64 --server-engines 1,2
#                                            --out gpu-bench.json; parity, decode per batch bucket, the
#                                            server ramp closed/staggered/Poisson to 4096 streams with
#                                            64-frame chunks, one engine process and then two)
#   tools/gpu_smoke.sh --max-seconds 450 --out gpu-bench.json     (arguments go to gpu_bench.py)
#   tools/gpu_smoke.sh --prepare            (here, with network: the offline run's .whl/ and .mssm/, below)
#
# Outputs go to $OUT when it is set (a device session's folder that comes back), else to the repository
# root: the JSON, <stem>-decode.png, <stem>-server.png, <stem>-server.json (every stream) and the log.
#
# Online (pypi.org reachable): a Python 3.12 venv (.venv-gpu-smoke) gets exactly what the image gets:
# model_server/requirements-image.lock installed as the Dockerfile does (wheels only, hashes required,
# --no-deps) and mamba-ssm's Triton kernels from the sdist whose URL and sha256 the Dockerfile's ADD line
# pins (__init__ replaced, as in the image). Offline (GPU_SMOKE_OFFLINE=1, or pypi.org unreachable): the
# host's own torch (CUDA 13) and Triton, plus the wheels and the Triton-only mamba_ssm copy that
# `tools/gpu_smoke.sh --prepare` put in .whl/ and .mssm/ (both ignored through .git/info/exclude): run it
# where there is network first, then on the device (carry [".whl", ".mssm"]):
# GPU_SMOKE_OFFLINE=1 tools/gpu_smoke.sh --full. Offline, the run stops with exit 1 before the benchmark
# when mamba_ssm's three Triton kernel modules do not import.
#
# Then tools/gpu_bench.py measures parity (kernels against the torch path), the kernel path taken in the
# benchmark process and in the real server it starts, and decode/server timings; the last lines printed
# summarize parity, kernel path and fallback. Exit code: gpu_bench's (0 ok, 1 parity failed or a torch
# fallback ran, 2 no CUDA); 2 at once when nvidia-smi sees no GPU, before anything is installed.
#
#   tools/gpu_smoke.sh --mamba-source                  "<url> <sha256>" of the Dockerfile's mamba-ssm sdist
#   tools/gpu_smoke.sh --mamba-triton-copy DIR [URL SHA256]
#                                  DIR/mamba_ssm from that sdist (or URL, file:// too, checked against
#                                  SHA256), Triton-only; tools/gpu_train.sh --prepare uses it as well
#   tools/gpu_smoke.sh --wheel-pins                    the pins --prepare downloads as wheels
#   tools/gpu_smoke.sh --ignore DIR...                 DIRs into the git exclude file (tools/gpu_train.sh too)
#   tools/gpu_smoke.sh --carry-check DIR...            the size the device tool carries with DIRs; 1 over 64 MiB
set -euo pipefail
here=$PWD
cd "$(git rev-parse --show-toplevel 2>/dev/null || dirname "$(dirname "$(readlink -f "$0")")")"

DOCKERFILE=model_server/Dockerfile
LOCK=model_server/requirements-image.lock
VENV=${GPU_SMOKE_VENV:-.venv-gpu-smoke}
PYTHON=${PYTHON:-python3.12}
WHEELS=.whl
MSSM=.mssm
CARRY_LIMIT=$((64 * 1024 * 1024))
# mamba_ssm's Triton modules the server imports (model_server/ssm/cuda.py)
KERNELS=(layernorm_gated selective_state_update ssd_combined)
KERNEL_IMPORT='from mamba_ssm.ops.triton.layernorm_gated import rmsnorm_fn
from mamba_ssm.ops.triton.selective_state_update import selective_state_update
from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined'
args=("$@")
default_out=gpu-smoke.json
if [ "${1:-}" = "--full" ]; then
  args=(--max-seconds 420 --clients 8 --server-chunk-frames 64 --server-engines 1,2 "${args[@]:1}")
  default_out=gpu-bench.json
fi
[ ${#args[@]} -gt 0 ] || args=(--quick)

say() { echo "gpu_smoke: $*" >&2; }

# The mamba-ssm sources the image uses: "<url> <sha256>" from the Dockerfile's ADD line.
mamba_source() {
  awk '/^ADD --checksum=sha256:/ { split($2, c, ":"); sha = c[2]; getline; print $1, sha; exit }' "$DOCKERFILE"
}

missing_kernels() {  # DIR: the kernel modules DIR/mamba_ssm lacks ("ops/triton/NAME.py ..."; empty: none)
  local k missing=()
  for k in "${KERNELS[@]}"; do [ -f "$1/mamba_ssm/ops/triton/$k.py" ] || missing+=("ops/triton/$k.py"); done
  echo "${missing[*]}"
}

# DIR [URL SHA256]: DIR/mamba_ssm from mamba-ssm's sdist (the Dockerfile's URL and sha256 by default),
# Triton-only as in the image: every module kept, __init__ (the one that imports the compiled Mamba-1
# extension selective_scan_cuda) replaced with the version string. DIR/mamba_ssm is replaced only once the
# download matched its sha256 and the copy has the three kernel modules. The one copy of this logic: the
# online venv, --prepare and tools/gpu_train.sh --prepare all come here.
mamba_triton_copy() {
  local dest=$1 url=${2:-} sha=${3:-} tmp version missing
  [ -n "$url" ] || read -r url sha < <(mamba_source)
  if [ -z "$url" ] || ! [[ $sha =~ ^[0-9a-f]{64}$ ]]; then
    say "no mamba-ssm sdist URL and sha256 (the ADD line of $DOCKERFILE, or URL SHA256)"
    exit 1
  fi
  version=$(basename "$url" .tar.gz); version=${version#mamba_ssm-}
  tmp=$(mktemp -d)
  if ! curl -sSfL -o "$tmp/mamba_ssm.tar.gz" "$url"; then
    rm -rf "$tmp"; say "could not download mamba-ssm's sources from $url"; exit 1
  fi
  if ! echo "$sha  $tmp/mamba_ssm.tar.gz" | sha256sum -c --quiet - >/dev/null 2>&1; then
    say "sha256 mismatch for $url: got $(sha256sum "$tmp/mamba_ssm.tar.gz" | cut -d' ' -f1), pinned $sha; refused"
    rm -rf "$tmp"; exit 1
  fi
  tar -xzf "$tmp/mamba_ssm.tar.gz" -C "$tmp"
  if [ ! -d "$tmp/mamba_ssm-$version/mamba_ssm" ]; then
    rm -rf "$tmp"; say "$url has no mamba_ssm-$version/mamba_ssm/"; exit 1
  fi
  missing=$(missing_kernels "$tmp/mamba_ssm-$version")
  if [ -n "$missing" ]; then
    rm -rf "$tmp"; say "$url lacks mamba_ssm's kernel modules: $missing"; exit 1
  fi
  echo "__version__ = \"$version\"  # Triton-only: no compiled selective_scan_cuda" \
    > "$tmp/mamba_ssm-$version/mamba_ssm/__init__.py"
  mkdir -p "$dest"
  rm -rf "$dest/mamba_ssm" && cp -r "$tmp/mamba_ssm-$version/mamba_ssm" "$dest/"
  rm -rf "$tmp"
  say "mamba_ssm $version (Triton-only, sha256 checked) in $dest/mamba_ssm: $(du -sh "$dest/mamba_ssm" | cut -f1)"
}

# The server's runtime pins, downloaded as wheels by --prepare: requirements.txt less what the host has
# (torch, numpy) and the CDK app's (aws-cdk-lib, constructs, cdk-nag, boto3), extras stripped (uvicorn's
# [standard] set is left out but for httptools, pinned by the image lock: the host has uvloop). pyzmq is one of
# them (the server's worker transport).
wheel_pins() {
  local pins
  pins=$(sed -e 's/[[:space:]]*#.*//' -e 's/[[:space:]]*$//' requirements.txt | grep -v '^$' \
    | grep -vE '^(torch|numpy|aws-cdk-lib|constructs|cdk-nag|boto3)(\[[^]]*\])?==' | sed 's/\[[^]]*\]//')
  if grep -vE '^[A-Za-z0-9._-]+==[^=[:space:]]+$' <<< "$pins" >&2; then
    say "requirements.txt: the lines above are not NAME==VERSION pins"; exit 1
  fi
  grep -qE '^pyzmq==' <<< "$pins" || { say "requirements.txt has no pyzmq pin"; exit 1; }
  # uvicorn[standard]'s compiled HTTP parser, at the image lock's pin: the offline server then parses
  # HTTP as the image does (without it uvicorn falls back to h11); the host has the extra's uvloop
  local httptools
  httptools=$(grep -oE '^httptools==[^[:space:]\\]+' "$LOCK") || { say "$LOCK has no httptools pin"; exit 1; }
  printf '%s\n%s\n' "$pins" "$httptools"
}

# DIR...: ignored through the git exclude file (also right in a worktree, where .git is a file), so that the
# device tool carries them only when named in `carry`
ignore_folders() {
  local exclude p
  exclude=$(git rev-parse --git-path info/exclude)
  mkdir -p "$(dirname "$exclude")"
  for p in "$@"; do grep -qxF "/$p/" "$exclude" 2>/dev/null || echo "/$p/" >> "$exclude"; done
}

# DIR...: what the device tool sends with these folders carried (tracked and untracked-not-ignored files,
# plus the folders), printed; exit 1 over the 64 MiB it carries
carry_check() {
  local tracked travel parts=() d size
  tracked=$( (git ls-files -z; git ls-files -z --others --exclude-standard) | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
  travel=$tracked
  for d in "$@"; do
    size=$(du -sb "$d" | cut -f1)
    travel=$((travel + size))
    parts+=("$d $((size / 1048576)) MiB")
  done
  say "travels: repository $((tracked / 1048576)) MiB + $(IFS=+; echo "${parts[*]}" | sed 's/+/ + /g') = $((travel / 1048576)) MiB (limit 64 MiB)"
  if [ "$travel" -gt "$CARRY_LIMIT" ]; then
    say "over the 64 MiB the device tool carries"
    exit 1
  fi
}

# Here, with network: the offline run's .whl/ (the server's wheels for CPython 3.12 manylinux x86_64, with
# their dependencies, less torch, numpy, nvidia-* and triton, which the host has) and .mssm/ (mamba_ssm's
# Triton-only sources); prints the size that travels to the device and fails over 64 MiB.
prepare() {
  local pip pin_lines pins tmp missing p bad
  ignore_folders "$WHEELS" "$MSSM"
  pip=python3
  [ -x .venv/bin/python ] && pip=.venv/bin/python
  pin_lines=$(wheel_pins)
  mapfile -t pins <<< "$pin_lines"
  local plat=(--only-binary=:all: --python-version 3.12 --implementation cp
              --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64
              --platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform manylinux_2_5_x86_64)
  tmp=$(mktemp -d)
  # docopt (num2words needs it; 0.6.2 is its only release) is published as sources only: its wheel first,
  # where the download below finds it
  if ! "$pip" -m pip wheel -q --no-deps -w "$tmp" "docopt==0.6.2"; then
    rm -rf "$tmp"; say "could not build a wheel for docopt==0.6.2"; exit 1
  fi
  say "downloading ${#pins[@]} pins with their dependencies (cp312 manylinux x86_64 wheels): ${pins[*]}"
  if ! "$pip" -m pip download -q -d "$tmp" --find-links "$tmp" "${plat[@]}" "${pins[@]}"; then
    bad=()
    for p in "${pins[@]}"; do
      "$pip" -m pip download -q --no-deps -d "$tmp/probe" "${plat[@]}" "$p" >/dev/null 2>&1 || bad+=("$p")
    done
    rm -rf "$tmp"
    say "could not download ${bad[*]:-a dependency of ${pins[*]}} as cp312 manylinux x86_64 wheels (pip's error above)"
    exit 1
  fi
  # the host's torch, numpy and Triton serve the run: drop any copy pulled in as a dependency
  rm -f "$tmp"/torch-* "$tmp"/numpy-* "$tmp"/nvidia_* "$tmp"/triton-*
  rm -rf "$WHEELS" && mkdir -p "$WHEELS" && mv "$tmp"/*.whl "$WHEELS"/ && rm -rf "$tmp"
  mamba_triton_copy "$MSSM"
  missing=$(missing_kernels "$MSSM")
  [ -z "$missing" ] || { say "$MSSM/mamba_ssm lacks $missing"; exit 1; }
  ls -l "$WHEELS"
  carry_check "$WHEELS" "$MSSM"
  say "run on the device (carry [\"$WHEELS\", \"$MSSM\"]): GPU_SMOKE_OFFLINE=1 tools/gpu_smoke.sh --full"
}

case "${1:-}" in
  --mamba-source) mamba_source; exit 0 ;;
  --mamba-triton-copy)
    [ -n "${2:-}" ] || { say "usage: tools/gpu_smoke.sh --mamba-triton-copy DIR [URL SHA256]"; exit 1; }
    case $2 in /*) dest=$2 ;; *) dest=$here/$2 ;; esac
    mamba_triton_copy "$dest" "${3:-}" "${4:-}"; exit 0 ;;
  --wheel-pins) wheel_pins; exit 0 ;;
  --ignore) shift; ignore_folders "$@"; exit 0 ;;
  --carry-check) shift; carry_check "$@"; exit 0 ;;
  --prepare) prepare; exit 0 ;;
esac

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
  fix="run tools/gpu_smoke.sh --prepare where there is network, then carry [\"$WHEELS\", \"$MSSM\"]"
  if [ -z "$(ls "$WHEELS"/*.whl 2>/dev/null)" ] || [ ! -d "$MSSM/mamba_ssm" ]; then
    say "offline needs $WHEELS/ (wheels) and $MSSM/mamba_ssm from tools/gpu_smoke.sh --prepare: $fix"
    exit 1
  fi
  missing=$(missing_kernels "$MSSM")
  if [ -n "$missing" ]; then
    say "$MSSM/mamba_ssm lacks mamba_ssm's Triton kernel modules $missing (a broken prepare): $fix"
    exit 1
  fi
  site=$(mktemp -d)
  python3 -m pip install -q --no-index --no-deps --target "$site" "$WHEELS"/*.whl
  export PYTHONPATH="$site:$PWD/$MSSM:$PWD"
  PY=python3
  # mamba_ssm's Triton kernels import einops and packaging besides torch and triton
  "$PY" -c "import torch, triton, einops, packaging" 2>/dev/null \
    || { say "offline needs torch, triton, einops and packaging importable on this host"; exit 1; }
  # the kernels the server calls, imported as the server imports them: stop here, not minutes into the
  # benchmark, when they do not
  if ! err=$("$PY" -c "$KERNEL_IMPORT" 2>&1); then
    echo "$err" | tail -n 8 >&2
    say "mamba_ssm's Triton kernels (${KERNELS[*]}) do not import from $MSSM (PYTHONPATH=$PYTHONPATH): $fix"
    exit 1
  fi
  # the load bench's client (the server section) and the plots
  "$PY" -c "import httpx, tqdm, matplotlib" 2>/dev/null \
    || say "offline: httpx, tqdm or matplotlib missing: the server section fails or the plots are skipped"
  say "offline: the host's torch and Triton, the wheels of $WHEELS/ (not the image lock), mamba_ssm" \
    "$("$PY" -c 'import mamba_ssm; print(mamba_ssm.__version__)') from $MSSM (Triton kernels import)"
else
  command -v "$PYTHON" >/dev/null || { say "$PYTHON not found: the image lock is for CPython 3.12"; exit 1; }
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  PY="$VENV/bin/python"
  say "installing $LOCK into $VENV (wheels only, hashes required)"
  "$PY" -m pip install -q --no-deps --only-binary=:all: --require-hashes -r "$LOCK"
  site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  mamba_triton_copy "$site"
  # the load bench's client (the server section) and the plots, at the dev pins (not in the image)
  mapfile -t bench_pins < <(grep -E '^(httpx|tqdm|matplotlib)==' requirements-dev.txt)
  "$PY" -m pip install -q "${bench_pins[@]}"
  say "torch $("$PY" -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda)')"
fi

out=""
for ((i = 0; i < ${#args[@]}; i++)); do [ "${args[$i]}" = "--out" ] && out=${args[$((i + 1))]}; done
[ -n "$out" ] || { out=${OUT:+$OUT/}$default_out; args+=(--out "$out"); }
code=0
"$PY" tools/gpu_bench.py "${args[@]}" > /dev/null || code=$?
[ -f "$out" ] && "$PY" tools/gpu_bench.py --summary "$out"
exit "$code"

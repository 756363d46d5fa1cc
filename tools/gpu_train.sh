#!/usr/bin/env bash
# The prepared GPU training run (docs/model.md, "Training on a GPU"): render hibari's heart voice on every
# core, fine-tune the shipped model on CUDA with mamba-ssm's Triton kernels and bf16, bring back the weights
# (under 16 MiB a file) with train.log and gpu-train.json (each step's seconds, steps, frames/s, val loss
# before and after, kernel path, one-stream speed on CUDA and CPU). Sized to end within 8 minutes on an H200
# (not run on one yet: docs/model.md says what a run is judged by).
#
#   tools/gpu_train.sh --prepare     here, with network: the wheels the run needs into .whl-train/ and
#                                    mamba-ssm's Triton-only sources into .mssm/ (both ignored through
#                                    .git/info/exclude); prints the size that travels, fails over 64 MiB
#   tools/gpu_train.sh [ARGS]        on the CUDA host, offline, from the repository root (carry .whl-train
#                                    and .mssm); outputs to $OUT, else ./gpu-train; ARGS go to
#                                    tools/gpu_train.py (--minutes M, --hours-scale H, --budget-seconds S)
#   GPU_TRAIN_DEVICE=cpu tools/gpu_train.sh --minutes 0.1 --hours-scale 0.016 --batch 8 --crop 96 \
#       --speed-sentences 1          the same steps on this CPU (a rehearsal; tests/test_gpu_train.py)
#
#   tools/gpu_train.sh --wheels      the distributions the run carries as wheels, one a line
#
# The host gives Python 3.12 with torch (CUDA 13), Triton, numpy, onnx, onnxruntime, safetensors, tqdm,
# einops and packaging (tools/device-host-packages.txt, from the device's KINDS.md); the wheels add what
# rendering needs beyond them (babel: the normalizer's weekday and month names, English included). The
# host's onnx 1.23.1 and onnxruntime 1.30.0 stand in for the pins (1.23.2, 1.32.0): their wheels (37 MB)
# would take the carry over 64 MiB. Janome is left out: only Japanese text needs it.
# Exit code: gpu_train.py's (0 ok, 1 a step failed, 2 no CUDA); 2 at once when nvidia-smi sees no GPU.
set -euo pipefail
cd "$(git rev-parse --show-toplevel 2>/dev/null || dirname "$(dirname "$(readlink -f "$0")")")"

WHEELS=.whl-train
MSSM=.mssm
# imported by the data build, the training and the runtime, beyond the host's packages ...
NEEDED=(hibari espeakng_loader pyworld soxr num2words docopt babel)
# ... and the distributions that carry them: wheels from PyPI, and two published only as sources
BINARY=(hibari-tts espeakng-loader soxr num2words babel)
SOURCE=(pyworld docopt)
HOST=(torch numpy onnx onnxruntime safetensors tqdm)

say() { echo "gpu_train: $*" >&2; }

pin() {  # NAME -> NAME==VERSION from the requirements files (the one source of the versions)
  local line
  line=$(grep -hiE "^$1(\[[^]]*\])?==" requirements.txt requirements-dev.txt | head -1 | sed 's/\[.*\]//')
  [ -n "$line" ] || { say "no pin for $1 in requirements*.txt"; exit 1; }
  echo "$line"
}

python312() {  # a CPython 3.12 here, to build the wheels PyPI has only as sources (pyworld 0.3.5)
  local c
  for c in "${PYTHON312:-}" python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
    [ -n "$c" ] && "$c" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null && { echo "$c"; return; }
  done
  say "--prepare needs a CPython 3.12 (PYTHON312=/path/to/python3.12) to build pyworld's wheel"
  exit 1
}

prepare() {
  local py312
  tools/gpu_smoke.sh --ignore "$WHEELS" "$MSSM"
  rm -rf "$WHEELS" && mkdir -p "$WHEELS"
  local plat=(--only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux_2_28_x86_64
              --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
  local pip=python3
  [ -x .venv/bin/python ] && pip=.venv/bin/python
  for p in "${BINARY[@]}"; do
    "$pip" -m pip download -q --no-deps -d "$WHEELS" "${plat[@]}" "$(pin "$p")"
  done
  py312=$(python312)
  # pyworld 0.3.5 and docopt (num2words needs it; 0.6.2 is its only release) are published as sources
  # only: built here for cp312 (pyworld against this machine's glibc, older than the host's)
  "$py312" -m pip wheel -q --no-deps -w "$WHEELS" "$(pin pyworld)" "docopt==0.6.2"
  # the sources the server image uses (the Dockerfile's pinned URL and sha256), Triton-only (__init__
  # replaced, no compiled extension needed), checked for the three kernel modules: gpu_smoke.sh's copy step,
  # the one the offline smoke run's .mssm comes from too
  tools/gpu_smoke.sh --mamba-triton-copy "$MSSM"
  ls -l "$WHEELS"
  tools/gpu_smoke.sh --carry-check "$WHEELS" "$MSSM"
  say "run on the device (carry [\"$WHEELS\", \"$MSSM\"]): tools/gpu_train.sh"
}

if [ "${1:-}" = "--prepare" ]; then prepare; exit 0; fi
if [ "${1:-}" = "--wheels" ]; then printf '%s\n' "${BINARY[@]}" "${SOURCE[@]}"; exit 0; fi

DEVICE=${GPU_TRAIN_DEVICE:-cuda}
PY=${GPU_TRAIN_PYTHON:-python3}
if [ "$DEVICE" = cuda ] && ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }; then
  say "no CUDA: nvidia-smi sees no GPU (GPU_TRAIN_DEVICE=cpu rehearses the run on this CPU)"
  exit 2
fi
importable() { "$PY" -c "import importlib.util as u, sys; sys.exit(any(u.find_spec(m) is None for m in sys.argv[1:]))" "$@"; }
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
[ -d "$MSSM/mamba_ssm" ] && export PYTHONPATH="$PWD/$MSSM:$PYTHONPATH"
start=$SECONDS
if ! importable "${NEEDED[@]}"; then
  [ -n "$(ls "$WHEELS"/*.whl 2>/dev/null)" ] || { say "missing modules and no $WHEELS/: run tools/gpu_train.sh --prepare where there is network"; exit 1; }
  site=$(mktemp -d)
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" "$WHEELS"/*.whl
  export PYTHONPATH="$site:$PYTHONPATH"
  say "installed $(ls "$WHEELS"/*.whl | wc -l) wheels from $WHEELS"
fi
export GPU_TRAIN_INSTALL_S=$((SECONDS - start))  # recorded in gpu-train.json
importable "${HOST[@]}" || { say "this host lacks one of ${HOST[*]} (the run uses the host's)"; exit 1; }
if [ "$DEVICE" = cuda ]; then
  importable mamba_ssm einops || say "mamba_ssm (carry $MSSM) or einops missing: training falls back to the torch path"
fi
exec "$PY" tools/gpu_train.py --device "$DEVICE" "$@"

"""The server image's Python lock resolves for the image's platform, without Docker.

pip resolves model_server/requirements-image.lock exactly as the Dockerfile installs it (wheels only,
hashes required, no dependency resolution beyond the lock) but for linux/x86_64 and CPython 3.12, the
image's platform, with `--dry-run --report`. PyPI serves each wheel's metadata on its own (PEP 658), so
pip reads metadata, not the gigabytes of CUDA wheels. From the report:

- every package is a wheel (nothing would be built from source; a failure names the package);
- torch's CUDA major version equals the base image's, parsed from the Dockerfile's FROM line;
- the lock is complete: every dependency of every locked package (markers evaluated for the image) is
  locked too, except those model_server/requirements-image.exclude names with its reason.

Needs network access to pypi.org (CI has it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.request import Request, urlopen

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "model_server"
LOCK = SERVER / "requirements-image.lock"
LOCK_INPUT = SERVER / "requirements-image.in"
LOCK_EXCLUDES = SERVER / "requirements-image.exclude"
DOCKERFILE = (SERVER / "Dockerfile").read_text()
INDEX = "https://pypi.org/simple"
PYTHON = "3.12"
# The lock targets manylinux_2_28 (the uv target of `make image-lock`): pip does not widen an explicit
# --platform to the older glibc tags a wheel may carry instead, so list them all.
PLATFORMS = [f"manylinux_2_{minor}_x86_64" for minor in range(28, 4, -1)] + [
    "manylinux2014_x86_64",
    "manylinux2010_x86_64",
    "manylinux1_x86_64",
]
# The image: Ubuntu 24.04, CPython 3.12 on x86_64.
IMAGE_MARKERS = default_environment() | {
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "python_version": PYTHON,
    "python_full_version": f"{PYTHON}.3",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "os_name": "posix",
}


def names(path: Path) -> set[str]:
    lines = [line.split("#")[0].strip() for line in path.read_text().splitlines()]
    return {canonicalize_name(Requirement(line).name) for line in lines if line}


def lock_pins() -> dict[str, str]:
    return {
        canonicalize_name(m[0]): m[1]
        for m in re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)", LOCK.read_text(), re.M)
    }


def base_image_cuda_major() -> int:
    bases = re.findall(r"^FROM\s+(\S+)", DOCKERFILE, re.M)
    assert len(bases) == 1, f"expected one FROM line, got {bases}"
    m = re.fullmatch(r"nvidia/cuda:(\d+)\.\d+\.\d+-[a-z-]+-ubuntu24\.04@sha256:[0-9a-f]{64}", bases[0])
    assert m, f"base image {bases[0]!r} is not an nvidia/cuda ubuntu24.04 tag pinned by digest"
    return int(m[1])


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict[str, dict]:
    """pip's installation report of the lock for the image's platform: {canonical name: report item}."""
    tmp = tmp_path_factory.mktemp("image-lock")
    out = tmp / "report.json"
    cmd = [
        sys.executable, "-m", "pip", "install", "--isolated", "--dry-run", "--quiet", "--report", str(out),
        "--index-url", INDEX, "--no-deps", "--only-binary=:all:", "--require-hashes",
        "--python-version", PYTHON, "--implementation", "cp", "--abi", "cp312",
        *[arg for p in PLATFORMS for arg in ("--platform", p)],
        "--target", str(tmp / "target"), "-r", str(LOCK),
    ]  # fmt: skip
    # --isolated ignores the user's pip configuration (extra indexes, find-links, constraints) and
    # PIP_CONFIG_FILE the global one: the resolution must use pypi.org alone, like the image build.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")} | {"PIP_CONFIG_FILE": os.devnull}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, f"the image lock does not resolve for linux/x86_64:\n{proc.stderr[-4000:]}"
    items = json.loads(out.read_text())["install"]
    return {canonicalize_name(item["metadata"]["name"]): item for item in items}


def test_every_locked_package_resolves_to_a_wheel(report):
    assert set(report) == set(lock_pins()), "pip's resolution and the lock name different packages"
    for name, item in report.items():
        filename = item["download_info"]["url"].rsplit("/", 1)[-1]
        assert filename.endswith(".whl"), f"{name} would be built from source ({filename})"
        assert item["download_info"]["archive_info"]["hashes"]["sha256"], f"{name} has no hash"
        assert item["metadata"]["version"] == lock_pins()[name]


def torch_cuda_majors(torch: dict) -> set[int]:
    """CUDA major versions torch's wheel is built for: its local version (2.x+cu130) or the CUDA
    packages it requires on Linux (cuda-toolkit==13.0.3, nvidia-*-cu13)."""
    majors = set()
    local = re.search(r"\+cu(\d+?)(\d)$", torch["metadata"]["version"])
    if local:
        majors.add(int(local[1]))
    for line in torch["metadata"].get("requires_dist", []):
        req = Requirement(line)
        if req.marker is not None and not req.marker.evaluate(IMAGE_MARKERS | {"extra": ""}):
            continue
        if canonicalize_name(req.name) == "cuda-toolkit":
            majors |= {int(s.version.split(".")[0]) for s in req.specifier if s.operator == "=="}
        suffix = re.fullmatch(r"nvidia-[a-z0-9-]+-cu(\d+)", canonicalize_name(req.name))
        if suffix:
            majors.add(int(suffix[1]))
    return majors


def test_torch_cuda_major_matches_the_base_image(report):
    torch = report["torch"]
    majors = torch_cuda_majors(torch)
    assert majors, f"torch {torch['metadata']['version']} names no CUDA build: a CPU-only wheel in the image"
    base = base_image_cuda_major()
    assert majors == {base}, (
        f"torch {torch['metadata']['version']} is built for CUDA {majors}, base image {base}"
    )
    assert "triton" in report  # the kernels' compiler comes with torch's Linux wheel


def test_torch_cuda_major_parsing():
    def item(version, *requires):
        return {"metadata": {"version": version, "requires_dist": list(requires)}}

    assert torch_cuda_majors(item("2.13.0+cu130")) == {13}
    linux = '; platform_system == "Linux"'
    assert torch_cuda_majors(item("2.13.0", "cuda-toolkit[cudart]==13.0.3" + linux)) == {13}
    assert torch_cuda_majors(item("2.8.0", "nvidia-cudnn-cu12==9.10.2.21" + linux, "filelock")) == {12}
    assert torch_cuda_majors(item("2.13.0+cpu", "filelock")) == set()
    assert torch_cuda_majors(item("2.13.0", 'nvidia-nccl-cu12==2; platform_system == "Windows"')) == set()


def test_the_lock_holds_every_dependency_of_what_it_locks(report):
    """The Dockerfile installs with --no-deps: a dependency missing from the lock would be missing at run
    time. Walk the requirements from the lock's inputs, with the extras each asks for."""
    excluded = names(LOCK_EXCLUDES)
    inputs = [
        Requirement(line.split("#")[0])
        for line in LOCK_INPUT.read_text().splitlines()
        if line.split("#")[0].strip()
    ]
    todo = [(canonicalize_name(r.name), frozenset(r.extras)) for r in inputs]
    seen = set()
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        assert name in report, f"{name} is required but not in the lock"
        for line in report[name]["metadata"].get("requires_dist", []):
            req = Requirement(line)
            wanted = req.marker is None or any(
                req.marker.evaluate(IMAGE_MARKERS | {"extra": e}) for e in {"", *extras}
            )
            dep = canonicalize_name(req.name)
            if not wanted or dep in excluded:
                continue
            assert dep in report, f"{name} requires {req}, which the image lock does not hold"
            version = report[dep]["metadata"]["version"]
            assert req.specifier.contains(version, prereleases=True), (
                f"{name} needs {req}, lock has {version}"
            )
            todo.append((dep, frozenset(req.extras)))


def test_server_pins_match_requirements_txt():
    """The image and the CPU development venv run the same versions of what they share."""

    def pins(text):
        return {
            canonicalize_name(m[0]): m[1]
            for m in re.findall(r"^([A-Za-z0-9_.\-]+)(?:\[[a-z,]+\])?==(\S+)", text, re.M)
        }

    image = pins(LOCK_INPUT.read_text())
    dev = pins((REPO / "requirements.txt").read_text())
    shared = set(image) & set(dev)
    assert {"torch", "numpy", "fastapi", "uvicorn", "websockets", "soxr", "safetensors"} <= shared
    assert {n: image[n] for n in shared} == {n: dev[n] for n in shared}
    assert {n: lock_pins()[n] for n in image} == image  # the lock holds what its input pins


def test_dockerfile_installs_the_lock_wheels_only_with_hashes():
    instructions = re.sub(r"\\\n\s*", " ", DOCKERFILE)  # one line per instruction
    install = re.search(r"^RUN .*pip install (.*)$", instructions, re.M)
    assert install, "the Dockerfile installs no Python packages"
    args = install[1].split()
    for flag in ("--require-hashes", "--only-binary=:all:", "--no-deps", "/tmp/requirements-image.lock"):
        assert flag in args
    # the lock is bound into that step (no layer keeps it), beside a pip cache mount outside the image
    assert (
        "--mount=type=bind,source=model_server/requirements-image.lock,target=/tmp/requirements-image.lock"
        in (install[0])
    )
    assert len(re.findall(r"pip install", DOCKERFILE)) == 1


def test_mamba_ssm_sources_are_the_published_sdist():
    """The Triton kernels come from mamba-ssm's PyPI sdist: the ADD line's URL and sha256 are PyPI's."""
    add = re.search(r"^ADD --checksum=sha256:([0-9a-f]{64}) \\\n\s+(\S+) \\", DOCKERFILE, re.M)
    assert add, "the Dockerfile does not ADD the mamba-ssm sources with a checksum"
    digest, url = add[1], add[2]
    version = re.fullmatch(r".*/mamba_ssm-(.+)\.tar\.gz", url)[1]
    assert f'__version__ = "{version}"' in DOCKERFILE and f"/tmp/mamba_ssm-{version}/mamba_ssm" in DOCKERFILE
    req = Request(f"{INDEX}/mamba-ssm/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urlopen(req, timeout=60) as resp:
        files = {f["url"]: f["hashes"]["sha256"] for f in json.load(resp)["files"]}
    assert files.get(url) == digest, f"{url} with sha256 {digest} is not mamba-ssm's published sdist"


@pytest.mark.slow
@pytest.mark.skipif(
    not (REPO / ".venv" / "bin" / "uv").exists(), reason="needs the dev venv's uv (make venv)"
)
def test_make_image_lock_reproduces_the_committed_lock(tmp_path):
    """The lock is what `make image-lock` makes from its input today (candidates limited by date)."""
    out = tmp_path / "requirements-image.lock"
    proc = subprocess.run(
        [shutil.which("make") or "make", "-o", ".venv/.installed", "image-lock", f"IMAGE_LOCK_OUT={out}"],
        cwd=REPO, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert out.read_text() == LOCK.read_text(), "requirements-image.lock is stale: run `make image-lock`"

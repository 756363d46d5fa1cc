"""The CUDA image's Dockerfile (no Docker engine here): the parts the deployment relies on."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = (REPO / "model_server" / "Dockerfile").read_text()


def pins(text: str) -> dict[str, str]:
    return {
        m[0].lower(): m[1] for m in re.findall(r"([A-Za-z0-9_.\-]+)(?:\[[a-z,]+\])?==([0-9][^\s\"\\]*)", text)
    }


def test_cuda_base_images_pinned():
    bases = re.findall(r"^FROM\s+(\S+)", DOCKERFILE, re.M)
    assert len(bases) == 2 and all(b.startswith("nvidia/cuda:") for b in bases)
    assert re.search(r"^ARG CUDA_VERSION=\d+\.\d+\.\d+$", DOCKERFILE, re.M)
    assert "devel" in bases[0] and "runtime" in bases[1]  # kernels compiled in devel, shipped on runtime


def test_torch_and_mamba_kernels_pinned_and_match_requirements():
    docker = pins(DOCKERFILE)
    for package in ("torch", "mamba-ssm", "causal-conv1d"):
        assert package in docker, f"{package} is not pinned in the Dockerfile"
    required = pins((REPO / "requirements.txt").read_text())
    for package, version in docker.items():
        if package in required:
            assert version == required[package], f"{package}: Dockerfile {version} != requirements.txt"
    missing = {"fastapi", "uvicorn", "websockets", "prometheus-client", "soxr", "safetensors"} - set(docker)
    assert not missing


def test_entrypoint_accepts_serve_port_healthcheck_and_weights():
    assert re.search(r'^ENTRYPOINT \["python3", "-m", "model_server"\]$', DOCKERFILE, re.M)
    assert re.search(r'^CMD \["serve"\]$', DOCKERFILE, re.M)  # `docker run IMAGE serve` gives the same
    assert re.search(r"^EXPOSE 8080$", DOCKERFILE, re.M)
    assert re.search(r"^HEALTHCHECK .*\n?.*/health", DOCKERFILE, re.M)
    assert "COPY model_server/ ./model_server/" in DOCKERFILE  # bundled weights live in the package
    assert not re.search(r"^ENV[^\n]*MODEL_DIR=", DOCKERFILE, re.M)  # so MODEL_DIR stays an override
    assert re.search(r"^USER (?!root)\S+", DOCKERFILE, re.M)


def test_port_matches_contract():
    from model_server.contract import SERVER_PORT

    assert f"EXPOSE {SERVER_PORT}" in DOCKERFILE and f":{SERVER_PORT}/health" in DOCKERFILE

"""The CUDA image's Dockerfile (no Docker engine here): the parts the deployment relies on."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = (REPO / "model_server" / "Dockerfile").read_text()


def test_one_cuda_base_image_pinned_by_digest():
    # Versions and the CUDA match are proven by resolving the lock (test_image_lock.py); here: the digest.
    bases = re.findall(r"^FROM\s+(\S+)", DOCKERFILE, re.M)
    assert len(bases) == 1 and re.fullmatch(
        r"nvidia/cuda:\d+\.\d+\.\d+-base-ubuntu24\.04@sha256:[0-9a-f]{64}", bases[0]
    )
    assert "imagetools inspect" in DOCKERFILE  # how to refresh the digest is written down


def test_runtime_can_compile_triton_launchers_as_a_writable_non_root_user():
    apt = re.search(r"apt-get install -y --no-install-recommends ([^\n&]+)", DOCKERFILE)[1].split()
    assert {"gcc", "libc6-dev", "python3-dev", "python3"} <= set(apt)  # Triton's launcher: cc + Python.h
    assert "nvcc" not in DOCKERFILE and "build-essential" not in DOCKERFILE and "MAX_JOBS" not in DOCKERFILE
    from model_server.contract import IMAGE_USER

    # root by default (SageMaker's contract); the ECS task runs it as the non-root user made here
    assert not re.search(r"^USER ", DOCKERFILE, re.M)
    uid = IMAGE_USER.split(":")[0]
    made = re.search(rf"useradd .*--uid {uid} --create-home --home-dir /home/(\S+) (\S+)", DOCKERFILE)
    assert made and made[1] == made[2]
    user = made[1]
    cache = re.search(r"TRITON_CACHE_DIR=(\S+)", DOCKERFILE)[1]
    assert cache.startswith(f"/home/{user}/") and f"-o {user} -g {user} {cache}" in DOCKERFILE
    assert re.search(rf"HOME=/home/{user}\b", DOCKERFILE)


def test_entrypoint_accepts_serve_port_healthcheck_and_weights():
    assert re.search(r'^ENTRYPOINT \["python3", "-m", "model_server"\]$', DOCKERFILE, re.M)
    assert re.search(r'^CMD \["serve"\]$', DOCKERFILE, re.M)  # `docker run IMAGE serve` gives the same
    assert re.search(r"^EXPOSE 8080$", DOCKERFILE, re.M)
    assert re.search(r"^HEALTHCHECK .*\n?.*/health", DOCKERFILE, re.M)
    assert "COPY model_server/ ./model_server/" in DOCKERFILE  # bundled weights live in the package
    assert not re.search(r"^ENV[^\n]*MODEL_DIR=", DOCKERFILE, re.M)  # so MODEL_DIR stays an override


def test_port_matches_contract():
    from model_server.contract import SERVER_PORT

    assert f"EXPOSE {SERVER_PORT}" in DOCKERFILE and f":{SERVER_PORT}/health" in DOCKERFILE

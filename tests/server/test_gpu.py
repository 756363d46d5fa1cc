"""The server on CUDA (mamba-ssm kernels, CUDA graphs): skipped without a GPU."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import torch

from model_server.config import ServerConfig
from model_server.contract import ENV_MAX_STREAMS, ENV_MODEL_DIR

from ._server import InThreadServer

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA"),
]

TEXTS = [f"Stream number {i} speaks on the graphics card." for i in range(8)]


def req(text: str) -> dict:
    return {"transcript": text, "voice": {"mode": "id", "id": "en_female_a"},
            "output_format": {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 16000}}  # fmt: skip


def test_cuda_server_matches_cpu_lengths_under_concurrency(server, model_dir):
    env = {ENV_MODEL_DIR: str(model_dir), ENV_MAX_STREAMS: "8", "STATESPEAK_DEVICE": "cuda"}
    gpu = InThreadServer(ServerConfig.from_env(env)).start()
    try:
        gpu.wait_ready(timeout=300)

        async def run(base_url):
            async with httpx.AsyncClient(base_url=base_url, timeout=120) as client:
                rs = await asyncio.gather(*(client.post("/tts/bytes", json=req(t)) for t in TEXTS))
            assert all(r.status_code == 200 for r in rs)
            return [len(r.content) for r in rs]

        on_gpu = asyncio.run(run(gpu.base_url))
        on_cpu = asyncio.run(run(server.base_url))
    finally:
        gpu.stop()
    # durations come from the same planner: the same frames, so the same lengths on either device
    assert on_gpu == on_cpu and min(on_gpu) > 0

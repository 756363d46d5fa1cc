"""The SageMaker route for the bench: streams through the switching client (`model_server.client`).

InvokeEndpointWithResponseStream carries only the audio bytes (SageMaker strips custom headers and
the /invocations body is raw PCM), so there is no server-reported TTFA on this route.
"""

from __future__ import annotations

import asyncio
import time

from model_server.client import SpeechClient, SpeechClientError

from .runner import Driver
from .streams import BYTES_PER_SAMPLE, RawStream, StreamOptions, StreamStatus
from .texts import TextItem


def sagemaker_driver(
    target: str, opts: StreamOptions, *, region: str | None = None, endpoint_url: str | None = None
) -> Driver:
    client = SpeechClient(target, region=region, endpoint_url=endpoint_url, timeout=opts.timeout_s)
    # boto3's client is made now, before any stream's clock starts: made by the first streams of a level, it
    # added 80-200 ms to their time to first audio (docs count signing and the runtime hop, not SDK setup)
    client._prepare()
    output_format = {"container": "raw", "encoding": "pcm_s16le", "sample_rate": opts.sample_rate}

    async def drive(item: TextItem) -> RawStream:
        raw = RawStream(item.kind, len(item.text))
        t0 = time.perf_counter()
        try:
            async with asyncio.timeout(opts.timeout_s):
                stream = await client.astream(
                    item.text, voice=opts.voice, output_format=output_format, language=opts.language
                )
                async for chunk in stream:
                    seconds = len(chunk) / (BYTES_PER_SAMPLE * opts.sample_rate)
                    raw.arrivals.append((time.perf_counter() - t0, seconds))
        except SpeechClientError as exc:
            raw.status = StreamStatus.REJECTED if exc.status == 503 else StreamStatus.ERROR
            raw.error = str(exc)[:300]
        except TimeoutError:
            raw.status, raw.error = StreamStatus.ERROR, f"not finished within {opts.timeout_s:.0f}s"
        raw.wall_s = time.perf_counter() - t0
        return raw

    return drive

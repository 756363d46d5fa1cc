"""Drive one agent framework's own TTS integration against a running server; print one JSON result line.

Runs in .venv-agents (requirements-agents.txt), not in the test venv: `python drive.py SCENARIO BASE_URL`.
Each scenario uses the plugin the way the framework does in a voice agent, without a LiveKit room or a
Pipecat transport: LiveKit's TTS classes are driven directly (as LiveKit's own plugin tests do), Pipecat's
services run in a Pipeline with Pipecat's own test processors at both ends.

The result: {"audio_bytes", "transcript" (what the framework assembled from the word timestamps, if any),
"interrupted" (Pipecat: the words of each interrupted turn heard before the cut), "errors" (exceptions or error frames), "ended" (the framework saw the end of the turn)}.
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback

VOICE = "en_female_a"  # a voice of the tests' random model
TURN = ["Hello there, ", "my friend. It costs ", "3.5 dollars, ", "doesn't it? ", "See you soon."]
CUT_TURN = "This answer is cut short by the user, " * 4  # Pipecat's scenario interrupts it
TIMEOUT_S = 30.0


# LiveKit Agents: livekit-plugins-cartesia ----------------------------------------------------------------
async def livekit(base_url: str, mode: str) -> dict:
    import aiohttp
    from livekit.agents import APIConnectOptions
    from livekit.agents.tts.tts import USERDATA_TIMED_TRANSCRIPT
    from livekit.plugins import cartesia

    opts = APIConnectOptions(max_retry=0, timeout=20.0)  # no retry: a retry would hide a hang
    result = {"audio_bytes": 0, "transcript": [], "errors": [], "ended": False}
    async with aiohttp.ClientSession() as http:
        tts = cartesia.TTS(api_key="unused", base_url=base_url, voice=VOICE, http_session=http)
        try:
            if mode == "synthesize":  # POST /tts/bytes
                async for ev in tts.synthesize("".join(TURN), conn_options=opts):
                    result["audio_bytes"] += len(ev.frame.data.tobytes())
                result["ended"] = True
            else:  # WS /tts/websocket: two turns on the pooled connection, one context each
                for _ in range(2):
                    stream = tts.stream(conn_options=opts)
                    for piece in TURN:
                        stream.push_text(piece)
                    stream.flush()
                    stream.end_input()
                    words = []
                    async for ev in stream:
                        result["audio_bytes"] += len(ev.frame.data.tobytes())
                        words += [str(w) for w in ev.frame.userdata.get(USERDATA_TIMED_TRANSCRIPT, [])]
                    await stream.aclose()
                    result["transcript"].append("".join(words))
                result["ended"] = True
        except Exception as exc:
            result["errors"].append("".join(traceback.format_exception_only(exc)).strip())
        finally:
            await tts.aclose()
    return result


# Pipecat: CartesiaTTSService, CartesiaHttpTTSService, OpenAITTSService -----------------------------------
async def pipecat(base_url: str, mode: str) -> dict:
    from pipecat.frames.frames import (
        EndFrame,
        ErrorFrame,
        InterruptionFrame,
        LLMFullResponseEndFrame,
        LLMFullResponseStartFrame,
        LLMTextFrame,
        TTSAudioRawFrame,
        TTSSpeakFrame,
        TTSStoppedFrame,
        TTSTextFrame,
    )
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.worker import PipelineWorker
    from pipecat.processors.frame_processor import FrameDirection
    from pipecat.services.cartesia.tts import CartesiaHttpTTSService, CartesiaTTSService
    from pipecat.services.openai.tts import OpenAITTSService
    from pipecat.tests.utils import QueuedFrameProcessor
    from pipecat.workers.runner import WorkerRunner

    def llm_turn(pieces):  # how an LLM's streamed answer reaches the TTS service
        return [LLMFullResponseStartFrame(), *(LLMTextFrame(p) for p in pieces), LLMFullResponseEndFrame()]

    if mode == "websocket":
        ws_url = base_url.replace("http", "ws", 1) + "/tts/websocket"
        service = CartesiaTTSService(
            api_key="unused", url=ws_url, settings=CartesiaTTSService.Settings(voice=VOICE, model="sonic-3")
        )
        # a turn, a turn interrupted once its audio started (Pipecat cancels the context), a last turn
        steps = [*llm_turn(TURN), TTSStoppedFrame, *llm_turn([CUT_TURN]),
                 TTSAudioRawFrame, InterruptionFrame(), *llm_turn(TURN), TTSStoppedFrame]  # fmt: skip
    elif mode == "http":
        service = CartesiaHttpTTSService(
            api_key="unused",
            base_url=base_url,
            settings=CartesiaHttpTTSService.Settings(voice=VOICE, model="sonic-3"),
        )
        steps = [TTSSpeakFrame("".join(TURN)), TTSStoppedFrame]
    else:  # openai: Pipecat accepts only OpenAI's voice names, so the server's table must map "alloy"
        service = OpenAITTSService(
            api_key="unused", base_url=base_url + "/v1", settings=OpenAITTSService.Settings(voice="alloy")
        )
        steps = [TTSSpeakFrame("".join(TURN)), TTSStoppedFrame]

    up: asyncio.Queue = asyncio.Queue()
    down: asyncio.Queue = asyncio.Queue()
    source = QueuedFrameProcessor(queue=up, queue_direction=FrameDirection.UPSTREAM)
    sink = QueuedFrameProcessor(queue=down, queue_direction=FrameDirection.DOWNSTREAM)
    worker = PipelineWorker(Pipeline([source, service, sink]), cancel_on_idle_timeout=False)
    started = asyncio.Event()
    frames: list = []
    result = {"audio_bytes": 0, "transcript": [], "interrupted": [], "errors": [], "ended": False}

    @worker.event_handler("on_pipeline_started")
    async def _started(worker, frame):
        started.set()

    async def wait_for(kind) -> None:
        while True:
            frame = await down.get()
            frames.append(frame)
            if isinstance(frame, kind):
                return

    async def feed() -> None:
        try:
            await asyncio.wait_for(started.wait(), TIMEOUT_S)
            for step in steps:
                if isinstance(step, type):  # wait until the service pushed a frame of this type
                    await asyncio.wait_for(wait_for(step), TIMEOUT_S)
                else:
                    await worker.queue_frame(step)
            result["ended"] = True
        except Exception as exc:
            result["errors"].append("".join(traceback.format_exception_only(exc)).strip())
        await worker.queue_frame(EndFrame())

    runner = WorkerRunner()
    await runner.add_workers(worker)
    await asyncio.gather(runner.run(), feed())
    while not down.empty():
        frames.append(down.get_nowait())
    while not up.empty():
        frame = up.get_nowait()
        if isinstance(frame, ErrorFrame):
            result["errors"].append(str(frame.error))
    result["audio_bytes"] = sum(len(f.audio) for f in frames if isinstance(f, TTSAudioRawFrame))
    turn: list[str] = []
    for frame in frames:  # words per turn, as Pipecat hands them to the context aggregator
        if isinstance(frame, TTSTextFrame):
            turn.append(frame.text)
        elif isinstance(frame, TTSStoppedFrame) and turn:
            result["transcript"].append(" ".join(turn))
            turn = []
        elif isinstance(frame, InterruptionFrame):
            # The aggregator closes an interrupted turn here with the words heard so far: whether any
            # word of it arrived before the cut is a race, so it is reported apart from the full turns.
            result["interrupted"].append(" ".join(turn))
            turn = []
    return result


def main() -> None:
    scenario, base_url = sys.argv[1], sys.argv[2]
    framework, mode = scenario.split("-", 1)
    run = livekit if framework == "livekit" else pipecat
    result = asyncio.run(asyncio.wait_for(run(base_url, mode), 4 * TIMEOUT_S))
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()

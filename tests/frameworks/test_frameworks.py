"""Agent frameworks' own TTS integrations as clients of the real server: LiveKit Agents' Cartesia plugin,
Pipecat's Cartesia (WebSocket and HTTP) and OpenAI services.

The frameworks live in their own virtual environment (.venv-agents, from the pinned
requirements-agents.txt) so the main requirements stay lean; it is built on first use and rebuilt when
the lock file changes. Each scenario runs `drive.py` there, pointed at the server's URL, and must end
with audio, a clean end of the turn, no exception or error frame, and (where the framework assembles
one from word timestamps) a transcript that reads like the text that was sent.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from server._server import ServerProcess, make_model_dir

from tests.support.venvs import locked_venv

from .drive import CUT_TURN, TURN

REPO_ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = REPO_ROOT / "requirements-agents.txt"
VENV = REPO_ROOT / ".venv-agents"
DRIVER = Path(__file__).with_name("drive.py")
SECOND_OF_AUDIO = 24000 * 2  # the plugins' default output: 16-bit mono at 24 kHz


@pytest.fixture(scope="module")
def python() -> Path:
    """.venv-agents/bin/python, installed from the lock file on first use or when the lock changed."""
    return locked_venv(VENV, REQUIREMENTS)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    model_dir = make_model_dir(tmp_path_factory.mktemp("model"))
    # Pipecat's OpenAI service accepts only OpenAI's voice names: map one onto the random model's voice.
    env = {"MAX_STREAMS": "4", "STATESPEAK_OPENAI_VOICES": "alloy=en_female_a"}
    with ServerProcess(model_dir, tmp_path_factory.mktemp("server"), **env) as proc:
        yield proc


SCENARIOS = {
    # scenario: turns whose transcript the framework reports (LiveKit's and Pipecat's WebSocket services
    # assemble it from the word timestamps), and what it exercises
    "livekit-synthesize": 0,  # ChunkedStream: POST /tts/bytes
    "livekit-stream": 2,  # SynthesizeStream, pieces then flush() and end_input(), twice on the pooled socket
    "pipecat-websocket": 2,  # CartesiaTTSService: a turn, an interrupted turn (cancel), another turn
    "pipecat-http": 1,  # CartesiaHttpTTSService: POST /tts/bytes
    "pipecat-openai": 1,  # OpenAITTSService: POST /v1/audio/speech, response_format pcm, voice "alloy"
}


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_framework_speaks_through_the_server(python, server, scenario):
    proc = subprocess.run(
        [str(python), str(DRIVER), scenario, server.base_url], capture_output=True, text=True, timeout=300
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"driver failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    result = json.loads(lines[-1][len("RESULT ") :])
    assert result["errors"] == [], result["errors"]
    assert result["ended"], "the framework never saw the end of its turn"
    assert result["audio_bytes"] > SECOND_OF_AUDIO
    sent = "".join(TURN).strip()
    assert result["transcript"] == [sent] * SCENARIOS[scenario]
    for heard in result.get("interrupted", []):  # an interrupted turn: words of that turn only, in order
        assert " ".join(CUT_TURN.split()).startswith(heard), heard
    assert '"outcome": "error"' not in server.stderr()


def test_agent_environment_is_pinned_and_lean():
    # Every package pinned (a clean clone resolves the same set), and no torch: the frameworks' TTS
    # clients need none, and a CUDA wheel set would blow CI's time budget.
    pins = [line for line in REQUIREMENTS.read_text().splitlines() if line and not line.startswith("#")]
    assert pins and all("==" in line for line in pins), [line for line in pins if "==" not in line]
    names = {line.split("==")[0].lower() for line in pins}
    assert {"livekit-agents", "livekit-plugins-cartesia", "pipecat-ai"} <= names
    assert not names & {"torch", "torchaudio", "tensorflow", "onnxruntime-gpu"}

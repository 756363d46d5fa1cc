"""The measured intelligibility that ships beside the weights: ``<model dir>/evaluation.json``.

`python -m model_server.evaluate --languages ...` writes it: per voice, Whisper-base WER (CER where the
language does not separate words) of the model and of the voice's teacher on held-out sentences. The server
reads it at startup and marks a voice supported only when it was measured on *these* weights (the file
records the weights' SHA-256) and the model is at most `SUPPORT_MARGIN` points behind its teacher. A voice
never measured, or measured on other weights, is not supported: only a measurement says so.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

__all__ = [
    "EVALUATION_FILE",
    "FORMAT",
    "GOAL_MARGIN",
    "JUDGE_CEILING",
    "SUPPORT_MARGIN",
    "is_supported",
    "read_results",
    "voice_support",
    "weights_digest",
]

EVALUATION_FILE = "evaluation.json"
FORMAT = "statespeak-evaluation/1"
SUPPORT_MARGIN = 10.0  # issue 17: "a language more than 10 points behind is not listed as supported"
GOAL_MARGIN = 3.0  # the goal: the model within 3 points of its teacher
# A teacher the judge itself mostly fails to understand leaves nothing to compare against (Whisper-base gives
# espeak-ng's French 100 % WER on held-out sentences): above this error rate no voice is supported.
JUDGE_CEILING = 50.0


def weights_digest(model_dir: str | os.PathLike) -> str:
    """SHA-256 of the model's weights file (what the measurement was made on)."""
    from model_server.model.checkpoint import WEIGHTS_FILE  # torch's import, only when a file is there

    h = hashlib.sha256()
    with (Path(model_dir) / WEIGHTS_FILE).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def is_supported(entry: dict) -> bool:
    """A voice's measurement: model and teacher both scored, the teacher understood by the judge (at most
    JUDGE_CEILING % errors), and the model at most SUPPORT_MARGIN points behind it."""
    model, teacher = entry.get("model_score"), entry.get("teacher_score")
    if not isinstance(model, (int, float)) or not isinstance(teacher, (int, float)):
        return False
    return teacher <= JUDGE_CEILING and model - teacher <= SUPPORT_MARGIN


def read_results(model_dir: str | os.PathLike) -> dict:
    """The evaluation file's document if it exists, is ours and was measured on these weights; else {}."""
    path = Path(model_dir) / EVALUATION_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("voices"), dict):
        return {}
    try:
        if doc.get("weights_sha256") != weights_digest(model_dir):
            return {}
    except OSError:
        return {}
    return doc


def voice_support(model_dir: str | os.PathLike, voice_ids) -> dict[str, bool]:
    """voice id -> supported, for `voice_ids` (False for every voice without a current measurement)."""
    measured = read_results(model_dir).get("voices", {})
    return {v: isinstance(measured.get(v), dict) and is_supported(measured[v]) for v in voice_ids}

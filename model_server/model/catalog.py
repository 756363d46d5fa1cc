"""The catalog: what a loaded model offers (voices, languages, its symbol inventory) and the text
frontends that turn a sentence into its symbols. Stream parameters are validated here, once."""

from __future__ import annotations

import math

import torch

from model_server.model.checkpoint import DEFAULT_POSTFILTER, Checkpoint, Voice, VoiceInfo
from model_server.model.text import SentenceText

MIN_SPEED, MAX_SPEED = 0.5, 2.0


class Catalog:
    def __init__(self, ckpt: Checkpoint) -> None:
        self.voices: dict[str, VoiceInfo] = {v.info.id: v.info for v in ckpt.voices}
        self._voices = {v.info.id: v for v in ckpt.voices}
        self.languages = sorted({v.info.language for v in ckpt.voices})
        self.symbols = list(ckpt.symbols)
        self.length_marks = ckpt.length_marks
        self.text = SentenceText(self.symbols, self.length_marks)  # the same class the API workers use
        self._settings = {
            v.info.id: (v.info.postfilter or DEFAULT_POSTFILTER).vocoder_settings() for v in ckpt.voices
        }

    def vocoder_settings(self, voice_ids: list[str]) -> dict[str, torch.Tensor]:
        """The voices' vocoder settings (their `VoiceInfo.postfilter`), stacked one row per voice id:
        ``lifter`` [n, N_ENV], ``ap_scale`` [n], ``voicing`` [n] (`vocoder.VOICE_SETTINGS`)."""
        unknown = sorted(set(voice_ids) - set(self._settings))
        if unknown:
            raise ValueError(f"unknown voice(s) {unknown}; this model has {sorted(self._settings)}")
        rows = [self._settings[v] for v in voice_ids]
        return {key: torch.stack([r[key] for r in rows]) for key in rows[0]} if rows else {}

    def phonemize(self, sentence: str, language: str) -> list[tuple[str | None, list[int]]]:
        """One sentence -> [(word text, or None for pauses/boundaries/punctuation, model symbol ids)]."""
        return self.text.phonemize(sentence, language)

    def stream_params(self, voice_id: str, language: str | None, speed: float) -> tuple[Voice, str, float]:
        """(voice, language, speed) for a new stream, or ValueError naming what is wrong."""
        voice = self._voices.get(voice_id)
        if voice is None:
            raise ValueError(f"unknown voice {voice_id!r}; this model has {sorted(self._voices)}")
        language = language or voice.info.language
        if language not in self.languages:
            raise ValueError(
                f"language {language!r} is not supported by this model (it has {self.languages})"
            )
        if (
            isinstance(speed, bool)
            or not isinstance(speed, (int, float))
            or not math.isfinite(speed)
            or not MIN_SPEED <= speed <= MAX_SPEED
        ):
            raise ValueError(f"speed must be a number in [{MIN_SPEED}, {MAX_SPEED}], got {speed!r}")
        return voice, language, float(speed)

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
        self._lifters = {
            v.info.id: torch.tensor((v.info.postfilter or DEFAULT_POSTFILTER).gains(), dtype=torch.float32)
            for v in ckpt.voices
        }
        self._ap_scales = {
            v.info.id: (v.info.postfilter or DEFAULT_POSTFILTER).aperiodicity for v in ckpt.voices
        }

    def lifters(self, voice_ids: list[str]) -> torch.Tensor:
        """[len(voice_ids), N_ENV] the voices' vocoder post-filter gains (their `VoiceInfo.postfilter`)."""
        unknown = sorted(set(voice_ids) - set(self._lifters))
        if unknown:
            raise ValueError(f"unknown voice(s) {unknown}; this model has {sorted(self._lifters)}")
        return torch.stack([self._lifters[v] for v in voice_ids])

    def ap_scales(self, voice_ids: list[str]) -> torch.Tensor:
        """[len(voice_ids)] the voices' factors on their predicted aperiodicity (`Postfilter.aperiodicity`)."""
        self.lifters(voice_ids)  # ValueError naming unknown voices
        return torch.tensor([self._ap_scales[v] for v in voice_ids], dtype=torch.float32)

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

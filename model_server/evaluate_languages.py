"""Per-language intelligibility: `python -m model_server.evaluate --languages it,ja,...` (or `all`).

For each language, each of the model's voices in it speaks the language's held-out sentences (English:
`data/heldout_en.txt`; the others: `text_intl.heldout_sentences`, the 12 everyday voice-agent sentences of
`data/heldout/<code>.txt`, 24 for the languages the model is trained in, which training never sees) through the serving path, the voice's teacher renders
the same sentences as `make data` renders them, and Whisper-base (forced to the language) transcribes both.
The score is WER where the language separates words with spaces and CER where it does not (the catalog's
`spaces`), after the same normalization on both sides (`score_units`). A language the model has no voice for is scored for its
catalog teacher only (status "no voice in the model").

The results go to ``<model dir>/evaluation.json`` (merged with earlier runs on the same weights; see
`model.measured`), which the server reads to mark voices supported, and to a table in the per-language
section of docs/evaluation.md.

`--confirm` scores a second block instead, 12 more sentences per language (`data/heldout/confirm/<code>.txt`,
`text_intl.confirm_sentences`), judged once on weights a round picked among its checkpoints by the held-out
sentences: what that pick reads optimistically. Its results go under the evaluation file's "confirm" key, which
decides nothing, and to their own section of the report (`render_confirm_section`).
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import re
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from num2words import num2words

from model_server import evaluate as ev
from model_server import vocoder
from model_server.data.festival import SAMPLE_RATE as TEACHER_RATE  # every teacher render is 16 kHz
from model_server.data.text import HELDOUT_DIR
from model_server.frontend.languages import CATALOG
from model_server.frontend.normalize import normalize
from model_server.model import measured
from model_server.model.checkpoint import DEFAULT_POSTFILTER

__all__ = [
    "CONFIRM_END",
    "CONFIRM_MARKERS",
    "CONFIRM_START",
    "SECTION_END",
    "SECTION_MARKERS",
    "SECTION_START",
    "TranscriptCache",
    "VoiceUnderTest",
    "evaluate_languages",
    "heldout",
    "language_codes",
    "merge_results",
    "pooled_gap",
    "render_confirm_section",
    "render_section",
    "replace_section",
    "score_units",
    "status_of",
    "summary_line",
    "teacher_transcripts",
    "unit_errors",
    "write_report",
]

SECTION_START = "<!-- per-language intelligibility: start (python -m model_server.evaluate --languages) -->"
SECTION_END = "<!-- per-language intelligibility: end -->"
CONFIRM_START = (
    "<!-- confirmation block: start (python -m model_server.evaluate --languages all --confirm) -->"
)
CONFIRM_END = "<!-- confirmation block: end -->"
SECTION_MARKERS, CONFIRM_MARKERS = (SECTION_START, SECTION_END), (CONFIRM_START, CONFIRM_END)
CONFIRM_KEY = "confirm"  # the evaluation file's key for the confirmation block's entries (beside "voices")
_DIGITS = re.compile(r"\d+")
_HIRAGANA = {c: c + 0x60 for c in range(0x3041, 0x3097)}  # hiragana -> katakana (same sound)


def language_codes(spec: str, confirm: bool = False) -> list[str]:
    """Catalog codes from "all" or "it,ja,..."; SystemExit naming unknown codes. With `confirm`, "all" is
    the languages with a confirmation block, and a listed language without one is named."""
    from model_server.data.text_intl import confirm_languages

    choices = confirm_languages() if confirm else list(CATALOG)
    codes = choices if spec.strip() == "all" else [c.strip() for c in spec.split(",") if c.strip()]
    unknown = [c for c in codes if c not in CATALOG]
    if unknown or not codes:
        raise SystemExit(
            f"--languages: unknown language(s) {unknown}; choose all or from {','.join(CATALOG)}"
        )
    lacking = [c for c in codes if c not in choices]
    if lacking:
        raise SystemExit(
            f"--confirm: no confirmation sentences for {lacking}; languages with them: {','.join(choices)}"
        )
    return codes


# Letters written two ways: Romanian ș and ț have a comma below, and their cedilla forms (ş, ţ), which the judge
# often writes, come from old encodings that lacked them (in Turkish, ş is the letter itself).
# Romanian is also compared without its diacritics (ă, â, î, ș, ț as a, a, i, s, t), on both sides: much
# Romanian text is written without them, and so is what Whisper-base writes, for the teacher and the model
# alike ("dupa" for "după", "in" for "în"). With them, words heard right counted as errors: the `jm_kumo`
# teacher scored 49.0 % WER at 7.3 % CER on the first 12 held-out sentences; folded, 37.5 % (2026-12-06,
# docs/model.md "Romanian through jm_kumo").
_SAME_LETTERS = {"ro": str.maketrans("şţșțăâî", "ststaai")}


def score_units(text: str, language: str, metric: str | None = None) -> list[str]:
    """What the error rate counts, the same for reference and transcript: words where the language
    separates words (the catalog's `spaces`), characters without spaces where it does not; `metric`
    ("wer" or "cer") overrides the catalog's choice (the table's secondary CER column).

    Both sides get the project's normalizer for that language (numbers, dates, currencies to words, as the
    voices read them), Unicode NFKC, lower case, one form of letters written two ways (`_SAME_LETTERS`), and
    lose their punctuation. Japanese is compared as
    katakana: the normalizer reads kanji as katakana (Janome), and hiragana is folded onto katakana, so
    "3時間前", "三時間前" and "さんじかんまえ" score alike.
    """
    if language == "en":
        return ev.normalize_words(text, "en")
    spoken = normalize(text, language)
    if language == "ja":  # digits left to espeak-ng: as kanji numbers, which the normalizer reads as katakana
        spoken = normalize(_DIGITS.sub(lambda m: num2words(int(m.group()), lang="ja"), spoken), language)
    spoken = unicodedata.normalize("NFKC", spoken).lower().translate(_SAME_LETTERS.get(language, {}))
    if language == "ja":
        spoken = spoken.translate(_HIRAGANA)
    kept = "".join(ch if ch == "'" or unicodedata.category(ch)[0] in "LMN" else " " for ch in spoken)
    words = re.sub(r"(?<!\w)'|'(?!\w)", " ", kept).split()  # an apostrophe only inside a word
    return words if (metric or CATALOG[language].metric) == "wer" else list("".join(words))


def unit_errors(refs: list[str], hyps: list[str], language: str, metric: str | None = None) -> np.ndarray:
    """Per sentence: (edits, reference units), shape (n, 2): the rows the bootstrap resamples."""
    rows = [
        ev.sentence_errors(score_units(r, language, metric), score_units(h, language, metric))
        for r, h in zip(refs, hyps, strict=True)
    ]
    return np.asarray(rows, dtype=np.float64).reshape(-1, 2)


def heldout(language: str, limit: int = 0, confirm: bool = False) -> list[str]:
    """The language's held-out sentences (never training text), the first `limit` of them if given; with
    `confirm`, its confirmation block instead (FileNotFoundError naming a language without one)."""
    from model_server.data.text_intl import confirm_sentences, heldout_sentences

    if confirm:
        sentences = list(confirm_sentences(language))
    elif language == "en":
        sentences = ev.read_sentences(ev.HELDOUT)
    else:
        sentences = list(heldout_sentences(language))
    return sentences[:limit] if limit else sentences


IMPORTED_TEACHER = "ljspeech:"  # the teacher of a voice imported from recordings (`data/ljspeech.py`)


@dataclass(frozen=True)
class VoiceUnderTest:
    id: str
    language: str
    teacher: str  # "<kind>:<voice>", as in VoiceInfo/VoiceSpec
    in_model: bool


def voices_under_test(rt, language: str) -> list[VoiceUnderTest]:
    """The model's voices in `language`; else the catalog voices `make data` would train (teacher only)."""
    mine = [v for v in rt.voices.values() if v.language == language]
    if mine:
        return [VoiceUnderTest(v.id, language, v.teacher, True) for v in mine]
    from model_server.data.voices import voices_for_languages

    return [VoiceUnderTest(v.id, language, v.teacher, False) for v in voices_for_languages(language)]


def judge_languages(asr) -> frozenset[str]:
    """The language codes the Whisper judge knows (Irish, for one, it does not)."""
    return frozenset(asr.model.supported_languages)


def render_teacher(teacher: str, language: str, sentences: list[str]) -> list[np.ndarray | None]:
    """16 kHz float audio of `sentences` by `teacher`, given the frontend's normalized text as `make data`
    gives it; None for a sentence the teacher failed on (reported on stderr)."""
    from model_server.data import build
    from model_server.data.voices import VoiceSpec

    texts = [normalize(s, language) for s in sentences]
    spec = VoiceSpec(f"eval-{language}", "", language, "", "", teacher, 0.0, 1.0)
    try:
        renders = build._render(spec, texts)  # the data build's own dispatch: every kind it renders
    except ValueError as exc:
        raise SystemExit(f"teacher {teacher!r}: {exc}") from None
    out = []
    for i, r in enumerate(renders):
        if r.audio is None:
            print(f"teacher {teacher} failed on {language} sentence {i}: {r.error}", file=sys.stderr)
        out.append(None if r.audio is None else ev.to_judge_rate(r.audio, TEACHER_RATE))
    return out


def status_of(entry: dict) -> str:
    """The table's status: goal (<= 3 points behind), supported (<= 10), not supported, or why unscored."""
    if entry.get("skipped"):
        return entry["skipped"]
    if entry.get("model_score") is None:
        return "no voice in the model"
    if entry["teacher_score"] > measured.JUDGE_CEILING:
        return f"unmeasured: the judge fails the teacher (> {measured.JUDGE_CEILING:g} %)"
    gap = entry["model_score"] - entry["teacher_score"]
    if gap <= measured.GOAL_MARGIN:
        return "supported (goal met)"
    return "supported" if measured.is_supported(entry) else "not supported"


def _score(errors: np.ndarray) -> tuple[float, list[float]]:
    return ev.wer_of(errors), [round(x, 2) for x in ev.bootstrap_ci(errors, ev.wer_of)]


class TranscriptCache:
    """What the judge heard from a teacher, per (judge, teacher, language, sentence, spoken form), in a
    JSON file; beside it, under their own judges' keys, the teacher's DistillMOS and our vocoder's
    resynthesizing it (`teacher_judgements`).

    The teacher side of the table does not depend on the model's weights, so a second model run (or a run
    resumed after a stop) renders and transcribes only what it has not heard before; None records a
    sentence the teacher failed on. The judge's description is part of the key: changing the judge's
    settings starts afresh. So is the normalizer's spoken form, which is what the teacher reads, and for
    Kokoro the IPA our code gives it: a normalizer or mapping change re-hears exactly the sentences it changed,
    and no transcript is compared with a reference the teacher never read."""

    def __init__(self, path: Path | None):
        self.path = path
        self.entries: dict[str, str | float | None] = {}
        if path is not None and path.is_file():
            self.entries = json.loads(path.read_text(encoding="utf-8"))

    @staticmethod
    def key(v: VoiceUnderTest, sentence: str, judge: str | None = None) -> str:
        """`judge`: what was measured (default: `JUDGE`'s transcript; `MOS_JUDGE`'s score of the teacher, or
        `vocoded_judge`'s of our vocoder resynthesizing it)."""
        from model_server.data.build import teacher_reading

        spoken = normalize(sentence, v.language)
        reading = teacher_reading(v.teacher, v.language, spoken)  # Kokoro's IPA, ours to map
        parts = [judge or JUDGE, v.teacher, v.language, sentence, spoken]
        if reading is not None:
            parts.append(reading)
        raw = "\x1f".join(parts)
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        # one line an entry, sorted: the file is committed, and a new teacher is a small diff
        text = json.dumps(self.entries, ensure_ascii=False, indent=0, sort_keys=True)
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(self.path)


def teacher_transcripts(
    asr, v: VoiceUnderTest, sentences: list[str], cache: TranscriptCache | None = None
) -> list[str | None]:
    """The judge's transcript of each sentence spoken by the voice's teacher (None: the teacher failed),
    rendering and transcribing only the sentences `cache` lacks."""
    return teacher_judgements(asr, v, sentences, cache).heard


def vocoded_judge(postfilter, judge: str | None = None) -> str:
    """What `judge` (default `MOS_JUDGE`; or `JUDGE`'s transcript) measures of "our vocoder resynthesizing the
    teacher": the vocoder's version (which names its output, `vocoder.VOCODER_VERSION`) and the voice's
    post-filter (`checkpoint.Postfilter`) are part of it, so an audible change to either measures again and a
    refactor does not."""
    return (
        f"{judge or MOS_JUDGE} of vocoder {vocoder.VOCODER_VERSION}, post-filter {postfilter.strength:g} / "
        f"{postfilter.order}"
    )


class TeacherJudgements(NamedTuple):
    """Per sentence spoken by a voice's teacher (None where it failed): the judge's transcript, and with a MOS
    judge the teacher's DistillMOS, and our vocoder's resynthesizing it, scored and transcribed."""

    heard: list[str | None]
    teacher_mos: list[float | None] | None = None
    vocoded_mos: list[float | None] | None = None
    vocoded_heard: list[str | None] | None = None


def teacher_judgements(
    asr, v: VoiceUnderTest, sentences: list[str], cache: TranscriptCache | None = None, mos=None,
    postfilter=None,
) -> TeacherJudgements:  # fmt: skip
    """What the judges make of the voice's teacher on `sentences`: its transcripts, and with `mos` (a
    `MosJudge`) its DistillMOS and the DistillMOS and transcripts of our vocoder (with `postfilter`)
    resynthesizing it, which is what the vocoder alone costs the voice. A teacher is rendered only for the
    sentences `cache` lacks something of, and a measurement already in it is kept (espeak-ng's audio differs
    from run to run)."""
    cache = cache or TranscriptCache(None)
    postfilter = postfilter or DEFAULT_POSTFILTER
    judges = [JUDGE] + (
        [MOS_JUDGE, vocoded_judge(postfilter), vocoded_judge(postfilter, JUDGE)] if mos else []
    )
    keys = [[cache.key(v, s, j) for j in judges] for s in sentences]
    todo = [i for i, ks in enumerate(keys) if any(k not in cache.entries for k in ks)]
    if todo:
        lifter = postfilter.vocoder_settings()["lifter"]
        # each judge's measurement of (teacher audio, its resynthesis by our vocoder, made once on first use)
        measure = [lambda a, vocoded: asr(a, v.language)]
        if mos:
            measure += [lambda a, vocoded: mos(a), lambda a, vocoded: mos(vocoded(), vocoder.SAMPLE_RATE),
                        lambda a, vocoded: asr(ev.to_judge_rate(vocoded(), vocoder.SAMPLE_RATE), v.language)]  # fmt: skip
        audio = render_teacher(v.teacher, v.language, [sentences[i] for i in todo])
        for i, a in zip(todo, audio, strict=True):
            vocoded = functools.cache(lambda a=a: ev.resynthesize(a, TEACHER_RATE, lifter))
            for key, how in zip(keys[i], measure, strict=True):
                if key not in cache.entries:
                    cache.entries[key] = None if a is None else _rounded(how(a, vocoded))
        cache.save()
    return TeacherJudgements(*([cache.entries[row[j]] for row in keys] for j in range(len(judges))))


def _rounded(value):
    return round(value, 4) if isinstance(value, float) else value


def evaluate_voice(
    rt,
    asr,
    v: VoiceUnderTest,
    sentences: list[str],
    wav_dir: Path | None,
    cache: TranscriptCache | None = None,
    mos=None,
) -> dict:
    """One voice: teacher (transcripts from `cache` where it has them) and, if the model has the voice,
    model scored on `sentences`; with `mos` (a `MosJudge`) also the DistillMOS of the teacher, of our vocoder
    resynthesizing the teacher (with the voice's post-filter), and of the model."""
    entry: dict = {"language": v.language, "teacher": v.teacher, "metric": CATALOG[v.language].metric,
                   "sentences": len(sentences)}  # fmt: skip
    if v.language not in judge_languages(asr):
        entry["skipped"] = "no judge (Whisper lacks the language)"
        return entry
    if v.teacher.startswith(IMPORTED_TEACHER):  # a fine-tune's own recordings: the run stopped on it
        entry["skipped"] = "imported recordings: no teacher to compare with"
        return entry
    postfilter = rt.voices[v.id].postfilter if v.in_model else None
    heard, teacher_mos, vocoded_mos, vocoded_heard = teacher_judgements(
        asr, v, sentences, cache, mos, postfilter
    )
    said = [h is not None for h in heard]
    if not all(said):  # scored on the sentences the teacher could say, both sides
        entry["teacher_failed"] = said.count(False)
        sentences = [s for s, ok in zip(sentences, said, strict=True) if ok]
        entry["sentences"] = len(sentences)
    if not sentences:
        entry["skipped"] = "the teacher failed on every sentence"
        return entry
    if mos:
        for name, scores in (("teacher", teacher_mos), ("vocoded", vocoded_mos)):
            _put_mos(entry, name, [x for x, ok in zip(scores, said, strict=True) if ok and x is not None])
    teacher_hyps = [h for h in heard if h is not None]
    t_err = _put_errors(entry, "teacher", sentences, teacher_hyps, v.language)
    if vocoded_heard is not None:  # the vocoder alone: the teacher's own features resynthesized
        vocoded_hyps = [h for h, ok in zip(vocoded_heard, said, strict=True) if ok]
        # a teacher transcript committed from another machine and a render failing here leave a gap: no column
        if None not in vocoded_hyps:
            _put_errors(entry, "vocoded", sentences, vocoded_hyps, v.language)
    entry["examples"] = [
        {"reference": s, "teacher": h} for s, h in zip(sentences[:2], teacher_hyps[:2], strict=True)
    ]
    if not v.in_model:
        entry["model_score"] = None
        return entry
    model_hyps, model_mos = [], []
    for i, s in enumerate(sentences):
        audio, _ = ev.synthesize(rt, v.id, s)
        if wav_dir is not None:
            ev.write_wav(wav_dir / v.id / f"model_{i:02d}.wav", audio, rt.sample_rate)
        model_hyps.append(asr(ev.to_judge_rate(audio, rt.sample_rate), v.language))
        if mos:
            model_mos.append(mos(audio, rt.sample_rate))
    if mos:
        _put_mos(entry, "model", model_mos)
    m_err = _put_errors(entry, "model", sentences, model_hyps, v.language)
    entry["gap"] = entry["model_score"] - entry["teacher_score"]
    entry["gap_ci"] = [round(x, 2) for x in ev.paired_rate_diff_ci(m_err, t_err)]
    for ex, h in zip(entry["examples"], model_hyps[:2], strict=True):
        ex["model"] = h
    return entry


def _put_errors(entry: dict, system: str, sentences: list[str], hyps: list[str], language: str) -> np.ndarray:
    """`<system>_score` (the language's metric), its 95% bootstrap interval and `<system>_cer` of the judge's
    transcripts `hyps`, into `entry`; returns the per-sentence errors (for the paired gap)."""
    errors = unit_errors(sentences, hyps, language)
    entry[f"{system}_score"], entry[f"{system}_ci"] = _score(errors)
    # CER beside WER: how close the judge's hearing is in characters where whole words fail
    entry[f"{system}_cer"] = round(ev.wer_of(unit_errors(sentences, hyps, language, "cer")), 2)
    return errors


def _put_mos(entry: dict, system: str, scores: list[float]) -> None:
    """`<system>_mos` (the mean DistillMOS over sentences) and its 95% bootstrap interval, into `entry`."""
    if not scores:
        return
    x = np.asarray(scores, dtype=np.float64)[:, None]
    entry[f"{system}_mos"] = round(float(x.mean()), 3)
    entry[f"{system}_mos_ci"] = [round(c, 3) for c in ev.bootstrap_ci(x, lambda r: float(r.mean()))]


def evaluate_languages(
    rt,
    asr,
    codes: list[str],
    limit: int = 0,
    wav_dir: Path | None = None,
    on_language=None,
    cache: TranscriptCache | None = None,
    mos=None,
    confirm: bool = False,
) -> dict:
    """voice id -> entry (see `evaluate_voice`) for every voice under test in `codes`, on their held-out
    sentences or (`confirm`) their confirmation block; `on_language` gets each language's entries as soon as
    they are measured (the run keeps them if a later language fails)."""
    results = {}
    for code in codes:
        sentences = heldout(code, limit, confirm)
        done = {}
        for v in voices_under_test(rt, code):
            entry = evaluate_voice(rt, asr, v, sentences, wav_dir, cache, mos)
            done[v.id] = entry
            print(f"{v.id} ({code}, {entry['metric'].upper()}): teacher {entry.get('teacher_score')}, "
                  f"vocoded {entry.get('vocoded_score')}, model {entry.get('model_score')} -> {status_of(entry)}; DistillMOS teacher "
                  f"{entry.get('teacher_mos')}, vocoded {entry.get('vocoded_mos')}, model {entry.get('model_mos')}",
                  flush=True)  # fmt: skip
        results.update(done)
        if on_language is not None:
            on_language(done)
    return results


def merge_results(model_dir: Path, fresh: dict, judge: str, key: str = "voices") -> dict:
    """Earlier results on the same weights, updated with `fresh` under `key` ("voices", which the server
    reads, or `CONFIRM_KEY`); written to the model's evaluation file."""
    digest = measured.weights_digest(model_dir)
    doc = measured.read_results(model_dir) or {"format": measured.FORMAT, "weights_sha256": digest,
                                               "voices": {}}  # fmt: skip
    doc["judge"] = judge
    doc["support_margin_points"] = measured.SUPPORT_MARGIN
    # each block its own stamp: the per-language section shows when its table was measured
    stamp = "updated" if key == "voices" else f"{key}_updated"
    doc[stamp] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    block = doc.setdefault(key, {})
    block.update(fresh)
    doc[key] = dict(sorted(block.items(), key=lambda kv: (_order(kv[1]["language"]), kv[0])))
    path = Path(model_dir) / measured.EVALUATION_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return doc


def _trained_heldout() -> list[str]:
    """The languages with the second block of 12 held-out sentences (those the model is trained in)."""
    return [code for code in CATALOG if code != "en" and len(heldout(code)) > 12]


def _order(code: str) -> int:
    return list(CATALOG).index(code) if code in CATALOG else len(CATALOG)


def _fmt(score, ci) -> str:
    return "-" if score is None else f"{score:.1f} [{ci[0]:.1f}, {ci[1]:.1f}]"


def _cer(entry: dict) -> str:
    teacher, model = entry.get("teacher_cer"), entry.get("model_cer")
    if teacher is None:
        return "-"
    return f"{teacher:.1f} / " + ("-" if model is None else f"{model:.1f}")


def _mos(entry: dict) -> str:
    teacher, vocoded, model = (entry.get(f"{k}_mos") for k in ("teacher", "vocoded", "model"))
    if teacher is None:
        return "-"
    said = f"{teacher:.2f} / " + ("-" if vocoded is None else f"{vocoded:.2f}") + " / "
    if model is None:
        return said + "-"
    low, high = entry["model_mos_ci"]
    return said + f"{model:.2f} [{low:.2f}, {high:.2f}]"


def summary_line(doc: dict) -> str:
    """One line: how many voices and languages have each status (supported counts the goal too)."""
    voices = doc["voices"]
    supported = [v for v, e in voices.items() if measured.is_supported(e)]
    languages = sorted({voices[v]["language"] for v in supported}, key=_order)
    kinds: dict[str, int] = {}
    for e in voices.values():
        kind = status_of(e).split(":")[0].replace(" (goal met)", "")
        kinds[kind] = kinds.get(kind, 0) + 1
    counts = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
    return (
        f"**{len(supported)} of {len(voices)} voices supported, in {len(languages)} language(s)"
        f"{': ' + ', '.join(languages) if languages else ''}** ({counts})."
    )


def render_section(doc: dict, model_label: str) -> str:
    """The per-language section of docs/evaluation.md, from the evaluation file's document."""
    lines = [
        SECTION_START,
        "## Intelligibility per language",
        "",
        f"Model `{model_label}` (weights SHA-256 `{doc['weights_sha256'][:12]}...`), judged by {doc['judge']}; "
        f"last updated {doc['updated']}. Rerun: `python -m model_server.evaluate --languages all` (or a list "
        "such as `it,ja`; `--limit N` scores the first N held-out sentences), which also writes the model's "
        f"`{measured.EVALUATION_FILE}`.",
        "",
        "- Sentences: English `heldout_en.txt`; the other languages 12 natural everyday voice-agent sentences "
        f"each, 24 for the languages the model is trained in ({', '.join(_trained_heldout())}: their support "
        "is decided on a 10-point line), `model_server/data/heldout/<code>.txt` (`text_intl.heldout_sentences`, "
        "a quarter with a number in digits, written for the project, never training text).",
        "- Metric: WER (word edits / reference words) where the language separates words, CER (character edits "
        "/ reference characters, spaces dropped) where it does not (the catalog's `spaces`: zh, ja, th). Both "
        "sides normalized alike: the project's normalizer for that language (numbers, dates, currencies to "
        "words), Unicode NFKC, lower case, punctuation removed; Japanese compared as katakana, Romanian "
        "without its diacritics (the judge mostly writes it without them). A sentence counts at most as many "
        "edits as its reference has units: a transcript the judge loops on (hundreds of words for one "
        "sentence) is that sentence missed, not a score over 100 % that outweighs the rest.",
        "- Intervals: 95% bootstrap over sentences (2,000 resamples, seed 0); the gap resamples sentences paired.",
        f"- Teachers: what the judge heard from each teacher sentence is committed (`{TRANSCRIPT_CACHE.relative_to(ev.REPO_ROOT).as_posix()}`): "
        "espeak-ng's audio differs from run to run, so every run compares the model against the same teacher "
        "transcripts, and a teacher is rendered only for a sentence, spoken form (the normalizer's output it reads), teacher or judge not yet in the file.",
        f"- Status: a voice is **supported** when the model is at most {measured.SUPPORT_MARGIN:g} points behind "
        f"its teacher (the goal: {measured.GOAL_MARGIN:g}) and the judge understands the teacher (at most "
        f"{measured.JUDGE_CEILING:g} % errors: a teacher Whisper-base mostly fails on leaves nothing to compare); "
        "the server lists that in `/voices` (`supported`).",
        "- Vocoder column: the judge's error rate on our vocoder (with the voice's post-filter) resynthesizing the "
        "teacher from its own features, no model between: what the vocoder alone costs the voice, which the model "
        "cannot win back (measured with DistillMOS, so not by `--no-mos` runs; `-` where not yet measured).",
        "- CER column: character error rates of teacher / model on every language (for zh, ja, th the metric "
        "itself), to show how near the judge's hearing is where whole words fail; the status uses the metric.",
        f"- DistillMOS column: predicted naturalness (1-5, {MOS_JUDGE}) of the teacher / our vocoder "
        "resynthesizing the teacher (with the voice's post-filter) / the model, means over the same sentences "
        "(the model's 95% interval in brackets). DistillMOS learned from English ratings, so compare systems within "
        "a language rather than across languages. The teacher's two scores are committed beside its transcripts.",
        "",
        summary_line(doc),
        "",
        "| language | voice | teacher | metric | n | teacher % [95% CI] | vocoder % [95% CI] | model % [95% CI] "
        "| gap, points [95% CI] "
        "| CER teacher / model % | DistillMOS teacher / vocoder / model | status |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for voice, e in doc["voices"].items():
        gap = (
            "-" if e.get("gap") is None else f"{e['gap']:+.1f} [{e['gap_ci'][0]:+.1f}, {e['gap_ci'][1]:+.1f}]"
        )
        name = CATALOG[e["language"]].name if e["language"] in CATALOG else e["language"]
        lines.append(
            f"| {name} (`{e['language']}`) | `{voice}` | `{e['teacher']}` | {e['metric'].upper()} | "
            f"{e['sentences']} | {_fmt(e.get('teacher_score'), e.get('teacher_ci'))} | "
            f"{_fmt(e.get('vocoded_score'), e.get('vocoded_ci'))} | "
            f"{_fmt(e.get('model_score'), e.get('model_ci'))} | {gap} | {_cer(e)} | {_mos(e)} | {status_of(e)} |"
        )
    lines += ["", "First transcripts per voice (reference -> teacher / model):", ""]
    for voice, e in doc["voices"].items():
        for ex in e.get("examples", [])[:1]:
            model = f' / "{ex["model"]}"' if "model" in ex else ""
            lines.append(f'- `{voice}`: "{ex["reference"]}" -> "{ex["teacher"]}"{model}')
    lines += ["", SECTION_END]
    return "\n".join(lines)


def render_confirm_section(doc: dict, model_label: str) -> str:
    """The confirmation block's section of docs/evaluation.md: each voice's gap to its teacher on the held-out
    sentences (which a round's pick among checkpoints read) beside its gap on the confirmation block (which
    nothing was picked on), from the evaluation file's document."""
    held, confirm = doc.get("voices", {}), doc.get(CONFIRM_KEY, {})
    rows, shifts, pooled_in = [], [], []
    for voice, c in confirm.items():
        h = held.get(voice, {})
        if c.get("gap") is None:
            continue
        pooled = pooled_gap(h, c)
        if h.get("gap") is not None and measured.is_supported(h):
            shifts.append(c["gap"] - h["gap"])
            pooled_in.append(None if pooled is None else pooled <= measured.SUPPORT_MARGIN)
        rows.append(
            f"| {CATALOG[c['language']].name} (`{c['language']}`) | `{voice}` | {c['metric'].upper()} | "
            f"{_pair(h.get('teacher_score'), c['teacher_score'])} | {_pair(h.get('model_score'), c['model_score'])} | "
            + ("-" if h.get("gap") is None else f"{h['gap']:+.1f}")
            + f" | {c['gap']:+.1f} [{c['gap_ci'][0]:+.1f}, {c['gap_ci'][1]:+.1f}] | "
            + ("-" if pooled is None else f"{pooled:+.1f}")
            + f" | {status_of(h) if h else '-'} | {status_of(c)} |"
        )  # fmt: skip
    summary = "No voice measured on both blocks yet."
    if shifts:
        behind = sum(1 for x in shifts if x > 0)
        summary = (
            f"**On the {len(shifts)} voices supported on the held-out sentences, the gap to the teacher is "
            f"{float(np.mean(shifts)):+.1f} points on the confirmation block against the held-out sentences "
            f"(mean; median {float(np.median(shifts)):+.1f}; wider on {behind}, narrower or level on "
            f"{len(shifts) - behind})**: the held-out column's optimism, if positive, and chance: 12 sentences "
            f"are a wide sample. On both blocks together, {pooled_in.count(True)} of these {len(shifts)} are within "
            f"{measured.SUPPORT_MARGIN:g} points of their teachers and {pooled_in.count(False)} are not"
            + (
                f"; {pooled_in.count(None)} cannot be said (the judge fails the teacher on a block)"
                if None in pooled_in
                else ""
            )
            + "."
        )
    lines = [
        CONFIRM_START,
        "## Confirmation block",
        "",
        f"Model `{model_label}` (weights SHA-256 `{doc.get('weights_sha256', '')[:12]}...`), judged by "
        f"{doc.get('judge', JUDGE)}; measured {doc.get(CONFIRM_KEY + '_updated', '-')}. Rerun: `python -m model_server.evaluate --languages all --confirm` (or a list "
        "such as `de,id`).",
        "",
        "A round picks its weights among checkpoints by the held-out sentences above, so for a voice near its "
        f"{measured.SUPPORT_MARGIN:g}-point line the table above reads optimistically. The confirmation block is "
        "12 more everyday sentences per language (3 with digits; `model_server/data/heldout/confirm/<code>.txt`, "
        "never training text), scored the same way once on the weights after the pick. It decides nothing: "
        "`/voices` follows the held-out table. Its sentences' content words may occur in the word sentences of "
        "the training text, which the held-out sentences' do not, so if anything it reads the model kindly.",
        "",
        summary,
        "",
        "The gap on both blocks weighs each block's rates by its reference words (characters for ja): one sample "
        "of 36 sentences (`pooled_gap`).",
        "",
        "| language | voice | metric | teacher % held-out / confirm | model % held-out / confirm | gap held-out "
        "| gap confirm [95% CI] | gap, both blocks | status held-out | status on the confirmation block alone |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
        CONFIRM_END,
    ]
    return "\n".join(lines)


def pooled_gap(held: dict, confirm: dict) -> float | None:
    """The model's gap to its teacher on the held-out sentences and the confirmation block as one sample: each
    block's rates weighted by its reference units (words, or characters where the language writes no spaces),
    which the two blocks' entries imply exactly. None where either block lacks a gap, was scored on fewer
    sentences than it has (`--limit`, a sentence the teacher failed on), or the judge fails the teacher on
    either (above its ceiling a gap compares nothing)."""
    if held.get("gap") is None or confirm.get("gap") is None:
        return None
    if max(held["teacher_score"], confirm["teacher_score"]) > measured.JUDGE_CEILING:
        return None
    language = confirm["language"]
    blocks = [(held, _block_size(language, False)), (confirm, _block_size(language, True))]
    if any(e["sentences"] != n or e.get("teacher_failed") for e, (n, _) in blocks):
        return None
    units = sum(u for _, (_, u) in blocks)

    def rate(key: str) -> float:
        return sum(e[key] * u for e, (_, u) in blocks) / units

    return rate("model_score") - rate("teacher_score")


@functools.cache
def _block_size(language: str, confirm: bool) -> tuple[int, int]:
    """(sentences, reference units) of a language's held-out or confirmation block: the same for every voice in
    it, so the normalizer reads each block once per process."""
    sentences = heldout(language, confirm=confirm)
    return len(sentences), sum(len(score_units(s, language)) for s in sentences)


def _pair(held, confirm) -> str:
    return ("-" if held is None else f"{held:.1f}") + f" / {confirm:.1f}"


def replace_section(report: str, section: str, markers: tuple[str, str] = SECTION_MARKERS) -> str:
    """`report` with its section between `markers` (default: the per-language one) replaced by `section`. A
    report without it gets the confirmation block after its per-language section, and any other section
    before its first "## " heading (after the introduction); else at the end."""
    start, end = report.find(markers[0]), report.find(markers[1])
    if start >= 0 and end > start:
        return report[:start] + section + report[end + len(markers[1]) :]
    after = report.find(SECTION_END)
    if markers == CONFIRM_MARKERS and after >= 0:
        after += len(SECTION_END)
        return report[:after] + "\n\n" + section + report[after:]
    first = report.find("\n## ")
    if first >= 0:
        return report[: first + 1] + section + "\n\n" + report[first + 1 :]
    return report.rstrip("\n") + "\n\n" + section + "\n"


def existing_section(report: str, markers: tuple[str, str] = SECTION_MARKERS) -> str | None:
    """The section between `markers` (default: the per-language one) of an earlier report, to carry it over
    when the report is rewritten."""
    start, end = report.find(markers[0]), report.find(markers[1])
    return report[start : end + len(markers[1])] if start >= 0 and end > start else None


def run(args) -> int:
    """The `--languages` run of `python -m model_server.evaluate` (arguments parsed there)."""
    import torch

    from model_server.model.runtime import SpeechRuntime

    torch.set_num_threads(args.threads)
    confirm = getattr(args, "confirm", False)
    codes = language_codes(args.languages, confirm)
    rt = SpeechRuntime.load(args.model, vocoder_choice=args.vocoder)
    ev.ensure_eval_deps()
    asr = ev.WhisperJudge(threads=args.judge_threads)
    mos = None if args.no_mos else ev.MosJudge()
    cache = TranscriptCache(TRANSCRIPT_CACHE)
    key = CONFIRM_KEY if confirm else "voices"
    evaluate_languages(rt, asr, codes, args.limit, args.wav_dir, cache=cache, mos=mos, confirm=confirm,
                       on_language=lambda done: merge_results(Path(args.model), done, JUDGE, key))  # fmt: skip
    doc = measured.read_results(args.model)
    model_label = Path(args.model).resolve()
    try:
        model_label = model_label.relative_to(Path.cwd())
    except ValueError:
        pass
    write_report(args.report, doc, str(model_label), confirm)
    print(f"wrote {Path(args.model) / measured.EVALUATION_FILE} and {args.report}")
    return 0


def write_report(path: Path, doc: dict, model_label: str, confirm: bool = False) -> None:
    """The report at `path` with this run's section rendered from the evaluation file's `doc`: the per-language
    one, or (`confirm`) the confirmation block's. A held-out run renders the confirmation section again too
    where the report or the weights have one, so that its held-out columns and its weights are the table's."""
    report = path.read_text(encoding="utf-8") if path.is_file() else "# Evaluation of the shipped model\n"
    if not confirm:
        report = replace_section(report, render_section(doc, model_label))
    if confirm or doc.get(CONFIRM_KEY) or existing_section(report, CONFIRM_MARKERS):
        report = replace_section(report, render_confirm_section(doc, model_label), CONFIRM_MARKERS)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report, encoding="utf-8")


JUDGE = (
    "Whisper-base (CTranslate2 int8, faster-whisper, CPU, greedy at temperature 0, language forced, "
    f"no {ev.NO_REPEAT_NGRAM}-gram repeated)"
)
MOS_JUDGE = "DistillMOS (distillmos, ConvTransformerSQAModel, 16 kHz)"
# What the judge heard from each teacher, committed next to the held-out sentences: espeak-ng's audio of a
# sentence depends on what the process rendered before it, and Whisper-base's transcript with it, so teachers
# heard afresh on another machine can cross the judge ceiling (docs/model.md, "Evaluation", has the numbers).
TRANSCRIPT_CACHE = HELDOUT_DIR / "teacher-transcripts.json"

"""espeak-ng binding: phonemize() and synthesize_with_phonemes() must agree phoneme for phoneme."""

import json
import random
import string
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from model_server.frontend import espeak as E

SENTENCES = {
    "en-us": [
        "Hello world, this is a test.",
        "Okay?",
        "Nothing's church judge thing, then!",
        "The quick brown fox jumps over the lazy dog.",
        "With the greatest of ease, she climbed up.",
        "I can't believe it's already twelve o'clock; we're late.",
        "Where are you going tomorrow?",
        "Please call me back as soon as possible.",
        "The measure passed with a narrow majority.",
        "Thousands of people gathered in the square.",
        "He read the book that she had read before.",
        "Our usual route was closed, so we took the highway.",
        "Would you like some tea or coffee?",
        "The engineer measured the voltage twice.",
        "Yes, no, maybe: who knows.",
        "A bird in the hand is worth two in the bush.",
        "They're over there with their friends.",
        "Jazz music echoed through the azure sky.",
        "Pleasure and leisure aren't the same thing.",
        "Buy the boy a toy, and enjoy the joyful noise.",
        "Whose shoes are those?",
        "The genre of the film was hard to describe.",
        "Wow, that was an enormous pizza!",
        "She sells sea shells by the sea shore.",
        "We visited Paris, Berlin and Madrid.",
        "Running, jumping, and swimming are fun.",
        "Could you measure the azure hue?",
        "The thermometer showed freezing temperatures.",
        "Is it ok to be late?",
        "Oh. Ah! Hmm.",
    ],
    "de": [
        "Über die Brücke gehen wir heute Abend, ja.",
        "Ich habe keine Ahnung, was er meint.",
        "Guten Morgen, wie geht es Ihnen?",
        "Das Wetter ist heute sehr schön.",
        "Wir fahren morgen nach München.",
        "Die Kinder spielen im Garten.",
        "Können Sie mir bitte helfen?",
        "Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich.",
        "Ich möchte ein Glas Wasser, bitte.",
        "Der Zug hat zehn Minuten Verspätung.",
        "Eichhörnchen sammeln Nüsse im Herbst.",
        "Ach so, das wusste ich nicht!",
    ],
    "es": [
        "¿Dónde está el niño? Mañana llueve.",
        "El perro come carne y bebe agua.",
        "Buenos días, ¿cómo estás?",
        "La ciudad es muy grande y hermosa.",
        "Me gustaría un café con leche, por favor.",
        "El tren llega a las ocho.",
        "¡Qué sorpresa tan agradable!",
        "Los jóvenes juegan al fútbol en el parque.",
        "Ayer llovió todo el día.",
        "Quiero viajar a Argentina el próximo año.",
        "El zorro rápido salta sobre el perro perezoso.",
        "Hace mucho calor en julio.",
    ],
    "fr": [
        "Les amis sont arrivés à l'école, n'est-ce pas? Oui.",
        "Je ne sais pas pourquoi il est parti.",
        "Bonjour, comment allez-vous?",
        "Il fait très beau aujourd'hui.",
        "Nous allons au cinéma ce soir.",
        "Les enfants jouent dans le jardin.",
        "Pouvez-vous m'aider, s'il vous plaît?",
        "Le train arrive à huit heures.",
        "J'aimerais un café au lait.",
        "Quelle belle surprise!",
        "Les oiseaux chantent dans les arbres.",
        "Il y a beaucoup de monde dans la rue.",
    ],
}


@pytest.mark.parametrize("voice", sorted(SENTENCES))
def test_phonemize_matches_synthesis_events(voice):
    for sentence in SENTENCES[voice]:
        words = E.phonemize(sentence, voice)
        assert words, sentence
        flat = [p for w in words for p in w if not E.is_pause(p)]
        audio, sr, events = E.synthesize_with_phonemes(sentence, voice)
        assert sr == E.sample_rate() == 22050
        assert audio.dtype == np.int16 and len(audio) > sr // 4
        assert flat == E.speech_phonemes(events), sentence
        # Pauses only come from synthesis, at clause ends.
        assert any(E.is_pause(e.name) for e in events if isinstance(e, E.PhonemeEvent))


def test_events_are_ordered_and_durations_sum():
    audio, sr, events = E.synthesize_with_phonemes("Hello world, how are you today?", "en-us")
    samples = [e.sample for e in events]
    assert samples == sorted(samples)
    durs = E.phone_durations(events, len(audio))
    assert sum(d for _, d in durs) == len(audio)
    assert all(d >= 0 for _, d in durs)
    words = [e for e in events if isinstance(e, E.WordEvent)]
    text = "Hello world, how are you today?"
    assert [text[w.start : w.start + w.length] for w in words] == [
        "Hello",
        "world",
        "how",
        "are",
        "you",
        "today",
    ]


def test_word_events_count_characters_not_bytes():
    text = "Über die Brücke"
    _, _, events = E.synthesize_with_phonemes(text, "de")
    words = [text[w.start : w.start + w.length] for w in events if isinstance(w, E.WordEvent)]
    assert words == ["Über", "die", "Brücke"]


def test_stress_reported_separately():
    words = E.phonemize_detailed("Hello", "en-us")
    assert [p.name for p in words[0]] == ["h", "@", "l", "oU"]
    assert words[0][-1].stress == 2
    assert all("'" not in p.name and "," not in p.name for p in words[0])


def test_rate_changes_duration():
    slow, _, _ = E.synthesize_with_phonemes("The rain in Spain stays mainly in the plain.", "en-us", rate=100)
    fast, _, _ = E.synthesize_with_phonemes("The rain in Spain stays mainly in the plain.", "en-us", rate=300)
    assert len(slow) > 1.8 * len(fast)


def test_empty_and_control_text():
    assert E.phonemize("", "en-us") == []
    assert E.phonemize("  \x00\t ", "en-us") == []
    audio, sr, events = E.synthesize_with_phonemes("", "en-us")
    assert len(audio) == 0 and events == []
    assert E.phonemize("hi\x00there", "en-us")  # NUL must not truncate or crash


@pytest.mark.parametrize("bad", ["xx-nonexistent", "", "é"])
def test_unknown_voice_raises(bad):
    with pytest.raises(E.EspeakVoiceError):
        E.phonemize("hello", bad)
    # The library is still usable afterwards.
    assert E.phonemize("hello", "en-us")


@pytest.mark.parametrize("rate", [10, 1000, 1.5, True, "fast"])
def test_bad_rate_raises(rate):
    with pytest.raises(E.EspeakError):
        E.synthesize_with_phonemes("hello", "en-us", rate=rate)


def test_phone_durations_rejects_short_total():
    audio, _, events = E.synthesize_with_phonemes("hello", "en-us")
    with pytest.raises(E.EspeakError):
        E.phone_durations(events, 10)


def test_threads_do_not_mix_voices():
    results: dict[int, list] = {}
    ref = {"en-us": E.phonemize("Good morning everyone.", "en-us"), "de": E.phonemize("Guten Morgen.", "de")}

    def work(i: int) -> None:
        out = []
        for _ in range(20):
            out.append(E.phonemize("Good morning everyone.", "en-us") == ref["en-us"])
            out.append(E.phonemize("Guten Morgen.", "de") == ref["de"])
        results[i] = out

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(all(v) for v in results.values())


def test_many_voice_switches_do_not_disturb_synthesis_events():
    # Regression: voice changes queue wave-generator commands; without draining them, ~30 phonemize-only
    # switches made the next synthesis lose its first phoneme events.
    sentence = SENTENCES["de"][0]
    for _ in range(200):
        E.phonemize("The weather is nice today.", "en-us")
        E.phonemize("Das Wetter ist heute schön.", "de")
    flat = [p for w in E.phonemize(sentence, "de") for p in w if not E.is_pause(p)]
    _, _, events = E.synthesize_with_phonemes(sentence, "de")
    assert flat == E.speech_phonemes(events)


def test_ipa_one_string_per_clause_and_no_effect_on_phoneme_mode():
    assert E.phonemize_ipa("Hola, ¿cómo estás?", "es") == ["ˈola", "kˈomo estˈas"]
    assert E.phonemize_ipa("Guten Tag.", "de") == ["ɡˈuːtən tˈɑːk"]
    assert E.phonemize_ipa("\x00 \x07 ", "es") == []
    with pytest.raises(E.EspeakVoiceError):
        E.phonemize_ipa("Hola", "no-such-voice")
    # the IPA mode is per call: the mnemonics the frontend reads are unchanged after it
    assert E.phonemize("Guten Tag", "de") == [["g", "u:", "t", "@", "n"], ["t", "A:", "k"]]


_IPA_PAIRING = [  # the languages Kokoro reads espeak-ng's IPA in, Japanese and English
    ("Buenos días, gracias por llamar al servicio de atención al cliente.", "es"),
    ("Buongiorno, la consegna arriva giovedì ventitré alle quattordici.", "it"),
    ("Bom dia, o seu pedido chega na quinta-feira às catorze horas.", "pt"),
    ("Selamat pagi, pesanan Anda tiba hari Kamis pukul dua.", "id"),
    ("Guten Tag, wie kann ich Ihnen heute helfen? Zweiundvierzig Euro.", "de"),
    ("Bonjour, merci d'avoir appelé notre service client.", "fr"),
    ("Здравствуйте, сегодня двенадцать дней, хорошо.", "ru"),
    ("キョーワ ヨンジューニ エンデス.", "ja"),
    ("My card ending 4242 was charged twice, so I'd like a refund.", "en-us"),
]


@pytest.mark.parametrize("text,voice", _IPA_PAIRING)
def test_ipa_of_each_phoneme_is_the_clause_ipa_cut_at_the_phonemes(text, voice):
    """Kokoro reads IPA and is timed per phoneme (data/kokoro.py): each mnemonic gets its own piece of the IPA,
    and the pieces rebuild exactly what `phonemize_ipa` gives."""
    clauses = E.phonemize_with_ipa(text, voice)
    words = [word for clause in clauses for word in clause]
    assert [[phone for phone, _ in word] for word in words] == E.phonemize_detailed(text, voice)
    rebuilt = [" ".join("".join(ipa for _, ipa in word) for word in clause) for clause in clauses]
    assert rebuilt == E.phonemize_ipa(text, voice)
    with_ipa = [bool(ipa) for clause in clauses for word in clause for _, ipa in word]
    assert sum(with_ipa) >= 0.85 * len(with_ipa)  # the rest are silent marks: "_|", "@-", Russian ";"


def test_ipa_pairs_phonemes_one_to_one_and_merged_modifiers_get_none():
    (words,) = E.phonemize_with_ipa("Сегодня", "ru")
    assert [(p.name, ipa) for p, ipa in words[0]][-4:] == [("d", "d"), ("n", "nʲ"), (";", ""), ("V", "ʌ")]
    # Romanian's final "I^" is written into the "z;" before it
    (words,) = E.phonemize_with_ipa("astăzi", "ro")
    assert [(p.name, ipa) for p, ipa in words[0]][-2:] == [("z;", "zʲˌʲ"), ("I^", "")]
    # and Latvian's ">" into the vowel before it (the one held-out sentence in 58 languages that did not pair)
    (words,) = E.phonemize_with_ipa("e-pastu", "lv")
    assert [(p.name, ipa) for p, ipa in words[0]][:3] == [("e", "ˈeː"), (">", ""), ("_:", "")]
    (words,) = E.phonemize_with_ipa("Hola", "es")
    assert [(p.name, p.stress, ipa) for p, ipa in words[0]] == [("o", 2, "ˈo"), ("l", 0, "l"), ("a", 0, "a")]
    assert E.phonemize_with_ipa(" \x07 ", "es") == []
    with pytest.raises(E.EspeakError, match=r"\['k', 'a'\] and IPA \['k'\] do not pair"):
        E._pair_ipa(["k", "a"], ["k"])
    with pytest.raises(E.EspeakVoiceError):
        E.phonemize_with_ipa("Hola", "no-such-voice")


@pytest.mark.parametrize(
    "voice,tail", [("en-us", "in 2022 .."), ("hr", "godine 2022 .."), ("hr", "Dobar dan..")]
)
def test_a_call_never_reads_the_tail_of_the_one_before(voice, tail):
    """espeak-ng held back the word it read out of spaced punctuation ("dot", "točka") and gave it to the next
    call: a Croatian sentence ending in a year ("2022.") then broke the sentence after it in the IPA pairing
    (10 % of a jm_kumo render dropped), and any caller could read another's tail."""
    clean = (E.phonemize("yes", "en-us"), E.phonemize_ipa("yes", "en-us"), E.phonemize_with_ipa("ja", "hr"))
    for _ in range(2):
        E.phonemize(tail, voice)
        assert E.phonemize("yes", "en-us") == clean[0]
        E.phonemize_ipa(tail, voice)
        assert E.phonemize_ipa("yes", "en-us") == clean[1]
        assert E.phonemize_with_ipa(tail, voice)  # both modes of one call read the same words
        assert E.phonemize_with_ipa("ja", "hr") == clean[2]
    sentence = "2 indijske rupije i ponedjeljak, sedmog veljače 2022 .."  # from the failed render
    words = [w for clause in E.phonemize_with_ipa(sentence, "hr") for w in clause]
    assert len(words) == len(E.phonemize(sentence, "hr")) == 10


# Inputs that made espeak-ng overflow a stack buffer and abort the process before `_clean` (an API worker
# phonemizes client text in its own process: one such request took it down).
_DOTTED_CRASHES = [
    "".join(random.Random(0).choice(string.ascii_uppercase) + "." for _ in range(2400)),  # one long run
    "a.b.c.d. " * 60,  # many short lower-case runs in one clause
    "a." * 1000,
    "é." * 1000,
    "a.a.a.a., " * 300,
]


def test_letters_with_dots_do_not_abort_espeak():
    """In a child process, as a crash there would end the test run: every input phonemizes, in several
    languages, and the process exits normally."""
    code = (
        "import json, sys\n"
        "from model_server.frontend import espeak\n"
        "for text in json.loads(sys.stdin.read()):\n"
        "    for voice in ('en-us', 'de', 'ru', 'fr'):\n"
        "        assert espeak.phonemize(text, voice)\n"
        "print('phonemized')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], input=json.dumps(_DOTTED_CRASHES), capture_output=True,
                          text=True, timeout=300, cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    assert proc.returncode == 0 and "phonemized" in proc.stdout, proc.stderr[-2000:]


def test_dotted_letters_read_as_before():
    """Capitals and groups do not change what espeak-ng says for the initialisms text holds: the cleaned
    text phonemizes as the raw text does in the engine itself."""
    engine = E._get()
    for voice, text in (("en-us", "at two p.m. today"), ("en-us", "the u.s. army, i.e. us"),
                        ("en-us", "the F.B.I. agent"), ("de", "z.b. heute")):  # fmt: skip
        with engine.lock:
            engine.set_voice(voice)
            raw = engine.text_to_phonemes(text)
        assert E.phonemize(text, voice) == [[p.name for p in word] for word in raw], text
    assert E._clean("A." * 40) == " ".join(["A." * E.DOTTED_LETTERS_MAX] * 2 + ["A." * 8])
    assert E._clean("a.b.") == "A.B."

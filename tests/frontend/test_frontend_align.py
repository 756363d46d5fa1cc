"""Duration alignment of frontend tokens to teacher (Festival-style) segments."""

import random

import pytest

from model_server.frontend import Frontend, units_to_symbols
from model_server.frontend.align import AlignmentError, align, align_durations
from model_server.frontend.symbols import ARPABET


def test_identical_sequences_with_boundaries():
    tokens = ["<pause>", "hh", "ax", "l", "ow", "<wb>", "w", "er", "l", "d", "<pause>"]
    phones = ["pau", "hh", "ax", "l", "ow", "w", "er", "l", "d", "pau"]
    frames = [10, 5, 4, 6, 12, 5, 10, 6, 7, 20]
    a = align(tokens, phones, frames)
    assert a.durations == [10, 5, 4, 6, 12, 0, 5, 10, 6, 7, 20]
    assert a.exact_rate == 1.0 and a.cost_per_phone == 0.0 and a.is_good()


def test_hand_made_mismatches():
    # Frontend says "car" as k aa r with a reduced vowel "ah" where the teacher has "ax"; the teacher
    # pauses between the words and has an extra "t" the frontend lacks.
    tokens = ["<pause>", "k", "aa", "r", "<wb>", "ah", "b", "aw", "<.>", "<pause>"]
    phones = ["pau", "k", "aa", "pau", "ax", "b", "aw", "t", "pau"]
    frames = [8, 6, 14, 9, 4, 5, 12, 3, 30]
    a = align(tokens, phones, frames)
    d = a.durations
    assert sum(d) == sum(frames)
    assert d[0] == 8 and d[1] == 6
    assert d[2] + d[3] == 14 and d[3] > 0  # "r" had no segment: it shares "aa"'s frames
    assert d[4] == 9  # the mid pause goes to the word boundary
    assert d[5] == 4  # ah ~ ax (same class)
    assert d[7] == 12 + 3  # the extra teacher "t" is donated to its neighbour "aw"
    assert d[8] + d[9] == 30  # the final pause lands on the sentence-end tokens
    assert 0.6 < a.exact_rate < 1.0


def test_pause_prefers_punctuation_token():
    tokens = ["hh", "ay", "<,>", "dh", "eh", "r"]
    phones = ["hh", "ay", "pau", "dh", "eh", "r"]
    assert align_durations(tokens, phones, [3, 9, 15, 2, 8, 6]) == [3, 9, 15, 2, 8, 6]


def test_pause_without_pause_token_goes_to_previous_phone():
    assert align_durations(["s", "ow"], ["s", "ow", "pau"], [5, 10, 7]) == [5, 17]
    assert align_durations(["s", "ow"], ["pau", "s", "ow"], [7, 5, 10]) == [12, 10]


def test_unrelated_sequences_score_badly():
    a = align(["p", "t", "k", "s"], ["aa", "iy", "uw", "m", "n"], [5, 5, 5, 5, 5])
    assert sum(a.durations) == 25
    assert not a.is_good()


def test_real_frontend_tokens_against_festival_like_segments():
    tokens = units_to_symbols(Frontend("en").text_to_units("Hello world, this is a test."))
    festival = [
        "pau",
        "hh",
        "ax",
        "l",
        "ow",
        "w",
        "er",
        "l",
        "d",
        "pau",
        "dh",
        "ih",
        "s",
        "ih",
        "z",
        "ax",
        "t",
        "eh",
        "s",
        "t",
        "pau",
    ]
    frames = [20] + [7] * 8 + [15] + [6] * 10 + [25]
    a = align(tokens, festival, frames)
    assert sum(a.durations) == sum(frames)
    assert a.is_good(), (tokens, a.exact_rate, a.cost_per_phone)
    # Every phone token has frames.
    assert all(d > 0 for t, d in zip(tokens, a.durations, strict=True) if t in ARPABET)


def test_sum_is_preserved_on_random_inputs():
    rng = random.Random(3)
    pool = list(ARPABET) + ["<wb>", "<,>", "<pause>"]
    for _ in range(200):
        tokens = [rng.choice(pool) for _ in range(rng.randint(1, 25))]
        phones = [rng.choice(list(ARPABET) + ["pau"]) for _ in range(rng.randint(0, 25))]
        frames = [rng.randint(0, 30) for _ in phones]
        d = align_durations(tokens, phones, frames)
        assert len(d) == len(tokens) and sum(d) == sum(frames) and min(d) >= 0


@pytest.mark.parametrize(
    ("tokens", "phones", "frames", "msg"),
    [
        ([], ["aa"], [3], "tokens is empty"),
        (["aa"], ["aa", "b"], [3], "teacher_phones has 2"),
        (["aa"], ["aa"], [-1], "non-negative"),
        (["aa"], ["aa"], [2.5], "non-negative int"),
    ],
)
def test_bad_inputs(tokens, phones, frames, msg):
    with pytest.raises(AlignmentError, match=msg):
        align_durations(tokens, phones, frames)

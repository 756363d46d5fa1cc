"""The text mix the load generator speaks: what a voice agent actually sends a TTS service.

Three kinds, drawn with fixed weights from a seeded generator so two runs send the same requests:
- `turn`: short agent turns (one or two sentences): most of a voice agent's traffic and where
  time to first audio matters most;
- `numbers`: amounts, dates, times, phone and order numbers, which the text normalizer expands
  (more phones per character than plain text);
- `paragraph`: long explanations, which keep a stream busy for many seconds and expose stalls.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

MIX_WEIGHTS = {"turn": 0.5, "numbers": 0.25, "paragraph": 0.25}

_TURNS = [
    "Sure, I can help with that.",
    "Got it. Let me check that for you.",
    "Thanks for waiting. I found your booking.",
    "Could you repeat the last part, please?",
    "Absolutely. Is there anything else I can do for you today?",
    "I'm sorry, that slot is taken. Would the afternoon work instead?",
    "Okay, your request has been submitted.",
    "Hello! You've reached the support line. How can I help?",
    "That's right, the change takes effect from tomorrow morning.",
    "One moment while I transfer you to a specialist.",
    "Great, I've sent the confirmation to your email address.",
    "No problem at all. Have a lovely evening!",
]

_PARAGRAPHS = [
    "Before we start, let me explain how the refund works. Once the returned item reaches our warehouse, "
    "it is inspected within two working days. If everything is in order, the refund goes back to the "
    "original payment method, and your bank may take a few more days to show it on your statement. "
    "You will get an email at each step, so you always know where things stand.",
    "The new plan includes unlimited calls within the country, a generous data allowance that rolls over "
    "when you do not use it, and free roaming in most of Europe. If you travel further afield, you can "
    "add a travel pass for the days you need it, and it switches itself off when you come home. There is "
    "no contract, so you can change or cancel the plan at the end of any month.",
    "To reset the router, find the small button on the back, next to the power socket. Press and hold it "
    "with a paper clip for about ten seconds, until the lights on the front start to flash. Then wait for "
    "the lights to settle, which usually takes two or three minutes. After that, connect to the network "
    "name printed on the sticker underneath, using the password shown there.",
    "Our clinic is open on weekdays from early morning until the evening, and on Saturday mornings. "
    "Please arrive a few minutes before your appointment, bring a list of any medicines you take, and "
    "let the front desk know if your contact details have changed. If you cannot make it, call us as "
    "soon as possible so that we can offer the time to another patient.",
    "The storm is expected to move in from the west late tonight, bringing heavy rain and strong gusts "
    "along the coast. Inland, temperatures will drop sharply, and there may be ice on untreated roads by "
    "the morning. Travel will be slower than usual, so allow extra time, check for delays before you set "
    "off, and keep a warm coat and a charged phone with you.",
]

_NAMES = ["Alex", "Maria", "Jordan", "Priya", "Sam", "Chen", "Fatima", "Lucas"]
_MONTHS = ["January", "March", "April", "June", "August", "October", "November", "December"]


def _numbers_text(rng: random.Random) -> str:
    templates = [
        lambda: f"Your balance is ${rng.randint(10, 9999)}.{rng.randint(0, 99):02d}.",
        lambda: (
            f"Your order number is {rng.randint(100000, 999999)}, placed on {rng.choice(_MONTHS)} "
            f"{rng.randint(1, 28)}, {rng.randint(2019, 2026)}."
        ),
        lambda: (
            f"The appointment with {rng.choice(_NAMES)} is at {rng.randint(1, 12)}:{rng.choice(['00', '15', '30', '45'])} "
            f"on the {rng.randint(1, 28)}th."
        ),
        lambda: f"Please call us back on 555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}.",
        lambda: (
            f"That comes to {rng.randint(2, 40)} items at ${rng.randint(1, 99)}.{rng.randint(0, 99):02d} "
            f"each, {rng.randint(5, 25)}% off."
        ),
        lambda: (
            f"Flight {rng.choice('ABCDU')}{rng.choice('ALXY')} {rng.randint(10, 2999)} departs at "
            f"{rng.randint(6, 23)}:{rng.randint(0, 59):02d} from gate {rng.randint(1, 60)}."
        ),
    ]
    return rng.choice(templates)()


@dataclass(frozen=True)
class TextItem:
    kind: str  # "turn", "numbers" or "paragraph"
    text: str


class TextMix:
    """An endless, reproducible sequence of request texts following MIX_WEIGHTS."""

    def __init__(self, seed: int = 0):
        self._rng = random.Random(seed)
        self._kinds = list(MIX_WEIGHTS)
        self._weights = [MIX_WEIGHTS[k] for k in self._kinds]

    def next(self) -> TextItem:
        kind = self._rng.choices(self._kinds, self._weights)[0]
        if kind == "turn":
            # One or two sentences, as an agent's reply usually is.
            text = " ".join(self._rng.sample(_TURNS, self._rng.choice([1, 1, 2])))
        elif kind == "numbers":
            text = _numbers_text(self._rng)
        else:
            text = self._rng.choice(_PARAGRAPHS)
        return TextItem(kind, text)


def split_for_continuation(text: str, words_per_piece: int = 4) -> list[str]:
    """Split text into word groups as an LLM would stream it, each piece keeping its trailing space.

    Joining the pieces gives back the text exactly, so the server hears the same words.
    """
    if words_per_piece < 1:
        raise ValueError(f"words_per_piece must be >= 1, got {words_per_piece}")
    words = text.split(" ")
    pieces = []
    for i in range(0, len(words), words_per_piece):
        group = words[i : i + words_per_piece]
        last = i + words_per_piece >= len(words)
        pieces.append(" ".join(group) + ("" if last else " "))
    return [p for p in pieces if p]

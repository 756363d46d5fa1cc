"""Give each frontend token its share of a teacher's frames.

The English teacher (Festival: us_slt_hts, kal_diphone) has its own lexicon, so its segment sequence
("radio" ARPAbet plus `pau`) differs here and there from the frontend's espeak-derived tokens: reduced
vowels, r-coloured vowels, flaps, dropped or added phones. A Needleman-Wunsch alignment with
phonetically informed costs pairs them up:

* a token and a segment of the same phone cost 0, of the same broad class (vowel/vowel, stop/stop)
  `SAME_CLASS`, otherwise `OTHER_CLASS`;
* teacher pauses pair for free with pause-like tokens (word boundary, pause, punctuation) and never
  with phones;
* a token without a segment costs `TOKEN_GAP` (free for pause-like tokens: most word boundaries have
  no silence), a segment without a token `SEGMENT_GAP` (`PAUSE_GAP` for a pause).

Frames of unpaired segments go to a neighbouring token (a pause to an adjacent pause-like token when
there is one), and a phone token left with no frames takes half of its larger phone neighbour's
frames, so every phone is audible and the sum is exactly the teacher's. The same function aligns any
symbol sequences of this inventory, e.g. espeak-ng teacher events mapped to symbols.
"""

from __future__ import annotations

from dataclasses import dataclass

from .symbols import PAD, PAUSE, PUNCTUATION, WORD_BOUNDARY, broad_class

__all__ = ["AlignmentError", "Alignment", "align", "align_durations", "is_pause_token", "TEACHER_PAUSES"]

SAME_CLASS = 1.0
OTHER_CLASS = 2.5
PHONE_VS_PAUSE = 50.0  # effectively forbidden; a gap pair is always cheaper
TOKEN_GAP = 2.0
SEGMENT_GAP = 2.0
PAUSE_GAP = 1.0

# Teacher segment names meaning silence: Festival `pau`/`sil`/`h#`, espeak-ng pauses, our pause symbol.
TEACHER_PAUSES = frozenset({"pau", "sil", "h#", "#", "_", "ssil", "sp", PAUSE})
_PAUSE_TOKENS = frozenset({WORD_BOUNDARY, PAUSE, PAD, *PUNCTUATION.values()})


class AlignmentError(ValueError):
    """Inputs to the aligner are inconsistent (lengths, negative frames, empty token list)."""


@dataclass(frozen=True)
class Alignment:
    """Result of `align`.

    durations: frames per token (sums to the teacher's total).
    pairs: (token index or None, segment index or None) along the alignment path.
    exact_rate: exact phone matches / max(phone tokens, teacher phones): 1.0 is perfect agreement.
    cost_per_phone: alignment cost / max(phone tokens, teacher phones).
    """

    durations: list[int]
    pairs: list[tuple[int | None, int | None]]
    exact_rate: float
    cost_per_phone: float

    def is_good(self, min_exact_rate: float = 0.75, max_cost_per_phone: float = 0.6) -> bool:
        """Default thresholds for dropping training utterances: on 60 generated sentences against Festival
        us_slt_hts, exact_rate was 0.88-1.0 (mean 0.96) and cost_per_phone about 0.04."""
        return self.exact_rate >= min_exact_rate and self.cost_per_phone <= max_cost_per_phone


def is_pause_token(token: str) -> bool:
    return token in _PAUSE_TOKENS


def _is_teacher_pause(seg: str) -> bool:
    return seg in TEACHER_PAUSES or seg.startswith("_")


def _sub_cost(token: str, seg: str, token_pause: bool, seg_pause: bool) -> float:
    if token_pause or seg_pause:
        return 0.0 if token_pause and seg_pause else PHONE_VS_PAUSE
    if token == seg:
        return 0.0
    tc, sc = broad_class(token), broad_class(seg)
    return SAME_CLASS if tc is not None and tc == sc else OTHER_CLASS


def align(tokens: list[str], teacher_phones: list[str], teacher_frames: list[int]) -> Alignment:
    """Align `tokens` to the teacher's segments and distribute `teacher_frames` over the tokens."""
    if not tokens:
        raise AlignmentError("tokens is empty: nothing to give the teacher's frames to")
    if len(teacher_phones) != len(teacher_frames):
        raise AlignmentError(
            f"teacher_phones has {len(teacher_phones)} entries but teacher_frames has {len(teacher_frames)}"
        )
    for j, f in enumerate(teacher_frames):
        if isinstance(f, bool) or not isinstance(f, int) or f < 0:
            raise AlignmentError(f"teacher_frames[{j}] = {f!r} is not a non-negative int")
    n, m = len(tokens), len(teacher_phones)
    tpause = [is_pause_token(t) for t in tokens]
    spause = [_is_teacher_pause(s) for s in teacher_phones]
    tgap = [0.0 if p else TOKEN_GAP for p in tpause]
    sgap = [PAUSE_GAP if p else SEGMENT_GAP for p in spause]

    # cost[i][j]: best cost of aligning tokens[:i] with segments[:j]; back: 0 diag, 1 up (token gap),
    # 2 left (segment gap).
    inf = float("inf")
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    back = [[0] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0.0
    for i in range(1, n + 1):
        cost[i][0] = cost[i - 1][0] + tgap[i - 1]
        back[i][0] = 1
    for j in range(1, m + 1):
        cost[0][j] = cost[0][j - 1] + sgap[j - 1]
        back[0][j] = 2
    for i in range(1, n + 1):
        tok, tp, tg = tokens[i - 1], tpause[i - 1], tgap[i - 1]
        row, prev = cost[i], cost[i - 1]
        brow = back[i]
        for j in range(1, m + 1):
            diag = prev[j - 1] + _sub_cost(tok, teacher_phones[j - 1], tp, spause[j - 1])
            up = prev[j] + tg
            left = row[j - 1] + sgap[j - 1]
            if diag <= up and diag <= left:
                row[j], brow[j] = diag, 0
            elif up <= left:
                row[j], brow[j] = up, 1
            else:
                row[j], brow[j] = left, 2
    pairs: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i > 0 or j > 0:
        b = back[i][j]
        if b == 0:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif b == 1:
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    pairs.reverse()

    durations = _distribute(pairs, tokens, tpause, spause, teacher_frames)
    n_phone_tokens = sum(1 for p in tpause if not p)
    n_teacher_phones = sum(1 for p in spause if not p)
    denom = max(n_phone_tokens, n_teacher_phones, 1)
    exact = sum(
        1
        for a, b in pairs
        if a is not None and b is not None and not tpause[a] and tokens[a] == teacher_phones[b]
    )
    return Alignment(durations, pairs, exact / denom, cost[n][m] / denom)


def _distribute(pairs, tokens, tpause, spause, frames) -> list[int]:
    n = len(tokens)
    durations = [0] * n
    # Token index at or before each path position (previous) and at or after (next).
    prev_tok: list[int | None] = []
    last = None
    for a, _ in pairs:
        if a is not None:
            last = a
        prev_tok.append(last)
    next_tok: list[int | None] = [None] * len(pairs)
    nxt = None
    for k in range(len(pairs) - 1, -1, -1):
        a = pairs[k][0]
        if a is not None:
            nxt = a
        next_tok[k] = nxt
    for k, (a, b) in enumerate(pairs):
        if b is None:
            continue
        if a is not None:
            durations[a] += frames[b]
            continue
        before, after = prev_tok[k], next_tok[k]
        if spause[b]:
            # A pause with no pause token: an adjacent pause-like token, else the phone before it.
            if after is not None and tpause[after] and (before is None or not tpause[before]):
                target = after
            else:
                target = before if before is not None else after
        else:
            target = before if before is not None else after
        durations[target] += frames[b]
    # A phone with no frames would be skipped: split the larger neighbouring phone with it.
    for t in range(n):
        if tpause[t] or durations[t] > 0:
            continue
        nbrs = [u for u in (t - 1, t + 1) if 0 <= u < n and not tpause[u] and durations[u] >= 2]
        if nbrs:
            u = max(nbrs, key=lambda x: durations[x])
            give = durations[u] // 2
            durations[u] -= give
            durations[t] += give
    return durations


def align_durations(tokens: list[str], teacher_phones: list[str], teacher_frames: list[int]) -> list[int]:
    """Frames per token; the sum equals sum(teacher_frames). See `align` for the quality scores."""
    return align(tokens, teacher_phones, teacher_frames).durations

"""Fixtures for the model tests: a tiny synthetic dataset in the data helper's format."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from model_server import vocoder
from model_server.data.dataset import write_voice


class _Spec:
    def __init__(self, vid, language, gender):
        self.id, self.language, self.gender = vid, language, gender

    def metadata(self):
        return {
            "id": self.id,
            "name": self.id,
            "language": self.language,
            "gender": self.gender,
            "description": "synthetic test voice",
            "teacher": "none",
        }


def make_dataset(
    root, voices=(("en_female_slt", "en", "female"), ("en_male_kal", "en", "male")), n_utts=24, seed=0
):
    """Utterances of English phones with plausible feature rows (per-phone constant + noise)."""
    rng = np.random.default_rng(seed)
    phones = ["aa", "b", "k", "s", "iy", "t", "m", "ow", "<wb>"]
    for vid, lang, gender in voices:
        utts, feats, off = [], [], 0
        for i in range(n_utts):
            syms = (
                ["<pause>"] + [phones[j] for j in rng.integers(0, len(phones), rng.integers(5, 20))] + ["<.>"]
            )
            durs = [int(x) for x in rng.integers(1, 12, len(syms))]
            n = sum(durs)
            f = np.zeros((n, vocoder.FEATURE_DIM), np.float32)
            pos = 0
            for s, d in zip(syms, durs, strict=True):
                f[pos : pos + d, vocoder.LF0] = np.log(120 + 10 * (hash(s) % 10))
                f[pos : pos + d, vocoder.VUV] = float(s in ("aa", "iy", "ow", "m", "b"))
                f[pos : pos + d, vocoder.ENV] = -10 + (hash(s) % 7) + rng.normal(0, 0.1, (d, vocoder.N_ENV))
                f[pos : pos + d, vocoder.AP] = 0.2
                pos += d
            utts.append(
                {
                    "id": f"{vid}-{i}",
                    "text": "x",
                    "language": lang,
                    "voice": vid,
                    "symbols": syms,
                    "durations": durs,
                    "n_frames": n,
                    "frame_offset": off,
                }
            )
            feats.append(f)
            off += n
        write_voice(root, _Spec(vid, lang, gender), utts, feats)
    return root


@pytest.fixture
def dataset_factory():
    return make_dataset


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny ops on a shared 2-core machine: intra-op threads only add barrier waits (10x slower)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)

"""`python -m model_server.average`: one model directory from the weighted mean of several.

    python -m model_server.average --out runs/r30/export runs/r29/export runs/r29b/export
    python -m model_server.average --out DIR --weights 0.7,0.3 A B

Fine-tunes of one ancestor lie in one basin of the loss, and the mean of their weights (a "model soup",
Wortsman et al., ICML 2022) usually keeps what each gained: round 30's shipped weights are the mean of two
short runs that each lost one voice the other kept (docs/model.md). The inputs must agree on everything but
the weights: model hyperparameters, symbol inventory, voices (and their speaker rows), the frontend's
rules. One exception: a fine-tune that added voices can be averaged with its parent. The parent gets the new
voices' speaker rows as fine-tuning started them (the mean of its rows, `train.extend_voices`), so the mean
holds each new voice halfway between that start and what the fine-tune learned (round 32: round 31's
Romanian with round 30). The first input's voice settings (post-filters) are kept; `extra.averaged` records
what went in, and which voices each input was given.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Sequence
from pathlib import Path

from model_server.model import checkpoint
from model_server.model.checkpoint import Checkpoint, ModelLoadError, VoiceInfo
from model_server.train import extend_voices


def _identity(ck: Checkpoint) -> dict:
    """What two checkpoints must share to be averaged (everything but the weights and voice settings); the
    voices first, so that different voices are named as such rather than as a different speaker count."""
    return {
        "voices": _voice_rows(ck),
        "model": ck.config.to_dict(),
        "symbols": ck.symbols,
        "frontend": ck.length_marks,
    }


def _voice_rows(ck: Checkpoint) -> list[tuple[str, str, int]]:
    return [(v.info.id, v.info.language, v.speaker) for v in ck.voices]


def _sha256(model_dir: Path) -> str:
    return hashlib.sha256((model_dir / checkpoint.WEIGHTS_FILE).read_bytes()).hexdigest()


def parse_weights(spec: str, n: int) -> list[float]:
    """'0.7,0.3' -> [0.7, 0.3], normalized to sum 1; '' -> equal weights."""
    if not spec:
        return [1.0 / n] * n
    try:
        weights = [float(w) for w in spec.split(",")]
    except ValueError:
        raise ValueError(f"--weights must be numbers separated by commas, got {spec!r}") from None
    if len(weights) != n:
        raise ValueError(f"--weights gives {len(weights)} weights for {n} model directories")
    if any(not w >= 0 for w in weights) or sum(weights) <= 0:
        raise ValueError(f"--weights must be non-negative with a positive sum, got {spec!r}")
    total = sum(weights)
    return [w / total for w in weights]


def average(
    model_dirs: Sequence[str | Path], out: str | Path, weights: Sequence[float] | None = None
) -> Path:
    """Write the weighted mean of `model_dirs` to `out`; raises ModelLoadError when they disagree."""
    dirs = [Path(d) for d in model_dirs]
    if len(dirs) < 2:
        raise ValueError("averaging needs at least two model directories")
    weights = list(weights) if weights is not None else [1.0 / len(dirs)] * len(dirs)
    if len(weights) != len(dirs):
        raise ValueError(f"{len(weights)} weights for {len(dirs)} model directories")
    loaded = [checkpoint.load(d) for d in dirs]
    widest = max(loaded, key=lambda ck: len(ck.voices))
    added = [_missing_voices(ck, widest) for ck in loaded]
    cks = [extend_voices(ck, new) if new else ck for ck, new in zip(loaded, added, strict=True)]
    first = cks[0]
    want = _identity(first)
    summed = {k: t.double() * weights[0] for k, t in first.model.state_dict().items()}
    for d, ck, w in zip(dirs[1:], cks[1:], weights[1:], strict=True):
        got = _identity(ck)
        for field, value in want.items():
            if got[field] != value:
                raise ModelLoadError(
                    f"{d} differs from {dirs[0]} in its {field}: only fine-tunes of one model can be averaged"
                )
        for k, t in ck.model.state_dict().items():
            summed[k] += t.double() * w
    first.model.load_state_dict({k: t.float() for k, t in summed.items()})
    first.extra = {
        "averaged": [
            {"model_dir": str(d), "weight": w, "sha256": _sha256(d), "extra": ck.extra}
            | ({"added_voices": [v.id for v in new]} if new else {})
            for d, w, ck, new in zip(dirs, weights, loaded, added, strict=True)
        ]
    }
    return checkpoint.save(first, out)


def describe(extra: dict) -> str | None:
    """One line on how weights this module wrote were made (from their config's `extra`, the record `average`
    writes): each input's share, directory, weights hash and own run; None for weights it did not write."""
    record = extra.get("averaged")
    if not record:
        return None

    def one(a: dict) -> str:
        run = a["extra"]
        facts = [f"weights {a['sha256'][:12]}..."]
        facts += [f"{run['trained_minutes']} min, step {run['step']}"] if "step" in run else []
        return f"{a['weight']:g} x `{a['model_dir']}` ({', '.join(facts)})"

    inputs = "; ".join(one(a) for a in record)
    return f"the weighted mean of {len(record)} fine-tunes (`python -m model_server.average`): {inputs}"


def _missing_voices(ck: Checkpoint, widest: Checkpoint) -> list[VoiceInfo]:
    """The voices `widest` added after all of `ck`'s (same ids and speaker rows, in order), which `ck` gets as
    a fine-tune would start them; none where `ck` is not its parent that way (the identity check then names
    the difference)."""
    mine, theirs = _voice_rows(ck), _voice_rows(widest)
    if len(theirs) <= len(mine) or theirs[: len(mine)] != mine:
        return []
    return [v.info for v in widest.voices[len(mine) :]]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m model_server.average", description=__doc__.split("\n\n")[0])
    p.add_argument("model_dirs", nargs="+", type=Path, help="model directories (fine-tunes of one model)")
    p.add_argument("--out", type=Path, required=True, help="model directory to write")
    p.add_argument("--weights", default="", help="comma-separated weights, one per input (default: equal)")
    args = p.parse_args(argv)
    try:
        weights = parse_weights(args.weights, len(args.model_dirs))
        out = average(args.model_dirs, args.out, weights)
    except (ValueError, ModelLoadError) as e:
        p.error(str(e))
    print(
        f"wrote {out} (the mean of {len(args.model_dirs)}: weights {', '.join(f'{w:.3g}' for w in weights)})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

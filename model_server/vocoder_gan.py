"""Discriminators for the learned vocoder's GPU training (`train_vocoder.py --gan`).

Reconstruction losses teach the vocoder the teacher's magnitudes, and its phase where the features predict
it; what they cannot teach is a phase that sounds natural where the features leave it open, which is what
docs/model.md found the rule-based vocoder losing. An adversary can: HiFi-GAN's multi-period discriminator
(waveform folded by periods 2, 3, 5, 7, 11) and Vocos's multi-resolution discriminator (STFT magnitudes at
three resolutions), with hinge losses and feature matching, as Vocos trains. Only training uses them.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

PERIODS = (2, 3, 5, 7, 11)
RESOLUTIONS = ((512, 128), (1024, 256), (2048, 512))  # (n_fft, hop) at 24 kHz
FEATURE_MATCHING = 2.0
ADVERSARIAL = 1.0


def _wn(module: torch.nn.Module) -> torch.nn.Module:
    return torch.nn.utils.parametrizations.weight_norm(module)


def _score(convs: torch.nn.ModuleList, last: torch.nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, list]:
    """(scores [B, N], every layer's activations for feature matching) of a stack of 2-D convolutions."""
    features = []
    for conv in convs:
        x = F.leaky_relu(conv(x), 0.1)
        features.append(x)
    x = last(x)
    features.append(x)
    return x.flatten(1), features


class PeriodDiscriminator(torch.nn.Module):
    """Audio [B, N] folded to [B, 1, N / p, p]: 2-D convolutions along time, one column per phase of p."""

    def __init__(self, period: int, channels: int = 32):
        super().__init__()
        self.period = period
        widths = (1, channels, 4 * channels, 16 * channels, 32 * channels)
        self.convs = torch.nn.ModuleList(
            _wn(torch.nn.Conv2d(a, b, (5, 1), (3, 1), padding=(2, 0)))
            for a, b in zip(widths[:-1], widths[1:], strict=True)
        )
        self.last = _wn(torch.nn.Conv2d(widths[-1], 1, (3, 1), padding=(1, 0)))

    def forward(self, audio: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        b, n = audio.shape
        pad = (-n) % self.period
        x = F.pad(audio, (0, pad), mode="reflect" if pad < n else "constant").view(b, 1, -1, self.period)
        return _score(self.convs, self.last, x)


class ResolutionDiscriminator(torch.nn.Module):
    """Log STFT magnitude [B, 1, frames, bins] through 2-D convolutions."""

    def __init__(self, n_fft: int, hop: int, channels: int = 32):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.convs = torch.nn.ModuleList(
            [
                _wn(torch.nn.Conv2d(1, channels, (7, 5), (2, 2), padding=(3, 2))),
                _wn(torch.nn.Conv2d(channels, channels, (5, 3), (2, 1), padding=(2, 1))),
                _wn(torch.nn.Conv2d(channels, channels, (5, 3), (2, 2), padding=(2, 1))),
                _wn(torch.nn.Conv2d(channels, channels, 3, (2, 1), padding=1)),
                _wn(torch.nn.Conv2d(channels, channels, 3, (2, 2), padding=1)),
            ]
        )
        self.last = _wn(torch.nn.Conv2d(channels, 1, 3, padding=1))

    def forward(self, audio: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
        window = torch.hann_window(self.n_fft, device=audio.device)
        spec = torch.stft(audio, self.n_fft, self.hop, window=window, return_complex=True).abs()
        return _score(self.convs, self.last, torch.log(spec.clamp_min(1e-5)).transpose(1, 2).unsqueeze(1))


class Discriminators(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.members = torch.nn.ModuleList(
            [PeriodDiscriminator(p) for p in PERIODS]
            + [ResolutionDiscriminator(n, h) for n, h in RESOLUTIONS]
        )

    def forward(self, audio: torch.Tensor) -> list[tuple[torch.Tensor, list[torch.Tensor]]]:
        return [member(audio) for member in self.members]


class Adversary:
    """The discriminators, their optimizer and the losses: one discriminator step per generator step."""

    def __init__(self, device: torch.device, lr: float):
        self.model = Discriminators().to(device)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=lr, betas=(0.8, 0.99), weight_decay=0.01)

    def step_discriminator(self, fake: torch.Tensor, real: torch.Tensor) -> float:
        """Hinge loss: real scores above 1, generated below -1."""
        loss = fake.new_zeros(())
        for (real_score, _), (fake_score, _) in zip(self.model(real), self.model(fake), strict=True):
            loss = loss + F.relu(1 - real_score).mean() + F.relu(1 + fake_score).mean()
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        self.opt.step()
        return float(loss.detach())

    def generator_loss(self, fake: torch.Tensor, real: torch.Tensor, parts: dict) -> torch.Tensor:
        """Adversarial (hinge) plus feature matching; both are added to ``parts`` for the log."""
        with torch.no_grad():
            real_out = self.model(real)
        adversarial, matching = fake.new_zeros(()), fake.new_zeros(())
        for (score, feats), (_, real_feats) in zip(self.model(fake), real_out, strict=True):
            adversarial = adversarial + F.relu(1 - score).mean()
            matching = matching + sum(F.l1_loss(f, r) for f, r in zip(feats, real_feats, strict=True)) / len(
                feats
            )
        parts["adversarial"], parts["feature_matching"] = adversarial.detach(), matching.detach()
        return ADVERSARIAL * adversarial + FEATURE_MATCHING * matching

    def state_dict(self) -> dict:
        return {"model": self.model.state_dict(), "optimizer": self.opt.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        self.model.load_state_dict(state["model"])
        self.opt.load_state_dict(state["optimizer"])

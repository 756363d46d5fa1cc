"""Sample encodings (f32, s16, G.711 mu-law and A-law), the streaming WAV header and the resampler.

Everything here works chunk by chunk: the model produces float32 audio at its own rate a few frames at a
time, and each chunk must go out as soon as it exists, so the WAV header is written before the length is
known and the resampler (soxr's streaming API) carries its filter state between chunks.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
import soxr

ENCODINGS = ("pcm_f32le", "pcm_s16le", "pcm_mulaw", "pcm_alaw")
CONTAINERS = ("raw", "wav")
SAMPLE_RATES = (8000, 16000, 22050, 24000, 44100, 48000)

# Bytes per sample and the WAVE format tag of each encoding (1 PCM, 3 IEEE float, 6 A-law, 7 mu-law).
_BYTES_PER_SAMPLE = {"pcm_f32le": 4, "pcm_s16le": 2, "pcm_mulaw": 1, "pcm_alaw": 1}
_WAVE_FORMAT_TAG = {"pcm_f32le": 3, "pcm_s16le": 1, "pcm_mulaw": 7, "pcm_alaw": 6}
# A streamed WAV cannot know its length: 0xFFFFFFFF is the value players and ffmpeg read as "until EOF".
_UNKNOWN_LENGTH = 0xFFFFFFFF

# G.711 segment end points (ITU-T G.711, as in the reference g711.c), on 14-bit (mu) / 13-bit (A) input.
_MULAW_SEG_END = np.array([0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF], dtype=np.int32)
_ALAW_SEG_END = np.array([0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF], dtype=np.int32)


@dataclass(frozen=True)
class AudioFormat:
    """A validated output format. Construct through `AudioFormat.parse` for field-level errors."""

    container: str = "raw"
    encoding: str = "pcm_s16le"
    sample_rate: int = 24000

    def __post_init__(self) -> None:
        if self.container not in CONTAINERS:
            raise ValueError(
                f"container {self.container!r} is not supported; use one of {', '.join(CONTAINERS)}"
            )
        if self.encoding not in ENCODINGS:
            raise ValueError(
                f"encoding {self.encoding!r} is not supported; use one of {', '.join(ENCODINGS)}"
            )
        if self.sample_rate not in SAMPLE_RATES:
            rates = ", ".join(str(r) for r in SAMPLE_RATES)
            raise ValueError(f"sample_rate {self.sample_rate!r} is not supported; use one of {rates}")

    @property
    def bytes_per_sample(self) -> int:
        return _BYTES_PER_SAMPLE[self.encoding]

    @property
    def media_type(self) -> str:
        return "audio/wav" if self.container == "wav" else "application/octet-stream"


def _to_int16(audio: np.ndarray) -> np.ndarray:
    # Round, not truncate, and clip first so +1.0 does not wrap to -32768.
    return np.round(np.clip(audio, -1.0, 1.0) * 32767.0).astype(np.int16)


def _mulaw(pcm16: np.ndarray) -> np.ndarray:
    val = pcm16.astype(np.int32) >> 2
    negative = val < 0
    mask = np.where(negative, 0x7F, 0xFF)
    val = np.minimum(np.where(negative, -val, val), 8159) + (0x84 >> 2)
    seg = np.searchsorted(_MULAW_SEG_END, val, side="left")
    uval = np.where(seg >= 8, 0x7F, (np.minimum(seg, 7) << 4) | ((val >> (seg + 1)) & 0x0F))
    return ((uval ^ mask) & 0xFF).astype(np.uint8)


def _alaw(pcm16: np.ndarray) -> np.ndarray:
    val = pcm16.astype(np.int32) >> 3
    negative = val < 0
    mask = np.where(negative, 0x55, 0xD5)
    val = np.where(negative, -val - 1, val)
    seg = np.searchsorted(_ALAW_SEG_END, val, side="left")
    shift = np.where(seg < 2, 1, seg)
    aval = np.where(seg >= 8, 0x7F, (np.minimum(seg, 7) << 4) | ((val >> shift) & 0x0F))
    return ((aval ^ mask) & 0xFF).astype(np.uint8)


def encode_samples(audio: np.ndarray, encoding: str) -> bytes:
    """Float audio in [-1, 1] (values outside are clipped) to little-endian bytes of `encoding`."""
    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    if encoding == "pcm_f32le":
        return np.clip(audio, -1.0, 1.0).astype("<f4").tobytes()
    pcm16 = _to_int16(audio)
    if encoding == "pcm_s16le":
        return pcm16.astype("<i2").tobytes()
    if encoding == "pcm_mulaw":
        return _mulaw(pcm16).tobytes()
    if encoding == "pcm_alaw":
        return _alaw(pcm16).tobytes()
    raise ValueError(f"encoding {encoding!r} is not supported; use one of {', '.join(ENCODINGS)}")


def wav_header(fmt: AudioFormat) -> bytes:
    """A RIFF/WAVE header for a mono stream of unknown length (RIFF and data sizes 0xFFFFFFFF)."""
    bps = fmt.bytes_per_sample
    tag = _WAVE_FORMAT_TAG[fmt.encoding]
    fmt_body = struct.pack("<HHIIHH", tag, 1, fmt.sample_rate, fmt.sample_rate * bps, bps, bps * 8)
    if tag != 1:
        fmt_body += struct.pack("<H", 0)  # cbSize: non-PCM fmt chunks carry an (empty) extension
    return (
        b"RIFF"
        + struct.pack("<I", _UNKNOWN_LENGTH)
        + b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt_body))
        + fmt_body
        + b"data"
        + struct.pack("<I", _UNKNOWN_LENGTH)
    )


class StreamEncoder:
    """Turns model-rate float chunks into output bytes: resample, encode, and a WAV header up front.

    Not thread-safe; one per stream. `encode` returns the bytes for one chunk (the header is prepended to
    the first output), `finish` flushes the resampler's tail.
    """

    def __init__(self, fmt: AudioFormat, model_rate: int, quality: str = "HQ") -> None:
        self.format = fmt
        self.model_rate = model_rate
        # soxr's steep filters delay output (HQ: ~45-90 ms of audio); since the model runs ahead of real
        # time that costs the compute of a chunk or two, not playback time. LQ/QQ trade quality for less.
        self._quality = quality
        self._resampler = self._new_resampler()
        self._header_sent = fmt.container != "wav"
        self.samples_out = 0
        self.finished = False

    def _new_resampler(self):
        if self.format.sample_rate == self.model_rate:
            return None
        return soxr.ResampleStream(
            self.model_rate, self.format.sample_rate, 1, dtype="float32", quality=self._quality
        )

    def _emit(self, audio: np.ndarray) -> bytes:
        self.samples_out += len(audio)
        body = encode_samples(audio, self.format.encoding) if len(audio) else b""
        if not self._header_sent:
            self._header_sent = True
            return wav_header(self.format) + body
        return body

    def encode(self, audio: np.ndarray) -> bytes:
        if self.finished:
            raise RuntimeError("encoder already finished")
        audio = np.ascontiguousarray(audio, dtype=np.float32).reshape(-1)
        if self._resampler is not None:
            audio = self._resampler.resample_chunk(audio)
        return self._emit(audio)

    def drain(self) -> bytes:
        """Everything encoded so far, including the resampler's held-back tail, for a flush point; the
        stream goes on with a fresh resampler (a flush ends at a pause, where the restart is inaudible)."""
        if self.finished:
            raise RuntimeError("encoder already finished")
        if self._resampler is None:
            return self._emit(np.zeros(0, dtype=np.float32)) if not self._header_sent else b""
        tail = self._resampler.resample_chunk(np.zeros(0, dtype=np.float32), last=True)
        self._resampler = self._new_resampler()
        return self._emit(tail)

    def finish(self) -> bytes:
        """The resampler's remaining samples (and the header if nothing was sent yet)."""
        if self.finished:
            return b""
        self.finished = True
        tail = np.zeros(0, dtype=np.float32)
        if self._resampler is not None:
            tail = self._resampler.resample_chunk(tail, last=True)
        return self._emit(tail)

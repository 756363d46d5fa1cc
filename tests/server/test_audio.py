"""Audio encoders, the streaming WAV header and the streaming resampler (no server needed)."""

from __future__ import annotations

import struct
import warnings

import numpy as np
import pytest

from model_server.audio import ENCODINGS, SAMPLE_RATES, AudioFormat, StreamEncoder, encode_samples, wav_header

from .conftest import decode_pcm

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        import audioop  # the C reference implementation of G.711 (removed in Python 3.13)
    except ImportError:
        audioop = None


@pytest.mark.skipif(audioop is None, reason="audioop (reference G.711) not available")
@pytest.mark.parametrize(("encoding", "ref"), [("pcm_mulaw", "lin2ulaw"), ("pcm_alaw", "lin2alaw")])
def test_g711_matches_reference_for_every_16bit_value(encoding, ref):
    pcm = np.arange(-32768, 32768, dtype=np.int16)
    ours = encode_samples(pcm / 32767.0, encoding)
    assert ours == getattr(audioop, ref)(pcm.tobytes(), 2)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_encodings_decode_back_close_to_input(encoding):
    x = 0.5 * np.sin(np.linspace(0, 40 * np.pi, 4000)).astype(np.float32)
    data = encode_samples(x, encoding)
    assert len(data) == len(x) * AudioFormat(encoding=encoding).bytes_per_sample
    y = decode_pcm(data, encoding)
    tolerance = {"pcm_f32le": 1e-7, "pcm_s16le": 1e-4, "pcm_mulaw": 0.02, "pcm_alaw": 0.02}[encoding]
    assert np.max(np.abs(y - x)) < tolerance


def test_out_of_range_samples_are_clipped_not_wrapped():
    data = encode_samples(np.array([1.5, -1.5, 1.0, -1.0], np.float32), "pcm_s16le")
    assert list(np.frombuffer(data, "<i2")) == [32767, -32767, 32767, -32767]
    f32 = np.frombuffer(encode_samples(np.array([2.0, -3.0], np.float32), "pcm_f32le"), "<f4")
    assert list(f32) == [1.0, -1.0]


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_wav_header_describes_stream_of_unknown_length(encoding):
    fmt = AudioFormat(container="wav", encoding=encoding, sample_rate=22050)
    h = wav_header(fmt)
    assert h[:4] == b"RIFF" and h[8:16] == b"WAVE" + b"fmt "
    assert struct.unpack("<I", h[4:8])[0] == 0xFFFFFFFF
    fmt_len = struct.unpack("<I", h[16:20])[0]
    tag, channels, rate, byte_rate, align, bits = struct.unpack("<HHIIHH", h[20:36])
    assert tag == {"pcm_f32le": 3, "pcm_s16le": 1, "pcm_mulaw": 7, "pcm_alaw": 6}[encoding]
    assert (channels, rate, bits) == (1, 22050, 8 * fmt.bytes_per_sample)
    assert byte_rate == rate * fmt.bytes_per_sample and align == fmt.bytes_per_sample
    data_at = 20 + fmt_len
    assert (
        h[data_at : data_at + 4] == b"data"
        and struct.unpack("<I", h[data_at + 4 : data_at + 8])[0] == 0xFFFFFFFF
    )
    assert len(h) == data_at + 8


@pytest.mark.parametrize("rate", SAMPLE_RATES)
def test_streaming_resampler_output_length_matches_input(rate):
    enc = StreamEncoder(AudioFormat(container="raw", encoding="pcm_f32le", sample_rate=rate), 16000)
    rng = np.random.default_rng(0)
    total_in, out = 0, b""
    for n in (800, 1600, 3200, 6400, 6400, 1000):  # the engine's growing chunk sizes, then a short tail
        x = (0.3 * rng.standard_normal(n)).astype(np.float32)
        total_in += n
        out += enc.encode(x)
    out += enc.finish()
    expected = total_in * rate / 16000
    assert abs(len(out) // 4 - expected) <= 1
    assert enc.finish() == b""  # idempotent
    with pytest.raises(RuntimeError):
        enc.encode(np.zeros(10, np.float32))


def test_resampled_tone_keeps_its_frequency():
    enc = StreamEncoder(AudioFormat(encoding="pcm_f32le", sample_rate=48000), 16000)
    t = np.arange(16000) / 16000
    x = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    y = np.frombuffer(b"".join(enc.encode(c) for c in np.split(x, 20)) + enc.finish(), "<f4")
    spectrum = np.abs(np.fft.rfft(y[4800:43200]))
    peak_hz = np.argmax(spectrum) * 48000 / len(y[4800:43200])
    assert abs(peak_hz - 440) < 2


def test_wav_stream_puts_header_first_even_when_first_chunk_is_empty():
    enc = StreamEncoder(AudioFormat(container="wav", encoding="pcm_s16le", sample_rate=8000), 16000)
    first = enc.encode(np.zeros(100, np.float32))  # the resampler may hold all of it back
    assert first.startswith(b"RIFF")
    rest = enc.finish()
    assert not rest.startswith(b"RIFF")


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"container": "mp3"}, "container"),
        ({"encoding": "pcm_u8"}, "encoding"),
        ({"sample_rate": 11025}, "sample_rate"),
    ],
)
def test_audio_format_rejects_unsupported_values(kwargs, word):
    with pytest.raises(ValueError, match=word):
        AudioFormat(**kwargs)


@pytest.mark.parametrize("rate", [8000, 24000, 44100])
def test_drain_releases_held_back_audio_and_the_stream_goes_on(rate):
    enc = StreamEncoder(AudioFormat(encoding="pcm_f32le", sample_rate=rate), 16000)
    x = (0.3 * np.sin(np.arange(1600) / 5)).astype(np.float32)
    first = enc.encode(x)
    drained = enc.drain()
    # after a drain, everything fed so far is out
    assert abs((len(first) + len(drained)) // 4 - 1600 * rate / 16000) <= 1
    rest = enc.encode(x) + enc.finish()
    assert abs((len(first) + len(drained) + len(rest)) // 4 - 3200 * rate / 16000) <= 2


def test_drain_without_resampler_is_empty_and_sends_pending_wav_header():
    enc = StreamEncoder(AudioFormat(container="wav", encoding="pcm_s16le", sample_rate=16000), 16000)
    assert enc.drain().startswith(b"RIFF")
    assert enc.drain() == b""
    assert len(enc.encode(np.zeros(10, np.float32))) == 20

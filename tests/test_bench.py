"""The load bench's pure parts: jitter-buffer playback, statistics, text mix, levels, reports.

The end-to-end run against the real server lives in tests/test_bench_server.py.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from model_server.bench import report
from model_server.bench.cli import bench_document, build_parser, parse_levels
from model_server.bench.playback import percentile, simulate_playback, summarize
from model_server.bench.runner import (
    LevelResult,
    ramp_levels,
    record_from,
    run_level,
    streams_per_replica,
)
from model_server.bench.streams import RawStream, StreamOptions, StreamStatus, server_ttfa_from
from model_server.bench.texts import MIX_WEIGHTS, TextItem, TextMix, split_for_continuation
from tests.support.bench import bench_meta

# --- playback -----------------------------------------------------------------------------------


def test_steady_stream_faster_than_real_time_never_stalls():
    # 50 ms of audio every 20 ms: the buffer only grows.
    arrivals = [(0.2 + 0.02 * i, 0.05) for i in range(40)]
    p = simulate_playback(arrivals, jitter_s=0.1)
    assert p.stalls == 0 and p.stall_s == 0.0
    assert p.playback_start_s == pytest.approx(0.22)  # second chunk brings the buffer to 100 ms
    assert p.audio_s == pytest.approx(2.0)
    assert p.max_gap_s == pytest.approx(0.02)


def test_late_chunk_is_one_stall_from_running_dry_until_the_buffer_refills():
    # 200 ms plays from t=0.05 and runs dry at t=0.25; the next chunk lands at t=0.5.
    p = simulate_playback([(0.05, 0.2), (0.5, 0.2), (0.55, 0.1)], jitter_s=0.1)
    assert p.playback_start_s == pytest.approx(0.05)
    assert p.stalls == 1
    assert p.stall_s == pytest.approx(0.25)
    assert p.max_gap_s == pytest.approx(0.45)


def test_after_a_stall_playback_waits_for_the_buffer_to_refill():
    # Dry at t=0.15; small chunks after: resume only once 100 ms is buffered again (at t=1.02).
    arrivals = [(0.05, 0.1), (1.0, 0.05), (1.02, 0.05), (1.04, 0.5)]
    p = simulate_playback(arrivals, jitter_s=0.1)
    assert p.stalls == 1
    assert p.stall_s == pytest.approx(1.02 - 0.15)


def test_short_utterance_starts_when_the_stream_ends():
    p = simulate_playback([(0.1, 0.03), (0.2, 0.03)], jitter_s=0.1)
    assert p.playback_start_s == pytest.approx(0.2)
    assert p.stalls == 0


def test_zero_jitter_buffer_stalls_on_any_gap_longer_than_the_audio():
    p = simulate_playback([(0.0, 0.1), (0.3, 0.1)], jitter_s=0.0)
    assert p.stalls == 1 and p.stall_s == pytest.approx(0.2)


def test_no_audio_and_bad_input():
    assert simulate_playback([], 0.1).playback_start_s is None
    assert simulate_playback([(0.1, 0.0)], 0.1).audio_s == 0.0
    with pytest.raises(ValueError, match="non-decreasing"):
        simulate_playback([(0.5, 0.1), (0.2, 0.1)], 0.1)
    with pytest.raises(ValueError, match="jitter_s"):
        simulate_playback([(0.5, 0.1)], -1)


def test_percentiles_interpolate_and_ignore_missing():
    xs = list(range(1, 101))
    assert percentile(xs, 50) == pytest.approx(50.5)
    assert percentile(xs, 99) == pytest.approx(99.01)
    assert percentile([], 50) is None
    assert percentile([3.0], 99) == 3.0
    s = summarize([1.0, None, 3.0])
    assert s["n"] == 2 and s["max"] == 3.0 and s["p50"] == 2.0
    with pytest.raises(ValueError):
        percentile(xs, 101)


# --- text mix -----------------------------------------------------------------------------------


def test_text_mix_is_reproducible_and_covers_every_kind():
    a = [TextMix(7).next() for _ in range(1)]
    mix1, mix2 = TextMix(7), TextMix(7)
    seq1 = [mix1.next() for _ in range(200)]
    seq2 = [mix2.next() for _ in range(200)]
    assert seq1 == seq2 and seq1[0] == a[0]
    kinds = {item.kind for item in seq1}
    assert kinds == set(MIX_WEIGHTS)
    numbers = [i.text for i in seq1 if i.kind == "numbers"]
    assert all(any(ch.isdigit() for ch in t) for t in numbers)
    paragraphs = [i.text for i in seq1 if i.kind == "paragraph"]
    assert min(len(t) for t in paragraphs) > 4 * max(len(i.text) for i in seq1 if i.kind == "turn") / 2


def test_continuation_pieces_rejoin_to_the_text():
    text = "Sure, I can help with that. Your order number is 123456."
    pieces = split_for_continuation(text, 3)
    assert "".join(pieces) == text
    assert len(pieces) == 4
    assert split_for_continuation("one", 4) == ["one"]
    with pytest.raises(ValueError):
        split_for_continuation(text, 0)


# --- streams helpers ------------------------------------------------------------------------------


def test_request_body_is_cartesia_shaped():
    body = StreamOptions(voice="v1", sample_rate=24000).request_body("hi")
    assert body["transcript"] == "hi" and body["voice"] == {"mode": "id", "id": "v1"}
    assert body["output_format"] == {"container": "raw", "encoding": "pcm_s16le", "sample_rate": 24000}
    assert StreamOptions(voice="v", api_key="k").headers()["Authorization"] == "Bearer k"


def test_server_ttfa_is_read_from_the_final_message():
    assert server_ttfa_from({"type": "done", "ttfa_ms": 42.5}) == 42.5
    assert server_ttfa_from({"type": "done", "metrics": {"ttfa_ms": 7}}) == 7.0
    assert server_ttfa_from({"type": "done"}) is None


# --- runner -------------------------------------------------------------------------------------


def _raw(kind="turn", ttfa=0.05, n=5, status=StreamStatus.OK):
    r = RawStream(kind, 10, status=status)
    if status == StreamStatus.OK:
        r.arrivals = [(ttfa + 0.01 * i, 0.1) for i in range(n)]
    return r


def test_record_marks_an_ok_stream_without_audio_as_an_error():
    rec = record_from(_raw(n=0), 1, 0.1)
    assert rec.status == StreamStatus.ERROR and "without audio" in rec.error
    rec = record_from(_raw(ttfa=0.08), 2, 0.1)
    assert rec.client_ttfa_ms == pytest.approx(80.0) and rec.concurrency == 2 and rec.chunks == 5


def test_run_level_keeps_the_concurrency_in_flight_and_sends_the_requested_count():
    in_flight = 0
    peak = 0

    async def driver(item: TextItem) -> RawStream:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return _raw(item.kind)

    level = asyncio.run(run_level(driver, TextMix(0), 3, 10, budget_s=30.0, jitter_s=0.1))
    assert len(level.records) == 10 and level.cut == 0
    assert peak == 3
    s = level.summary(ttfa_target_ms=200)
    assert s["ok"] == 10 and s["meets_target"] and s["stalls"] == 0
    assert s["client_ttfa_ms"]["p99"] == pytest.approx(50.0)


def test_run_level_cuts_streams_at_the_time_budget():
    async def slow(item: TextItem) -> RawStream:
        await asyncio.sleep(30)
        return _raw()

    level = asyncio.run(run_level(slow, TextMix(0), 2, 4, budget_s=0.2, jitter_s=0.1))
    assert level.records == [] and level.cut == 2
    assert not level.summary(200)["meets_target"]


def test_summary_fails_the_target_on_rejections_and_slow_ttfa():
    ok = [record_from(_raw(), 4, 0.1) for _ in range(5)]
    rejected = record_from(_raw(status=StreamStatus.REJECTED), 4, 0.1)
    assert LevelResult(4, ok, 0, 1.0).summary(200)["meets_target"]
    s = LevelResult(4, ok + [rejected], 0, 1.0).summary(200)
    assert s["rejected"] == 1 and not s["meets_target"]
    assert not LevelResult(4, ok, 0, 1.0).summary(40)["meets_target"]


def test_streams_per_replica_is_the_highest_level_that_met_the_target():
    def lvl(c, ok):
        return {"concurrency": c, "meets_target": ok}

    assert streams_per_replica([lvl(1, True), lvl(2, True), lvl(4, False), lvl(8, False)]) == 2
    assert streams_per_replica([lvl(1, False), lvl(2, True), lvl(4, False)]) == 2
    assert streams_per_replica([lvl(1, False), lvl(2, False)]) == 0
    assert streams_per_replica([lvl(4, True), lvl(1, True)]) == 4


def test_streams_per_replica_reports_closed_and_staggered_levels_apart():
    """A staggered level keeps C in flight too, but its starts are spread out: it must not pass for a
    closed-loop level of the same C (the 64-stream burst that stalls while staggered 64 passes)."""

    def lvl(c, ok, arrivals):
        return {"concurrency": c, "meets_target": ok, "arrivals": arrivals}

    levels = [
        lvl(32, True, "closed"),
        lvl(64, False, "closed"),
        lvl(32, True, "staggered"),
        lvl(64, True, "staggered"),
    ]
    assert streams_per_replica(levels) == 32
    assert streams_per_replica(levels, "staggered") == 64
    assert streams_per_replica(levels[2:]) is None  # no closed level: not measured, not 0
    assert streams_per_replica(levels[:2], "staggered") is None
    assert (
        streams_per_replica([*levels, {"concurrency": 99, "meets_target": True, "arrivals": "poisson"}]) == 32
    )
    with pytest.raises(ValueError, match="closed or staggered"):
        streams_per_replica(levels, "poisson")


def test_ramp_levels_double_up_to_the_maximum():
    assert ramp_levels(1) == [1]
    assert ramp_levels(8) == [1, 2, 4, 8]
    assert ramp_levels(12) == [1, 2, 4, 8, 12]
    with pytest.raises(ValueError):
        ramp_levels(0)


def test_cli_parses_levels_and_requires_a_target():
    assert parse_levels("8,1,2,2") == [1, 2, 8]
    args = build_parser().parse_args(["--local"])
    assert (
        args.concurrency == [1, 2, 4, 8, 16, 32, 64]
        and args.jitter_ms == 100.0
        and args.ttfa_target_ms == 200.0
    )
    with pytest.raises(SystemExit):
        build_parser().parse_args([])
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--local", "--concurrency", "0,2"])


# --- report -------------------------------------------------------------------------------------


def _result():
    levels = [
        LevelResult(1, [record_from(_raw(ttfa=0.04), 1, 0.1) for _ in range(4)], 0, 2.0),
        LevelResult(2, [record_from(_raw(ttfa=0.3), 2, 0.1) for _ in range(4)], 1, 2.0),
    ]
    meta = bench_meta()
    return bench_document(meta, levels, 200)


def test_table_json_and_plot(tmp_path):
    result = _result()
    assert result["streams_per_replica"] == 1
    table = report.markdown_table(result["levels"])
    lines = table.splitlines()
    assert len(lines) == 4 and lines[2].startswith("| c=1 | 1 | 4 | 4 | 0 | 0 | 0 | 0.0 / 0 | 40 |")
    assert lines[3].startswith("| c=2 | 1 | 4 | 4 | 0 | 0 | 1 | 0.0 / 0 | 300 |")
    assert all(line.count("|") == 22 for line in lines)  # 21 columns in every row
    assert lines[2].endswith("| - | - | - |")  # no client load, server CPU or engine account measured here
    result["levels"][0]["engine"] = {"busy": 0.876}
    assert report.markdown_table(result["levels"]).splitlines()[2].endswith("| - | - | 0.88 |")
    report.write_json(tmp_path / "b.json", result)
    assert json.loads((tmp_path / "b.json").read_text())["streams_per_replica"] == 1
    report.plot(tmp_path / "b.png", result["levels"], result["streams"], result["meta"])
    assert (tmp_path / "b.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_update_docs_replaces_only_the_marked_section(tmp_path):
    doc = tmp_path / "benchmarks.md"
    doc.write_text(f"# Bench\nintro\n{report.DOCS_BEGIN}\nold numbers\n{report.DOCS_END}\noutro\n")
    report.update_docs(doc, report.docs_section(_result(), "img/bench_cpu.png"))
    text = doc.read_text()
    assert "old numbers" not in text and text.startswith("# Bench\nintro\n") and text.endswith("outro\n")
    assert "**Streams per replica, closed loop**" in text and "![TTFA" in text and "test cpu" in text
    assert "staggered starts" not in text  # no staggered level was run
    report.update_docs(doc, "second")  # idempotent: markers survive a refresh
    assert f"{report.DOCS_BEGIN}\nsecond\n{report.DOCS_END}" in doc.read_text()
    bare = tmp_path / "bare.md"
    bare.write_text("no markers")
    with pytest.raises(ValueError, match="markers"):
        report.update_docs(bare, "x")
    with pytest.raises(FileNotFoundError):
        report.update_docs(tmp_path / "missing.md", "x")


def test_capacity_says_at_least_when_no_level_failed():
    result = _result()
    assert report.capacity_text(result) == "1"  # the level at 2 missed the TTFA target
    result["levels"] = result["levels"][:1]
    assert report.capacity_text(result).startswith("at least 1 ")


def test_a_chunk_of_junk_is_an_error_not_a_wrong_length():
    from model_server.bench.streams import _handle_message

    raw = RawStream("turn", 10)
    with pytest.raises(ValueError):  # b64decode without validation read "abcd!" as 3 bytes of audio
        _handle_message({"type": "chunk", "data": "abcd!"}, raw, 0.0, 16000)
    assert raw.arrivals == []


def test_http_streams_ask_for_identity_encoding():
    """A compressing proxy gave /tts/bytes gzip bytes, counted as audio: 48x too little audio."""
    assert StreamOptions("v").headers()["Accept-Encoding"] == "identity"
    assert StreamOptions("v", api_key="k").headers()["Authorization"] == "Bearer k"


def test_playback_starts_when_the_buffer_is_full_despite_float_sums():
    # ten 10 ms chunks in real time sum to 0.09999999999999999 s: playback started one chunk late
    arrivals = [(0.01 * i, 0.01) for i in range(30)]
    assert simulate_playback(arrivals, 0.1).playback_start_s == pytest.approx(0.09)


def test_update_docs_needs_a_local_run(capsys):
    from model_server.bench.cli import main

    with pytest.raises(SystemExit, match="--update-docs needs --local"):
        main(["--target", "http://127.0.0.1:9", "--update-docs"])


def test_the_sagemaker_driver_makes_its_boto3_client_before_any_stream(monkeypatch):
    """Made by a level's first streams, the client's setup was inside their TTFA (80-200 ms)."""
    from model_server.bench.sagemaker import sagemaker_driver
    from model_server.client import SpeechClient

    made = []
    monkeypatch.setattr(SpeechClient, "_prepare", lambda self: made.append(self.endpoint_name))
    sagemaker_driver("sagemaker://ep", StreamOptions("v"), region="us-east-1")
    assert made == ["ep"]

"""The load bench against the real server (subprocess on 127.0.0.1): every protocol, rejections, the
SageMaker route through the runtime stand-in, and a whole `--local` run with its outputs.

Small on purpose (a handful of streams): the numbers are not checked against thresholds, only what must
hold whatever the machine's speed (counts, causality between client and server clocks, files written).
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import time

import httpx
import pytest
from support.sagemaker_runtime_standin import create_app, serve_in_thread

from model_server.bench.cli import main
from model_server.bench.local import LocalServer, process_tree, stat_fields
from model_server.bench.runner import run_level
from model_server.bench.streams import StreamOptions, StreamStatus, http_stream, ws_stream
from model_server.bench.texts import TextItem, TextMix
from model_server.contract import ENV_MODEL_DIR

pytestmark = pytest.mark.slow

LONG = TextItem(
    "paragraph",
    "To reset the router, find the small button on the back, next to the power socket. Press and hold it "
    "with a paper clip for about ten seconds, until the lights on the front start to flash.",
)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """The bundled weights when they exist, else a random-weight checkpoint in the same format."""
    from model_server.model.runtime import DEFAULT_MODEL_DIR

    if (DEFAULT_MODEL_DIR / "model.safetensors").exists():
        return DEFAULT_MODEL_DIR
    import torch

    from model_server.model import checkpoint
    from model_server.model.runtime import SpeechRuntime

    rt = SpeechRuntime.init_random(seed=0)
    # Random duration heads give anything from zero to hundreds of frames per phone; pin them to 7
    # frames (about 90 ms) so streams last as long as speech does and concurrent streams overlap.
    with torch.no_grad():
        rt.ckpt.model.encoder.dur_out.weight.zero_()
        rt.ckpt.model.encoder.dur_out.bias.fill_(math.log(1 + 7))
    path = tmp_path_factory.mktemp("bench-model")
    checkpoint.save(rt.ckpt, path)
    return path


@pytest.fixture(scope="module")
def server(model_dir, tmp_path_factory):
    env = {ENV_MODEL_DIR: str(model_dir), "STATESPEAK_DEVICE": "cpu", "OMP_NUM_THREADS": "1"}
    log = tmp_path_factory.mktemp("bench-server") / "server.log"
    with LocalServer(log, max_streams=2, ready_timeout_s=180, extra_env=env) as srv:
        yield srv


@pytest.fixture(scope="module")
def voice(server):
    """The voice the bench and the canary pick by themselves: the first English one."""
    voices = httpx.get(server.url + "/voices", timeout=10).json()["voices"]
    return next(v["id"] for v in voices if v["language"] == "en")


def _run(coro):
    return asyncio.run(coro)


def test_websocket_stream_reports_client_and_server_first_audio(server, voice):
    raw = _run(ws_stream(server.url, TextItem("turn", "Sure, I can help with that."), StreamOptions(voice)))
    assert raw.status == StreamStatus.OK, raw.error
    assert raw.arrivals and sum(d for _, d in raw.arrivals) > 0.3
    assert raw.server_ttfa_ms is not None
    # Causality, not timing: the server's clock starts after the client sent and its first audio is
    # encoded before the client can receive it.
    assert raw.arrivals[0][0] * 1000 >= raw.server_ttfa_ms


def test_websocket_continuations_speak_the_whole_text(server, voice):
    whole = _run(ws_stream(server.url, LONG, StreamOptions(voice)))
    pieces = _run(
        ws_stream(server.url, LONG, StreamOptions(voice, continuations=True, piece_interval_s=0.01))
    )
    assert whole.status == pieces.status == StreamStatus.OK, (whole.error, pieces.error)
    audio_whole = sum(d for _, d in whole.arrivals)
    audio_pieces = sum(d for _, d in pieces.arrivals)
    # Same words, so about the same amount of speech (sentence splitting may differ at the edges).
    assert audio_pieces == pytest.approx(audio_whole, rel=0.35)


@pytest.mark.parametrize("sse", [False, True])
def test_http_routes(server, voice, sse):
    async def go():
        async with httpx.AsyncClient(timeout=60) as client:
            return await http_stream(
                client, server.url, TextItem("numbers", "Your balance is $12.50."), StreamOptions(voice), sse
            )

    raw = _run(go())
    assert raw.status == StreamStatus.OK, raw.error
    assert raw.arrivals
    # Only the event stream carries the server's own number; /tts/bytes is bare audio.
    assert (raw.server_ttfa_ms is not None) == sse


def test_admission_refusals_count_as_rejections_not_errors(server, voice):
    async def long_ws(_item):
        return await ws_stream(server.url, LONG, StreamOptions(voice))

    async def long_http(_item):
        async with httpx.AsyncClient(timeout=60) as client:
            return await http_stream(client, server.url, LONG, StreamOptions(voice))

    for driver in (long_ws, long_http):
        # Four at once against MAX_STREAMS=2: the late ones are refused while the first two speak.
        level = _run(run_level(driver, TextMix(0), 4, 4, budget_s=120, jitter_s=0.1))
        summary = level.summary(200)
        assert summary["rejected"] >= 1 and summary["errors"] == 0, summary["first_errors"]
        assert summary["ok"] >= 1 and not summary["meets_target"]


def test_sagemaker_route_through_the_runtime_standin(server, voice, monkeypatch):
    from model_server.bench.sagemaker import sagemaker_driver

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with serve_in_thread(create_app(server.url, "bench-endpoint")) as runtime_url:
        driver = sagemaker_driver(
            "sagemaker://bench-endpoint", StreamOptions(voice), endpoint_url=runtime_url
        )
        raw = _run(driver(TextItem("turn", "Okay, your request has been submitted.")))
        missing = sagemaker_driver(
            "sagemaker://no-such-endpoint", StreamOptions(voice), endpoint_url=runtime_url
        )
        bad = _run(missing(TextItem("turn", "Hello.")))
    assert raw.status == StreamStatus.OK, raw.error
    assert raw.arrivals and raw.server_ttfa_ms is None
    assert bad.status == StreamStatus.ERROR and "no-such-endpoint" in bad.error


def test_local_run_writes_table_json_and_plot(model_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(ENV_MODEL_DIR, str(model_dir))
    monkeypatch.setenv("STATESPEAK_DEVICE", "cpu")
    out = tmp_path / "out"
    argv = ["--local", "--concurrency", "1,2", "--streams-per-level", "2", "--max-seconds", "150"]
    assert main([*argv, "--out", str(out), "--no-progress", "--seed", "3"]) == 0
    result = json.loads((out / "bench.json").read_text())
    assert [lvl["concurrency"] for lvl in result["levels"]] == [1, 2]
    for lvl in result["levels"]:
        assert lvl["streams"] + lvl["cut"] >= 1 and lvl["errors"] == 0 and lvl["rejected"] == 0
    assert result["meta"]["weights"] and result["meta"]["host"]["cpus"] >= 1
    # --local reads the server's own CPU time: a level that produced audio cost it some.
    assert all(lvl["server_cpu_s"] > 0 and lvl["server_cpu_ms_per_audio_s"] > 0 for lvl in result["levels"])
    streams = result["streams"]
    assert streams and all(s["status"] == "ok" for s in streams)
    assert all(s["client_ttfa_ms"] >= s["server_ttfa_ms"] for s in streams)
    assert (out / "bench.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "server.log").exists()
    printed = capsys.readouterr().out
    assert "| level | clients |" in printed and "streams per replica" in printed
    assert "1 client process" in printed and (out / "bench.md").exists()


def test_ramp_stops_at_the_first_level_that_misses_the_target(model_dir, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_MODEL_DIR, str(model_dir))
    monkeypatch.setenv("STATESPEAK_DEVICE", "cpu")
    out = tmp_path / "ramp"
    # No stream can reach first audio in a microsecond: level 1 misses, and the ramp goes no further.
    argv = ["--local", "--ramp", "8", "--ttfa-target-ms", "0.001", "--streams-per-level", "1"]
    assert main([*argv, "--out", str(out), "--no-progress", "--protocol", "sse"]) == 0
    result = json.loads((out / "bench.json").read_text())
    assert [lvl["concurrency"] for lvl in result["levels"]] == [1]
    assert result["streams_per_replica"] == 0 and result["meta"]["protocol"] == "HTTP /tts/sse"


def test_several_client_processes_share_each_level_and_their_records_merge(model_dir, tmp_path, monkeypatch):
    from model_server.bench.arrivals import poisson_arrivals

    monkeypatch.setenv(ENV_MODEL_DIR, str(model_dir))
    monkeypatch.setenv("STATESPEAK_DEVICE", "cpu")
    out = tmp_path / "clients"
    argv = ["--local", "--clients", "2", "--concurrency", "1,3", "--streams-per-level", "4", "--seed", "5"]
    argv += ["--arrivals", "closed,staggered,poisson", "--stagger-seconds", "0.5", "--rates", "3"]
    argv += ["--arrival-seconds", "2", "--max-seconds", "400", "--max-streams", "16"]
    assert main([*argv, "--out", str(out), "--no-progress"]) == 0
    result = json.loads((out / "bench.json").read_text())
    levels = {s["label"]: s for s in result["levels"]}
    assert list(levels) == ["c=1", "c=3", "c=1 staggered", "c=3 staggered", "3/s poisson"]
    arrivals = len(poisson_arrivals(3.0, 2.0, seed="5/3"))
    planned = {"c=1": 4, "c=3": 4, "c=1 staggered": 4, "c=3 staggered": 4, "3/s poisson": arrivals}
    for label, s in levels.items():
        # Every planned stream is accounted for once, whichever process sent it.
        assert s["streams"] + s["cut"] + s["not_sent"] == planned[label], label
        assert s["errors"] == 0, s["first_errors"]
        assert s["clients"] == len(s["client_load"]) == (1 if label.startswith("c=1") else 2)
        assert len({c["pid"] for c in s["client_load"]}) == s["clients"]
        by_label = [r for r in result["streams"] if r["level"] == label]
        assert len(by_label) == s["streams"]
    assert result["meta"]["clients"] == 2 and result["meta"]["arrivals"] == ["closed", "staggered", "poisson"]
    assert levels["3/s poisson"]["rate_per_s"] == 3.0 and levels["3/s poisson"]["arrivals"] == "poisson"
    md = (out / "bench.md").read_text()
    assert "2 client processes" in md and "Open-loop capacity" in md
    for s in result["levels"]:
        load = ", ".join(f"{c['loop_busy']:.2f}/{c['cpu']:.2f}" for c in s["client_load"])
        print(f"{s['label']}: client loop busy/cpu {load}")


def test_a_starved_real_client_is_flagged_and_a_normal_one_is_not(server, voice):
    from model_server.bench.clients import ClientSetup, LevelPlan, make_driver, run_shard

    setup = ClientSetup(server.url, "ws", StreamOptions(voice))
    mix = TextMix(1)
    plan = LevelPlan("closed", "c=1", tuple(mix.next() for _ in range(2)), (0.0,), 120, 0.1, concurrency=1)

    def starved(setup, http_client):
        async def hog() -> None:  # the client's loop never waits: every arrival is read late
            while True:
                time.sleep(0.01)
                await asyncio.sleep(0)

        asyncio.get_running_loop().create_task(hog())
        return make_driver(setup, http_client)

    normal = run_shard(setup, plan)
    hungry = run_shard(setup, plan, driver_factory=starved)
    print(
        f"real client loop busy: normal {normal.clients[0].loop_busy:.3f}, starved {hungry.clients[0].loop_busy:.3f}"
    )
    assert [r.status for r in normal.records] == [StreamStatus.OK] * 2
    assert not normal.summary(200)["client_limited"]
    assert hungry.summary(200)["client_limited"] and not hungry.summary(200)["meets_target"]


def test_the_local_server_reports_its_cpu_time(server, voice):
    pids = process_tree(server.proc.pid)
    assert len(pids) >= 3  # the supervisor, the engine process and at least one API worker
    before = server.cpu_seconds()
    raw = _run(ws_stream(server.url, TextItem("turn", "Sure, I can help with that."), StreamOptions(voice)))
    after = server.cpu_seconds()
    assert raw.status == StreamStatus.OK, raw.error
    assert before is not None and after > before  # synthesizing the stream used the server's CPU
    # The whole tree is counted: the supervisor alone (which only waits on its children) used far less.
    fields = stat_fields(server.proc.pid)
    supervisor_alone = sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    assert after > supervisor_alone


def test_a_server_that_refuses_readiness_for_good_fails_at_once_with_its_reason(model_dir, tmp_path):
    # A GPU route on this CPU host: the engine stays up (liveness, metrics) but will never be ready. The
    # bench must say why at once, not wait out its ready timeout (an H200 run once lost 241 s that way).
    env = {ENV_MODEL_DIR: str(model_dir), "STATESPEAK_DEVICE": "cuda", "STATESPEAK_WORKERS": "1"}
    log = tmp_path / "server.log"
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="will not become ready: cuda_unavailable: torch") as failure:
        with LocalServer(log, max_streams=2, ready_timeout_s=120, extra_env=env):
            pass
    assert str(log) in str(failure.value)  # where to read more
    assert time.monotonic() - start < 60  # well inside the ready timeout: it did not wait it out

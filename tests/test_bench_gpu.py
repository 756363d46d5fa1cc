"""tools/gpu_bench.py on a machine without CUDA: it must stop at once with a clear reason, and its pure
helpers must be right. The full run is the `gpu`-marked test at the end (skipped without CUDA)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

# A random-weight checkpoint with speech-like durations (or the bundled weights), from the bench tests.
from test_bench_server import model_dir  # noqa: F401

from tests.support.gpu_tools import has_gpu

SCRIPT = Path(__file__).resolve().parent.parent / "tools" / "gpu_bench.py"


def load_script():
    spec = importlib.util.spec_from_file_location("gpu_bench", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gpu_bench = load_script()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-CUDA path")
def test_without_cuda_it_fails_fast_with_a_clear_message():
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--max-seconds", "30"],
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard, not a timing check
        cwd="/",  # runs from anywhere: the script finds the repo itself
    )
    assert proc.returncode == gpu_bench.EXIT_NO_CUDA
    assert proc.stdout == ""  # no half-filled JSON
    assert "no CUDA" in proc.stderr and "H100/H200" in proc.stderr


def test_empty_cuda_visible_devices_is_reported_before_importing_anything(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    with pytest.raises(gpu_bench.NoCudaError, match="CUDA_VISIBLE_DEVICES"):
        gpu_bench.preflight()
    assert gpu_bench.main(["--max-seconds", "5"]) == gpu_bench.EXIT_NO_CUDA


def test_parse_nvidia_smi():
    text = "NVIDIA H200, 565.57.01, 143771 MiB, 9.0, 700.00 W, 1980 MHz\nNVIDIA H200, 565.57.01, 143771 MiB, 9.0, 700.00 W, 1980 MHz\n"
    gpus = gpu_bench.parse_nvidia_smi(text)
    assert len(gpus) == 2
    assert gpus[0] == {
        "name": "NVIDIA H200",
        "driver_version": "565.57.01",
        "memory.total": "143771 MiB",
        "compute_cap": "9.0",
        "power.limit": "700.00 W",
        "clocks.max.sm": "1980 MHz",
    }
    assert gpu_bench.parse_nvidia_smi("\n") == []
    with pytest.raises(ValueError, match="fields"):
        gpu_bench.parse_nvidia_smi("NVIDIA H200, 565.57.01")


def test_error_stats_relative_to_the_reference_scale():
    ref = torch.tensor([[2.0, -4.0], [1.0, 0.0]])
    got = ref + torch.tensor([[0.0, 0.004], [-0.002, 0.0]])
    stats = gpu_bench.error_stats(ref, got)
    assert stats["max_abs"] == pytest.approx(0.004, rel=1e-4)  # float32 inputs
    assert stats["max_rel"] == pytest.approx(0.001, rel=1e-4)
    assert stats["ref_scale"] == 4.0
    assert gpu_bench.error_stats(torch.zeros(3), torch.full((3,), 0.5))["max_rel"] == 0.5


def test_times_real_time_and_the_largest_real_time_batch():
    # 32 frames of 12.5 ms = 400 ms of audio per stream; a 40 ms step is 10x real time.
    assert gpu_bench.times_real_time(40.0, 32, 200, 16000) == pytest.approx(10.0)
    with pytest.raises(ValueError):
        gpu_bench.times_real_time(0.0, 32, 200, 16000)
    rows = [
        {"frames": 4, "cuda_graphs": True, "batch": 1, "x_real_time": 9.0},
        {"frames": 4, "cuda_graphs": True, "batch": 64, "x_real_time": 1.2},
        {"frames": 4, "cuda_graphs": True, "batch": 128, "x_real_time": 0.8},
        {"frames": 4, "cuda_graphs": False, "batch": 1, "x_real_time": 0.9},
    ]
    assert gpu_bench.max_realtime_batch(rows, 4, True) == 64
    assert gpu_bench.max_realtime_batch(rows, 4, False) is None
    assert gpu_bench.max_realtime_batch(rows, 32, True) is None


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the report of a fallback")
def test_kernel_report_names_the_fallback_and_why(monkeypatch):
    from model_server.ssm import cuda as cuda_path

    monkeypatch.delenv(cuda_path.DISABLE_ENV, raising=False)
    report = gpu_bench.kernel_report()
    assert report["path"] == "torch" and report["fallback"] is True
    assert "no CUDA device" in report["reason"]

    cuda_path.reset()


def test_server_startup_reads_the_servers_log(tmp_path):
    log = tmp_path / "server.log"
    lines = [
        "not json",
        json.dumps({"msg": "loading model", "device": "cuda"}),
        json.dumps(
            {"msg": "runtime warmed up", "kernel_path": "triton", "cuda_graphs": 30, "warmup_s": 41.5}
        ),
        '{"truncated',
        json.dumps({"msg": "ready", "load_s": 52.0}),
    ]
    log.write_text("\n".join(lines) + "\n")
    assert gpu_bench.server_startup(log) == {
        "kernel_path": "triton",
        "kernels_unavailable": None,
        "cuda_graphs": 30,
        "warmup_s": 41.5,
        "load_s": 52.0,
    }
    log.write_text("")
    assert gpu_bench.server_startup(log)["kernel_path"] is None


def test_budget_shares_leave_room_for_later_sections():
    now = [0.0]
    budget = gpu_bench.Budget(450, clock=lambda: now[0])
    assert budget.share(60, reserve=budget.left() * 0.65) == 60
    now[0] = 400.0
    assert budget.left() == 50
    assert budget.share(150, reserve=25) == 25
    now[0] = 500.0
    assert budget.left() == 0 and budget.share(10) == 0


@pytest.mark.slow
def test_decode_section_code_path_on_cpu(model_dir):  # noqa: F811
    # The section's own code (load, pool, warm-up, timing, summary) run small on the CPU; on a GPU run
    # it is the same code with device="cuda" and CUDA graphs on and off.
    out = gpu_bench.decode_timings(torch, str(model_dir), 120, (1, 2), (4,), iters=2, device="cpu")
    assert [(r["batch"], r["frames"], r["cuda_graphs"]) for r in out["rows"]] == [
        (1, 4, False),
        (2, 4, False),
    ]
    for r in out["rows"]:  # 4 frames = 50 ms of audio per stream and step
        # Both figures are rounded to 3 decimals, so compare against the range the rounded step allows.
        step, half = r["step_ms"], 5e-4
        assert step > 0 and 50.0 / (step + half) - half <= r["x_real_time"] <= 50.0 / (step - half) + half
    assert set(out["summary"]) == {"max_realtime_batch_frames4_eager", "max_realtime_batch_frames4_graphs"}
    assert out["summary"]["max_realtime_batch_frames4_graphs"] is None and out["skipped"] == []


def test_the_eager_parity_reference_steps_in_the_graphs_chunks(model_dir):  # noqa: F811
    # The parity section compares graph replays with eager steps of the SAME kernel calls (10 frames run
    # as 8 + 2), since a 10-frame call differs from 8 + 2 by TF32 rounding on a GPU. Here: the pieces
    # are the graphs' lengths, carry the state, and together are the 10-frame step.
    from model_server.model.runtime import SpeechRuntime

    rt = SpeechRuntime.load(str(model_dir), device="cpu")
    cond = torch.randn(3, 10, rt.config.cond_dim, generator=torch.Generator().manual_seed(0))
    pool_parts, pool_whole = rt.new_pool(4), rt.new_pool(4)
    parts = gpu_bench.eager_as_graphed(rt, pool_parts, [0, 1, 2], cond)
    assert [p.shape for p in parts] == [(3, 8 * rt.hop), (3, 2 * rt.hop)]
    whole = rt.step(pool_whole, [0, 1, 2], cond)
    torch.testing.assert_close(torch.cat(parts, 1), whole, rtol=1e-4, atol=1e-5)  # the torch path: exact


@pytest.mark.slow
def test_server_section_code_path_on_cpu(model_dir, tmp_path, monkeypatch):  # noqa: F811
    # The section's own code, small, on the CPU: the server, two load-bench client processes, closed,
    # staggered and Poisson arrivals, the per-arrival-model capacities, the records and the plot.
    monkeypatch.setenv("MODEL_DIR", str(model_dir))
    out = gpu_bench.server_ramp(
        150, 200.0, 100.0, quick=True, workdir=tmp_path, device="cpu", ramp_max=2, clients=2,
        rates=(1.0,), arrival_seconds=2.0, prefix="cpu-run",
        extra_env={"STATESPEAK_MAX_CHUNK_FRAMES": "8"}, records_dir=tmp_path / "records",
        gpu_read=lambda: 25,  # a GPU kept a quarter busy: each level's share and the ramp's come out so
    )  # fmt: skip
    levels = out["levels"]
    assert [lvl["label"] for lvl in levels][:1] == ["c=1"]
    assert {lvl["arrivals"] for lvl in levels} == {"closed", "staggered", "poisson"}
    assert all(lvl["errors"] == 0 and lvl["rejected"] == 0 for lvl in levels)
    assert max(lvl["clients"] for lvl in levels) == 2  # a level of 1 stream needs only one of them
    assert out["max_realtime_streams"] in (0, 1, 2) and out["max_realtime_streams_staggered"] in (0, 1, 2)
    assert out["clients"] == 2 and "open_loop_capacity" in out and "client_limited_levels" in out
    records = json.loads((tmp_path / "records" / "cpu-run-server.json").read_text())
    assert out["server_env"] == {"STATESPEAK_MAX_CHUNK_FRAMES": "8"}
    # the setting reached the server: no chunk of any stream is longer than 8 frames (100 ms)
    assert max(s["audio_s"] / s["chunks"] for s in records["streams"] if s["chunks"]) <= 0.1 + 1e-9
    assert len(records["streams"]) == sum(lvl["streams"] for lvl in levels)
    assert out["files"]["plot"] == "cpu-run-server.png"
    assert (tmp_path / "cpu-run-server.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "records" / "cpu-run-server.log").exists() and not (
        tmp_path / "cpu-run-server.log"
    ).exists()
    engine = out["engine"]  # the engine's account of the ramp, from the server's /metrics around it
    assert engine["per_chunk_us"] > 0 and engine["step_per_frame_us"] > 0 and engine["mean_batch"] >= 1
    # one step per chunk length a tick could not merge: at least one, a few at most
    assert engine["steps"] >= engine["ticks"] >= 1 and 1.0 <= engine["steps_per_tick"] <= 6.0
    assert engine["phase_s"]["model_step"] > 0 and engine["phase_s"]["send"] > 0
    assert 0 < engine["busy"] <= 1.0 and engine["us_per_chunk"]["all"] > 0
    # and of each level: the engine ticked and stepped during every one
    for level in levels:
        acct = level["engine"]
        assert acct["ticks"] >= 1 and 0 < acct["busy"] <= 1.0 and acct["phase_s"]["model_step"] > 0
    assert out["gpu_busy"] == pytest.approx(0.25, abs=0.03)
    assert all(level["gpu_busy"] == pytest.approx(0.25, abs=0.05) for level in levels)
    startup = out["startup"]  # from the server's own log: it warmed up on the CPU path, then was ready
    assert startup["kernel_path"] == "cpu" and startup["cuda_graphs"] == 0
    assert startup["warmup_s"] >= 0 and startup["load_s"] >= startup["warmup_s"]


def test_arguments_clients_ramp_arrivals_and_rates():
    args = gpu_bench.build_parser().parse_args(
        ["--clients", "8", "--ramp-max", "2048", "--arrivals", "closed,poisson", "--rates", "100,50"]
    )
    assert args.clients == 8 and args.ramp_max == 2048
    assert args.arrivals == ("closed", "poisson") and args.rates == (100.0, 50.0)
    defaults = gpu_bench.build_parser().parse_args([])
    assert defaults.arrivals == ("closed", "staggered", "poisson") and defaults.clients is None
    for bad in (["--arrivals", "burst"], ["--rates", "0"], ["--rates", "x"]):
        with pytest.raises(SystemExit):
            gpu_bench.build_parser().parse_args(bad)
    for bad in (["--clients", "0"], ["--ramp-max", "5000"], ["--server-chunk-frames", "32,0"]):
        with pytest.raises(SystemExit):  # checked before anything is measured
            gpu_bench.main(bad)
    assert defaults.server_chunk_frames == (64,)
    assert gpu_bench.build_parser().parse_args(["--server-chunk-frames", "32,64"]).server_chunk_frames == (
        32,
        64,
    )


def test_server_variants_share_the_time_and_only_the_first_keeps_its_records_beside_the_json():
    (only,) = gpu_bench.server_variants((32,))
    assert only.section == "server"
    assert only.env == {"STATESPEAK_MAX_CHUNK_FRAMES": "32", "STATESPEAK_ENGINES": "1"}
    assert only.suffix == "" and only.records_dir is None and only.reserve_fraction == 0.0
    runs = gpu_bench.server_variants((32, 64, 16))
    assert [v.section for v in runs] == ["server", "server_chunk64", "server_chunk16"]
    assert [v.env["STATESPEAK_MAX_CHUNK_FRAMES"] for v in runs] == ["32", "64", "16"]
    assert [v.suffix for v in runs] == ["", "-chunk64", "-chunk16"]
    # each leaves the runs after it an equal share of what is left: 2/3, then 1/2, then everything
    assert [v.reserve_fraction for v in runs] == [pytest.approx(2 / 3), 0.5, 0.0]
    # a variant's per-stream records and log stay out of the returned folder (at most 8 files come back)
    assert runs[0].records_dir is None and all(v.records_dir.is_dir() for v in runs[1:])
    # engine counts cross the chunk settings; a run with more than one engine says so in its name
    runs = gpu_bench.server_variants((64, 128), (1, 2))
    assert [v.section for v in runs] == [
        "server", "server_chunk64_engines2", "server_chunk128", "server_chunk128_engines2"]  # fmt: skip
    assert [(v.env["STATESPEAK_MAX_CHUNK_FRAMES"], v.env["STATESPEAK_ENGINES"]) for v in runs] == [
        ("64", "1"), ("64", "2"), ("128", "1"), ("128", "2")]  # fmt: skip
    assert [v.suffix for v in runs] == ["", "-chunk64-engines2", "-chunk128", "-chunk128-engines2"]
    assert gpu_bench.build_parser().parse_args(["--server-engines", "1,2"]).server_engines == (1, 2)


def test_decode_plot_and_summary_of_the_server_capacities(tmp_path):
    rows = [
        {
            "cuda_graphs": g,
            "frames": f,
            "batch": b,
            "step_ms": 1.0 + b / 100,
            "x_real_time": 50.0 / (1 + b / 100),
        }
        for g in (False, True)
        for f in (4, 32)
        for b in (1, 64, 4096)
    ]
    gpu_bench.plot_decode({"rows": rows}, tmp_path / "d.png")
    assert (tmp_path / "d.png").read_bytes()[:4] == b"\x89PNG"
    server = {
        "max_realtime_streams": 512,
        "max_realtime_streams_staggered": 1024,
        "open_loop_capacity": {"rate_per_s": 100.0, "in_flight_peak": 700},
        "clients": 8,
        "client_limited_levels": ["c=4096"],
    }
    (line,) = [x for x in gpu_bench.summary_lines({"server": server}) if x.startswith("server:")]
    assert "closed loop 512, staggered 1024, Poisson 100/s (700 in flight at the peak)" in line
    assert "8 client processes, CLIENT-LIMITED at c=4096" in line
    server["engine"] = {
        "busy": 0.93,
        "us_per_chunk": {"all": 85.0},
        "per_chunk_us": 210.0,
        "step_per_frame_us": 0.65,
        "step_fixed_ms": 1.1,
        "mean_batch": 312.5,
        "steps_per_tick": 1.25,
        "phase_s": {"model_step": 2.0, "plan": 5.0, "encode": 1.0, "send": 2.0, "admit": 0.0},
    }
    server["levels"] = [
        {"label": "c=64", "engine": {"busy": 0.31, "us_per_chunk": {"all": 120.4}, "steps_per_tick": 1.5}},
        {"label": "c=128", "engine": None},  # a level without an account (none is printed)
    ]
    (line,) = [x for x in gpu_bench.summary_lines({"server": server}) if x.startswith("engine:")]
    assert line == (
        "engine: busy 0.93 s per s over the ramp, 85 us per chunk served; cost model: 210 us per chunk "
        "besides its frames, step 1.10 ms fixed + 0.65 us per stream-frame; mean batch 312.5, 1.25 steps per tick"
    )
    # a JSON written before the per-level account (2026-12-04's H200 run) is still summarized, without it
    old = dict(server, engine={"statespeak_engine_seconds_per_chunk": 2.1e-4, "phase_seconds": {"plan": 1.0}})
    old["levels"] = [{"label": "c=1"}]
    lines = gpu_bench.summary_lines({"server": old})
    assert not [x for x in lines if x.startswith(("engine:", "engine by level"))]
    assert "engine time by phase: plan 100% of 1.0 s" in lines
    (line,) = [x for x in gpu_bench.summary_lines({"server": server}) if x.startswith("engine by level")]
    assert line == "engine by level: c=64 busy 0.31, 120 us/chunk, 1.5 steps/tick"
    (line,) = [x for x in gpu_bench.summary_lines({"server": server}) if x.startswith("engine time")]
    assert line == "engine time by phase: plan 50%, model_step 20%, send 20%, encode 10% of 10.0 s"
    variant = dict(server, max_realtime_streams=1024)  # a run with 64-frame chunks, summarized beside it
    lines = gpu_bench.summary_lines({"server": server, "server_chunk64": variant})
    assert [x.split(":")[0] for x in lines if x.startswith(("server:", "engine", "server_chunk"))] == [
        "server", "engine", "engine time by phase", "engine by level",
        "server_chunk64", "server_chunk64 engine", "server_chunk64 engine time by phase",
        "server_chunk64 engine by level",
    ]  # fmt: skip
    assert "server_chunk64: max real-time streams closed loop 1024," in lines[-4]
    # with the GPU's busy share (NVML) beside the engine's, the ramp's and each level's
    measured = dict(server, gpu_busy=0.17)
    measured["levels"] = [dict(server["levels"][0], gpu_busy=0.4)]
    lines = gpu_bench.summary_lines({"server": measured})
    assert [x for x in lines if x.startswith("engine:")][0].startswith(
        "engine: busy 0.93 s per s over the ramp (the GPU 0.17), 85 us"
    )
    assert "engine by level: c=64 busy 0.31, 120 us/chunk, 1.5 steps/tick, GPU busy 0.40" in lines


def test_gpu_busy_integrates_the_utilization_over_time():
    readings = iter([50, 50, 100, 0])
    busy = gpu_bench.GpuBusy(read=lambda: next(readings), start=False)
    for now in (
        10.0,
        12.0,
        13.0,
        14.0,
    ):  # the first sample sets the clock: 50 % of 2 s, 100 % of 1 s, 0 % of 1 s
        busy.sample(now)
    assert busy.busy_seconds() == pytest.approx(2.0)  # (the readings ran out: a failed one adds nothing)
    with gpu_bench.GpuBusy(period_s=0.01, read=lambda: 100) as running:  # the thread samples on its own
        first = running.busy_seconds()
        time.sleep(0.05)
        assert running.busy_seconds() > first


@pytest.mark.skipif(has_gpu(), reason="checks the no-GPU path")
def test_gpu_busy_is_none_without_a_gpu():
    with gpu_bench.GpuBusy() as busy:
        assert busy.busy_seconds() is None


def test_a_levels_gpu_busy_share_is_its_busy_seconds_over_its_wall_time():
    from model_server.bench.runner import LevelResult

    level = LevelResult(concurrency=4, records=[], cut=0, elapsed_s=2.0, gpu_busy_s=0.5)
    assert level.summary(200.0)["gpu_busy"] == 0.25
    assert LevelResult(concurrency=4, records=[], cut=0, elapsed_s=2.0).summary(200.0)["gpu_busy"] is None


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_quick_run_on_a_gpu(tmp_path):
    out = tmp_path / "gpu.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--max-seconds", "300", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    result = json.loads(out.read_text())
    assert result["hardware"]["device_name"]
    assert result["decode"]["rows"], proc.stderr[-2000:]
    assert result["parity"]["ok"], result["parity"]
    assert result["kernels"]["path"].startswith("triton") and not result["kernels"]["fallback"]
    assert result["server"]["startup"]["kernel_path"].startswith("triton")
    assert result["server"]["levels"], proc.stderr[-2000:]
    assert proc.returncode == 0, proc.stderr[-2000:]

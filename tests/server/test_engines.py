"""Several engine processes (STATESPEAK_ENGINES, `serve --engines`): the knob and its refusals, each engine's
share of MAX_STREAMS and of the CPU, the workers' least-loaded routing, and /metrics gathered from every
engine. The real multi-engine server (admission, EMF, drain, a killed engine) is in test_processes.py."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import subprocess
import sys

import pytest

from model_server.config import ENV_ENGINES, ENV_MAX_STREAMS, ConfigError, ServerConfig
from model_server.engine import protocol as p
from model_server.engine.client import EngineClient, merge_prometheus
from model_server.metrics import ServerMetrics
from model_server.threads import available_cpus, plan_threads

from ._server import REPO


@pytest.mark.parametrize(
    ("max_streams", "engines", "slots"),
    [(16, 1, [16]), (16, 2, [8, 8]), (5, 2, [3, 2]), (7, 3, [3, 2, 2]), (4, 4, [1, 1, 1, 1])],
)
def test_the_engines_share_max_streams_exactly(max_streams, engines, slots):
    config = ServerConfig.from_env({ENV_MAX_STREAMS: str(max_streams), ENV_ENGINES: str(engines)})
    assert config.engines == engines and config.engine_slots() == slots and sum(slots) == max_streams


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({ENV_ENGINES: "0"}, "out of range"),
        ({ENV_ENGINES: "17"}, "out of range"),
        ({ENV_ENGINES: "two"}, "not an integer"),
        ({ENV_ENGINES: "3", ENV_MAX_STREAMS: "2"}, "every engine needs a slot"),
    ],
)
def test_a_bad_engine_count_names_the_variable(env, message):
    with pytest.raises(ConfigError, match=message) as err:
        ServerConfig.from_env(env)
    assert ENV_ENGINES in str(err.value)


@pytest.mark.parametrize(
    ("args", "message"), [(["--engines", "0"], "out of range"), (["--engines", "9"], "MAX_STREAMS=4")]
)
def test_serve_refuses_a_bad_engines_flag_before_loading_anything(args, message):
    proc = subprocess.run(
        [sys.executable, "-m", "model_server", "serve", "--port", "1", *args],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", ENV_MAX_STREAMS: "4"},
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard, not a timing check
    )
    assert proc.returncode == 2 and message in proc.stderr


def test_the_engines_split_the_cpus_left_by_the_workers():
    cpus = available_cpus()
    one = dataclasses.replace(ServerConfig(), workers=0, engines=1)
    two = dataclasses.replace(one, engines=2)
    assert plan_threads(one, cuda=False, env={}).intra_op == cpus
    assert plan_threads(two, cuda=False, env={}).intra_op == max(1, cpus // 2)
    assert plan_threads(two, cuda=True, env={}).intra_op == 1  # the host side launches kernels only


def test_a_new_stream_opens_on_the_engine_with_the_lowest_share_in_use():
    async def main():
        loads = [3, 1]  # the engines' own counts (the supervisor's shared array)
        client = EngineClient(["ipc:///e0", "ipc:///e1"], b"w0.1", loads, slots=[4, 2])
        first = client.open_stream("v", "en", 1.0, None)  # 3/4 against 1/2: engine 1
        second = client.open_stream("v", "en", 1.0, None)  # 3/4 against (1 + 1 opening)/2: engine 0
        opened = [client._link_of[s.id].index for s in (first, second)]
        pending = [[item[0] for item in link.pending] for link in client.links]
        client._dispatch(client.links[1], (p.ADMITTED, first.id))
        client._dispatch(client.links[0], (p.REFUSED, second.id, "full", "no slot"))
        await first.admitted()
        with pytest.raises(p.AdmissionError):
            await second.admitted()
        second.cancel()  # a refused stream's ops go nowhere
        return (
            opened,
            pending,
            [link.opening for link in client.links],
            [link.pending for link in client.links],
        )

    opened, pending, opening, after = asyncio.run(main())
    assert opened == [1, 0]
    assert pending == [[p.OPEN], [p.OPEN]]  # each stream's OPEN went to its own engine only
    assert opening == [0, 0]
    assert after[0] == [(p.OPEN, 2, "v", "en", 1.0)]  # (unsent in this test) and no CANCEL after the refusal


def test_without_the_shared_counts_a_worker_spreads_its_own_streams():
    async def main():
        client = EngineClient(["ipc:///e0", "ipc:///e1"], b"w0.1", slots=[1, 1])
        return [client._link_of[client.open_stream("v", "en", 1.0, None).id].index for _ in range(4)]

    assert asyncio.run(main()) == [0, 1, 0, 1]


def test_the_task_is_ready_only_when_every_engine_is_and_fails_if_one_does():
    async def main():
        client = EngineClient(["ipc:///e0", "ipc:///e1"], b"w0.1")
        catalog = p.Catalog([], frozenset({"en"}), 16000, ["<pad>"], "double")
        client._warm_frontends = lambda catalog: None
        seen = []
        client._dispatch(client.links[0], (p.STATUS, "ready", "", catalog, 0))
        seen.append((client.phase, client.catalog is not None))
        client._dispatch(client.links[1], (p.STATUS, "ready", "", catalog, 2))
        seen.append((client.phase, client.catalog is not None, client.active))
        client._dispatch(client.links[1], (p.STATUS, "failed", "cuda_unavailable: no GPU", catalog, 0))
        seen.append((client.phase, client.reason))
        return seen

    assert asyncio.run(main()) == [
        ("loading", False),
        ("ready", True, 2),
        ("failed", "cuda_unavailable: no GPU"),
    ]


def test_metrics_from_several_engines_carry_an_engine_label_and_parse_back():
    from prometheus_client.parser import text_string_to_metric_families

    texts = {}
    for index, (active, slots) in enumerate(((2, 3), (1, 2))):
        m = ServerMetrics("local", slots)
        m.bind_active(lambda active=active: active)
        m.stream_finished(outcome="done", ttfb_ms=20.0 + index, rtf=0.1, audio_s=1.5, error_kind="")
        texts[index] = m.prometheus_text()
    text = merge_prometheus(texts).decode()
    assert re.search(r'^statespeak_active_streams\{engine="0"\} 2\.0$', text, re.M)
    assert re.search(r'^statespeak_active_streams\{engine="1"\} 1\.0$', text, re.M)
    assert re.search(r'^statespeak_max_streams\{engine="1"\} 2\.0$', text, re.M)
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert text.count("# TYPE statespeak_active_streams gauge") == 1  # one family, two engines' samples
    ttfb = [f for name, f in families.items() if "first_audio" in name][0]
    counts = [s for s in ttfb.samples if s.name.endswith("_count")]
    assert sorted(s.labels["engine"] for s in counts) == ["0", "1"] and all(s.value == 1 for s in counts)


def test_the_task_active_streams_in_emf_comes_from_one_engine(capsys):
    import io
    import json

    out = io.StringIO()
    lead, other = ServerMetrics("local", 2, emf_out=out), ServerMetrics("local", 2, emf_out=out)
    for m in (lead, other):
        m.bind_active(lambda: 2)
    lead.bind_task_active(lambda: 4)
    other.bind_task_active(None)
    lead.emit_periodic()
    other.emit_periodic()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0]["ActiveStreams"] == 4 and "ActiveStreams" not in lines[1]
    assert all("StreamErrors" in line for line in lines)

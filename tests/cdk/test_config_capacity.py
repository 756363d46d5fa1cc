"""stacks.config accepts the stream counts of a GPU replica at scale (issue 15), up to the server's own
MAX_STREAMS bound, and still refuses a set point above the admission limit."""

from __future__ import annotations

import pytest

from model_server.config import ServerConfig
from model_server.contract import ENV_ENGINES, ENV_MAX_STREAMS, MAX_ENGINES, MAX_STREAMS_LIMIT
from stacks.config import ConfigError, StatespeakConfig, load_context


def make(**overrides) -> StatespeakConfig:
    return StatespeakConfig.from_context(load_context(overrides))


def test_thousands_of_streams_per_task_are_accepted():
    config = make(target_streams_per_task="768", max_streams_per_task="1024")
    assert (config.target_streams_per_task, config.max_streams_per_task) == (768, 1024)
    top = make(target_streams_per_task=MAX_STREAMS_LIMIT, max_streams_per_task=MAX_STREAMS_LIMIT)
    assert top.max_streams_per_task == 4096


def test_the_stack_limit_is_the_servers_limit():
    # Whatever the stack accepts, the server accepts as MAX_STREAMS (and nothing above it).
    assert ServerConfig.from_env({ENV_MAX_STREAMS: str(MAX_STREAMS_LIMIT)}).max_streams == MAX_STREAMS_LIMIT
    with pytest.raises(ConfigError, match=f"max_streams_per_task=4097 .*from 1 to {MAX_STREAMS_LIMIT}"):
        make(max_streams_per_task=MAX_STREAMS_LIMIT + 1)
    with pytest.raises(ConfigError, match="target_streams_per_task=1025 exceeds max_streams_per_task=1024"):
        make(target_streams_per_task=1025, max_streams_per_task=1024)


def test_engines_per_task_is_the_servers_engine_count_and_needs_a_slot_each():
    assert make().engines_per_task == 1
    assert make(engines_per_task="4", max_streams_per_task="512").engines_per_task == 4
    assert (
        ServerConfig.from_env({ENV_ENGINES: str(MAX_ENGINES), ENV_MAX_STREAMS: "512"}).engines == MAX_ENGINES
    )
    with pytest.raises(ConfigError, match=f"engines_per_task=17 .*from 1 to {MAX_ENGINES}"):
        make(engines_per_task=MAX_ENGINES + 1)
    with pytest.raises(ConfigError, match="engines_per_task=0"):
        make(engines_per_task=0)
    with pytest.raises(ConfigError, match="engines_per_task=9 exceeds max_streams_per_task=8"):
        make(engines_per_task=9, max_streams_per_task=8, target_streams_per_task=6)

"""Both deployment routes pin the server to CUDA: on a GPU host it never serves from the CPU or the torch
fallback (the server then stays unready instead, tests/server/test_startup.py)."""

from __future__ import annotations

from model_server.contract import DEVICE_CUDA, ENV_DEVICE, ENV_ENGINES

ECS, SM = "Ecs", "SageMaker"


def test_ecs_task_sets_statespeak_device_cuda(default_synth, full_synth):
    for result, engines in ((default_synth, "1"), (full_synth, "2")):
        (container,) = result.only(ECS, "AWS::ECS::TaskDefinition")["ContainerDefinitions"]
        env = {e["Name"]: e["Value"] for e in container["Environment"]}
        assert env[ENV_DEVICE] == DEVICE_CUDA
        assert env[ENV_ENGINES] == engines  # engines_per_task reaches the server


def test_sagemaker_model_sets_statespeak_device_cuda(full_synth):
    container = full_synth.only(SM, "AWS::SageMaker::Model")["PrimaryContainer"]
    assert container["Environment"][ENV_DEVICE] == DEVICE_CUDA

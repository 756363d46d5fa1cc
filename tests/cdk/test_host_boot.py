"""The GPU hosts' boot script (the launch template's user data), run under bash as cloud-init runs it, in a
sandbox: its absolute paths move under a temporary root, and the host's own tools (dnf, mount, rpm, lfs, the
CloudWatch agent, shutdown) are small stand-ins on PATH that do what the ECS GPU AMI's do to the file system.

A reading of the script as text passed while every real host shut itself down at boot: the metrics config was
written into the CloudWatch agent's directory before the agent (absent from the AMI) was installed, and the
ERR trap powered the host off before it joined the cluster."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ECS = "Ecs"

# The host's tools. `dnf install` of the agent creates its directories and its control script, as the RPM does.
_TOOLS = {
    "dnf": """#!/bin/bash
echo "dnf $*" >> "$SANDBOX/calls"
if [[ " $* " == *" amazon-cloudwatch-agent "* ]]; then
  mkdir -p "$SANDBOX/opt/aws/amazon-cloudwatch-agent/etc" "$SANDBOX/opt/aws/amazon-cloudwatch-agent/bin"
  printf '#!/bin/bash\\necho "agent $*" >> "$SANDBOX/calls"\\n' \\
    > "$SANDBOX/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl"
  chmod +x "$SANDBOX/opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl"
fi
""",
    "rpm": "#!/bin/bash\necho 2023.6\n",
    "mount": '#!/bin/bash\necho "mount $*" >> "$SANDBOX/calls"\n',
    "mountpoint": "#!/bin/bash\nexit 0\n",
    "lfs": "#!/bin/bash\nexit 0\n",
    "shutdown": '#!/bin/bash\necho "shutdown $*" >> "$SANDBOX/shutdown"\n',
}


def _script(result) -> str:
    """The user data with CloudFormation's references filled in as a deploy would."""
    data = result.only(ECS, "AWS::EC2::LaunchTemplate")["LaunchTemplateData"]["UserData"]
    names = {"AWS::URLSuffix": "amazonaws.com"}
    out = []
    for part in data["Fn::Base64"]["Fn::Join"][1]:
        if isinstance(part, str):
            out.append(part)
        elif "Ref" in part:
            out.append(names.get(part["Ref"], f"{part['Ref'].lower()}-0123"))
        else:  # Fn::GetAtt, the Lustre mount name
            out.append("mountname")
    return "".join(out)


def _boot(script: str, root: Path, tools: dict[str, str] = _TOOLS) -> subprocess.CompletedProcess:
    """Run the script with its /etc, /opt and /mnt under `root` and `tools` first on PATH."""
    bin_dir = root / "bin"
    bin_dir.mkdir()
    for name, body in tools.items():
        (bin_dir / name).write_text(body)
        (bin_dir / name).chmod(0o755)
    (root / "etc" / "ecs").mkdir(parents=True)  # the AMI's ECS agent config directory
    script = re.sub(r"(?<![\w/.-])(?=/(?:etc|opt|mnt)\b)", str(root), script)  # each path's start, once
    script = script.replace("sleep 10", "sleep 0")  # the mount's retry loop
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SANDBOX": str(root)}
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("variant", ["default_synth", "full_synth"])  # FSx for Lustre, and EFS
def test_the_host_boot_script_joins_the_cluster(variant, request, tmp_path):
    run = _boot(_script(request.getfixturevalue(variant)), tmp_path)
    assert not (tmp_path / "shutdown").exists(), f"the host shut itself down:\n{run.stderr[-3000:]}"
    assert run.returncode == 0, run.stderr[-3000:]
    config = (tmp_path / "etc" / "ecs" / "ecs.config").read_text().splitlines()
    assert config[-1].startswith("ECS_CLUSTER=gpucluster")  # joining is the last step
    assert "ECS_ENABLE_GPU_SUPPORT=true" in config
    agent_config = tmp_path / "opt/aws/amazon-cloudwatch-agent/etc/statespeak-gpu.json"
    assert "nvidia_gpu" in json.loads(agent_config.read_text())["metrics"]["metrics_collected"]
    assert "agent -a fetch-config" in (tmp_path / "calls").read_text()


def test_a_host_whose_weights_mount_fails_shuts_down(default_synth, tmp_path):
    """The other half of the contract: without its weights a host powers off instead of joining."""
    _boot(_script(default_synth), tmp_path, {**_TOOLS, "mountpoint": "#!/bin/bash\nexit 1\n"})
    assert (tmp_path / "shutdown").read_text().startswith("shutdown -h now")
    assert "ECS_CLUSTER=" not in (tmp_path / "etc" / "ecs" / "ecs.config").read_text()

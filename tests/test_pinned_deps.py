"""The optional tool sets' installer (`pinned_deps.ensure_target`), with the real installer (uv) on local files."""

import subprocess
import sys

import pytest

from model_server import pinned_deps


def test_an_install_that_fails_is_tried_again_then_named(tmp_path, monkeypatch):
    requirements = tmp_path / "requirements-x.txt"
    requirements.write_text(str(tmp_path / "missing-0.1-py3-none-any.whl") + "\n")
    runs = []
    real_run = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda *a, **kw: runs.append(a) or real_run(*a, **kw))
    with pytest.raises(RuntimeError, match=r"requirements-x\.txt into .*\(3 attempts\)"):
        pinned_deps.ensure_target(requirements, tmp_path / "target", retry_delays_s=(0, 0))
    assert len(runs) == 3 and not (tmp_path / "target" / ".installed").exists()


def test_an_installed_set_is_stamped_put_on_the_path_and_not_installed_again(tmp_path, monkeypatch):
    requirements = tmp_path / "requirements-empty.txt"
    requirements.write_text("# nothing to install\n")
    folder = tmp_path / "target"
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert pinned_deps.ensure_target(requirements, folder, retry_delays_s=()) == folder
    assert (folder / ".installed").is_file() and sys.path[0] == str(folder)
    runs = []

    def recorded(command, **kw):
        runs.append(command)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(subprocess, "run", recorded)
    pinned_deps.ensure_target(requirements, folder)
    assert runs == []  # the stamp matches the file: the installer does not run
    requirements.write_text("# changed\n")
    pinned_deps.ensure_target(requirements, folder)
    assert len(runs) == 1 and str(requirements) in runs[0]  # a changed file installs again

"""The image asset's hash moves only when what goes into the image does.

CDK hashes the asset's build context; a hash change rolls every GPU task and blue/greens the SageMaker
endpoint. The real ServerImage construct is synthesized in a small stack over a temporary copy of the
repository files (the real checkout is never touched), before and after an edit.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from aws_cdk import App, Stack

from statespeak_constructs.image import DOCKERIGNORE, ServerImage, ServerImageProps, asset_excludes

REPO = Path(__file__).resolve().parents[2]


def asset_hash(repo_root: Path, outdir: Path) -> str:
    app = App(outdir=str(outdir))
    stack = Stack(app, "ImageOnly")
    image = ServerImage(stack, "Image", ServerImageProps(source="asset", tag="", repo_root=repo_root))
    return image.node.find_child("Asset").asset_hash


def repo_copy(dest: Path) -> Path:
    """The files the image build and its neighbours at the root: README, docs, a stack module."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "model_server", dest / "model_server", ignore=ignore)
    shutil.copytree(REPO / "docs", dest / "docs", ignore=ignore)
    shutil.copy2(REPO / "README.md", dest / "README.md")
    shutil.copy2(REPO / "app.py", dest / "app.py")
    return dest


def test_readme_edit_and_stray_log_keep_the_asset_hash(tmp_path):
    root = repo_copy(tmp_path / "repo")
    before = asset_hash(root, tmp_path / "out1")
    (root / "README.md").write_text((root / "README.md").read_text() + "\nAn edit unrelated to the image.\n")
    (root / "demo.server.log").write_text('{"level": "INFO", "message": "ready"}\n')
    (root / "docs" / "server.md").write_text("rewritten\n")
    (root / "model_server" / "__pycache__").mkdir(exist_ok=True)
    (root / "model_server" / "__pycache__" / "config.cpython-312.pyc").write_bytes(b"\0stale")
    assert asset_hash(root, tmp_path / "out2") == before


def test_an_edit_under_model_server_changes_the_asset_hash(tmp_path):
    root = repo_copy(tmp_path / "repo")
    before = asset_hash(root, tmp_path / "out1")
    config = root / "model_server" / "config.py"
    config.write_text(config.read_text() + "\n# a server change\n")
    assert asset_hash(root, tmp_path / "out2") != before


def test_the_context_is_an_allow_list_shared_with_docker():
    lines = asset_excludes(REPO)
    assert lines[0] == "**" and "!model_server" in lines  # everything out, then the package back in
    assert (REPO / DOCKERIGNORE).name == "Dockerfile.dockerignore"  # Docker's per-Dockerfile ignore name

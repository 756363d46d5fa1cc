"""lambda/weights_sync: the S3 -> EFS copy logic, run on real files with a local S3 double.

The double serves a directory through the two boto3 calls the handler uses (list_objects_v2 paginator,
download_file); ETags are MD5s of the content like S3's for single-part uploads. Nothing talks to AWS.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.support.lambdas import load_handler

handler = load_handler("weights_sync")

BUCKET, PREFIX = "weights-bucket", "weights/"


class DirectoryS3:
    """A bucket backed by a local directory: key = path relative to `root`."""

    def __init__(self, root: Path, page_size: int = 2) -> None:
        self.root = root
        self.page_size = page_size
        self.downloads: list[str] = []

    def put(self, key: str, data: bytes) -> None:
        path = self.root / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    def delete(self, key: str) -> None:
        (self.root / key).unlink()

    def get_paginator(self, operation_name: str):
        assert operation_name == "list_objects_v2"
        s3 = self

        class Paginator:
            def paginate(self, Bucket: str, Prefix: str):  # noqa: N803 (boto3 names)
                assert Bucket == BUCKET
                objects = []
                for path in sorted(p for p in s3.root.rglob("*") if p.is_file()):
                    key = path.relative_to(s3.root).as_posix()
                    if key.startswith(Prefix):
                        data = path.read_bytes()
                        objects.append(
                            {"Key": key, "Size": len(data), "ETag": f'"{hashlib.md5(data).hexdigest()}"'}
                        )
                if not objects:
                    yield {"KeyCount": 0}
                for i in range(0, len(objects), s3.page_size):
                    yield {"Contents": objects[i : i + s3.page_size]}

        return Paginator()

    def download_file(self, Bucket: str, Key: str, Filename: str) -> None:  # noqa: N803
        assert Bucket == BUCKET
        self.downloads.append(Key)
        Path(Filename).write_bytes((self.root / Key).read_bytes())


@pytest.fixture
def s3(tmp_path) -> DirectoryS3:
    bucket = DirectoryS3(tmp_path / "bucket")
    bucket.put("weights/v1/config.json", b'{"d_model": 192}')
    bucket.put("weights/v1/model.safetensors", b"\x00" * 4096)
    bucket.put("weights/v1/voices/slt.json", b'{"id": "slt"}')
    bucket.put("weights/v2/config.json", b"{}")
    bucket.put("other/secret.txt", b"not weights")
    return bucket


@pytest.fixture
def mount(tmp_path) -> Path:
    path = tmp_path / "efs"
    path.mkdir()
    return path


def sync(s3, mount, version="v1"):
    return handler.sync_version(s3, BUCKET, PREFIX, version, mount)


def test_first_sync_copies_the_version_folder_only(s3, mount):
    result = sync(s3, mount)
    assert sorted(result.copied) == ["config.json", "model.safetensors", "voices/slt.json"]
    assert (mount / "v1" / "model.safetensors").read_bytes() == b"\x00" * 4096
    assert (mount / "v1" / "voices" / "slt.json").read_text() == '{"id": "slt"}'
    assert not (mount / "v2").exists() and not (mount / "other").exists()
    assert not list(mount.rglob("*.statespeak-partial"))


def test_second_sync_copies_nothing(s3, mount):
    sync(s3, mount)
    s3.downloads.clear()
    result = sync(s3, mount)
    assert result.copied == [] and len(result.unchanged) == 3 and s3.downloads == []


def test_changed_and_deleted_objects_are_mirrored(s3, mount):
    sync(s3, mount)
    s3.put("weights/v1/model.safetensors", b"\x01" * 10)
    s3.delete("weights/v1/voices/slt.json")
    result = sync(s3, mount)
    assert result.copied == ["model.safetensors"] and result.deleted == ["voices/slt.json"]
    assert (mount / "v1" / "model.safetensors").read_bytes() == b"\x01" * 10
    assert not (mount / "v1" / "voices" / "slt.json").exists()


def test_a_locally_damaged_file_is_recopied(s3, mount):
    sync(s3, mount)
    (mount / "v1" / "config.json").write_text("truncated")
    assert sync(s3, mount).copied == ["config.json"]


def test_empty_version_is_an_error_naming_the_prefix(s3, mount):
    with pytest.raises(handler.SyncError, match="s3://weights-bucket/weights/v9/ holds no objects"):
        sync(s3, mount, "v9")


@pytest.mark.parametrize("version", ["../etc", "", "a/b", ".hidden"])
def test_bad_version_names_are_refused(s3, mount, version):
    with pytest.raises(handler.SyncError, match="not a folder name"):
        sync(s3, mount, version)


@pytest.mark.parametrize(
    "key",
    [
        "weights/v1/../v2/config.json",
        "weights/v1//config.json",
        "weights/v1/./config.json",
        "weights/v1/" + "x/" + handler.MANIFEST,
    ],
)
def test_keys_escaping_the_folder_or_reserved_are_refused(key):
    with pytest.raises(handler.SyncError, match=repr(key)):
        handler._relative_path(key, "weights/v1/")


def test_folder_markers_are_skipped():
    assert handler._relative_path("weights/v1/voices/", "weights/v1/") is None
    assert handler._relative_path("weights/v1/voices/a.json", "weights/v1/") == "voices/a.json"


def test_custom_resource_create_syncs_and_delete_keeps_files(s3, mount):
    create = {"RequestType": "Create", "ResourceProperties": {"Version": "v1", "ContentHash": "abc"}}
    response = handler.dispatch(create, s3, BUCKET, PREFIX, mount)
    assert response["PhysicalResourceId"] == "weights-sync-v1"
    assert response["Data"] == {"Version": "v1", "Copied": 3, "Unchanged": 0, "Deleted": 0}
    delete = {
        "RequestType": "Delete",
        "PhysicalResourceId": "weights-sync-v1",
        "ResourceProperties": {"Version": "v1"},
    }
    assert handler.dispatch(delete, s3, BUCKET, PREFIX, mount) == {"PhysicalResourceId": "weights-sync-v1"}
    assert (mount / "v1" / "config.json").exists()


def test_eventbridge_upload_event_syncs_that_version(s3, mount):
    event = {
        "source": "aws.s3",
        "detail-type": "Object Created",
        "detail": {"bucket": {"name": BUCKET}, "object": {"key": "weights/v2/config.json"}},
    }
    assert handler.dispatch(event, s3, BUCKET, PREFIX, mount)["Version"] == "v2"
    assert (mount / "v2" / "config.json").read_bytes() == b"{}"


def test_deleting_a_whole_version_keeps_its_copy(s3, mount):
    sync(s3, mount, "v2")
    s3.delete("weights/v2/config.json")
    event = {
        "source": "aws.s3",
        "detail-type": "Object Deleted",
        "detail": {"bucket": {"name": BUCKET}, "object": {"key": "weights/v2/config.json"}},
    }
    assert handler.dispatch(event, s3, BUCKET, PREFIX, mount)["EmptyInBucket"] is True
    assert (mount / "v2" / "config.json").exists()
    with pytest.raises(handler.EmptyVersionError):  # a deploy-time sync of it still fails loudly
        handler.dispatch(
            {"RequestType": "Update", "ResourceProperties": {"Version": "v2"}}, s3, BUCKET, PREFIX, mount
        )


def test_a_version_folder_deleted_key_by_key_keeps_its_whole_copy(s3, mount):
    """S3 sends one event per deleted key: each run mirrored the deletions it saw, so the copy went file by
    file and only the last run found the folder empty. An event's sync copies and never deletes."""
    sync(s3, mount, "v1")
    copy = sorted(p.relative_to(mount).as_posix() for p in mount.rglob("*") if p.is_file())
    keys = sorted(
        p.relative_to(s3.root).as_posix() for p in (s3.root / "weights" / "v1").rglob("*") if p.is_file()
    )
    assert len(keys) == 3
    for key in keys:
        s3.delete(key)
        event = {
            "source": "aws.s3",
            "detail-type": "Object Deleted",
            "detail": {"bucket": {"name": BUCKET}, "object": {"key": key}},
        }
        handler.dispatch(event, s3, BUCKET, PREFIX, mount)
    assert sorted(p.relative_to(mount).as_posix() for p in mount.rglob("*") if p.is_file()) == copy


def test_event_for_another_bucket_is_refused(s3, mount):
    event = {
        "source": "aws.s3",
        "detail": {"bucket": {"name": "elsewhere"}, "object": {"key": "weights/v1/a"}},
    }
    with pytest.raises(handler.SyncError, match="'elsewhere'"):
        handler.dispatch(event, s3, BUCKET, PREFIX, mount)


def test_manual_invoke_and_unknown_events(s3, mount):
    assert handler.dispatch({"version": "v1"}, s3, BUCKET, PREFIX, mount)["Copied"] == 3
    with pytest.raises(handler.SyncError, match="unrecognised event"):
        handler.dispatch({"hello": "world"}, s3, BUCKET, PREFIX, mount)


def test_manifest_records_etags(s3, mount):
    sync(s3, mount)
    manifest = json.loads((mount / "v1" / handler.MANIFEST).read_text())
    assert manifest["config.json"] == hashlib.md5(b'{"d_model": 192}').hexdigest()


def test_overlapping_syncs_of_one_version_both_finish_with_complete_files(s3, mount):
    """No reserved concurrency: one upload fires an event per object, and runs may overlap. A second run
    starting while the first is mid-download must not clobber the first one's temporary file."""

    class OverlappingS3(DirectoryS3):
        started = False

        def download_file(self, Bucket: str, Key: str, Filename: str) -> None:  # noqa: N803
            super().download_file(Bucket, Key, Filename)
            if not self.started:  # after the first download: a second run starts and finishes meanwhile
                self.started = True
                inner = sync(self, mount)
                assert sorted(inner.copied) == ["config.json", "model.safetensors", "voices/slt.json"]

    overlapping = OverlappingS3(s3.root)
    outer = sync(overlapping, mount)
    assert outer.version == "v1"
    assert (mount / "v1" / "model.safetensors").read_bytes() == b"\x00" * 4096
    assert (mount / "v1" / "config.json").read_text() == '{"d_model": 192}'
    assert not list(mount.rglob("*.statespeak-partial"))

"""Copy one weights version from S3 onto the EFS access point mounted at MOUNT_PATH.

Invoked three ways, all handled by `handler`:
- the CloudFormation custom resource (through the CDK Provider framework) on deploy: syncs the version the
  service is about to load, so tasks never start on an empty folder;
- an EventBridge "Object Created" event from the weights bucket: re-syncs the version the object belongs to
  (uploading weights/v2/... fills /weights/v2 on EFS), copying only: such a run deletes nothing from EFS;
- a manual `aws lambda invoke` with `{"version": "v2"}`.

The copy is incremental and safe under readers: a file is only fetched when its size or ETag changed,
lands under a temporary name and is renamed into place (atomic on one file system), so a server loading
the folder never reads a half-written file. Files deleted from S3 are deleted from EFS by a deploy-time or
manual sync, never by an event's: S3 sends one event per deleted key, and a folder removed from the bucket
lost its EFS copy file by file while the served version (or a rollback's) still needed it. The ETag of every
copied file is remembered in a manifest inside the version folder. Runs may overlap (one upload fires an
event per object and the function reserves no concurrency): every run writes its own temporary names, so
two runs copying the same file both rename a complete copy into place.
"""

from __future__ import annotations

import json
import logging
import os
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

LOG = logging.getLogger()
LOG.setLevel(logging.INFO)

MANIFEST = ".statespeak-sync.json"
_TMP_SUFFIX = ".statespeak-partial"
_VERSION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")


class S3Like(Protocol):
    """The two boto3 S3 client calls the sync uses (a real client in Lambda, a local double in tests)."""

    def get_paginator(self, operation_name: str) -> Any: ...

    def download_file(self, Bucket: str, Key: str, Filename: str) -> None: ...  # noqa: N803 (boto3 names)


class SyncError(RuntimeError):
    """The request or the bucket content cannot be synced; the message says why."""


class EmptyVersionError(SyncError):
    """The version folder has no objects in the bucket (never uploaded, or deleted)."""


@dataclass
class SyncResult:
    version: str
    copied: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "Version": self.version,
            "Copied": len(self.copied),
            "Unchanged": len(self.unchanged),
            "Deleted": len(self.deleted),
        }


def _relative_path(key: str, prefix: str) -> str | None:
    """Key below `prefix` as a safe relative path; None for folder markers. Refuses path escapes."""
    rel = key[len(prefix) :]
    if not rel or rel.endswith("/"):
        return None
    parts = rel.split("/")  # raw segments: PurePosixPath would silently drop "." and "//"
    if any(p in ("..", ".", "") for p in parts):
        raise SyncError(f"object key {key!r} does not map to a path inside the version folder")
    if parts[-1] == MANIFEST or parts[-1].endswith(_TMP_SUFFIX):
        raise SyncError(f"object key {key!r} uses a file name reserved by the sync")
    return rel


def list_remote(s3: S3Like, bucket: str, prefix: str) -> dict[str, tuple[int, str]]:
    """{relative path: (size, etag)} of every object under `prefix`."""
    remote: dict[str, tuple[int, str]] = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for obj in page.get("Contents", []):
            rel = _relative_path(obj["Key"], prefix)
            if rel is not None:
                remote[rel] = (int(obj["Size"]), str(obj["ETag"]).strip('"'))
    return remote


def _read_manifest(dest: Path) -> dict[str, str]:
    path = dest / MANIFEST
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError:
        LOG.warning("manifest %s is unreadable; every file will be re-copied", path)
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _temporary(path: Path) -> Path:
    """A name next to `path` that no concurrent run uses."""
    return path.with_name(f"{path.name}.{uuid.uuid4().hex[:12]}{_TMP_SUFFIX}")


def _write_atomic(path: Path, text: str) -> None:
    tmp = _temporary(path)
    tmp.write_text(text)
    os.replace(tmp, path)


def sync_version(
    s3: S3Like, bucket: str, prefix: str, version: str, mount: Path, delete_stale: bool = True
) -> SyncResult:
    """Make `mount/version/` equal to `s3://bucket/prefix + version/` (with `delete_stale` False: copy what
    is new or changed, delete nothing)."""
    if not _VERSION_RE.match(version):
        raise SyncError(f"weights version {version!r} is not a folder name (letters, digits, '.', '_', '-')")
    key_prefix = f"{prefix}{version}/"
    remote = list_remote(s3, bucket, key_prefix)
    if not remote:
        raise EmptyVersionError(
            f"s3://{bucket}/{key_prefix} holds no objects; upload the model dir there first"
        )
    dest = mount / version
    dest.mkdir(parents=True, exist_ok=True)
    manifest = _read_manifest(dest)
    result = SyncResult(version=version)
    for rel, (size, etag) in sorted(remote.items()):
        target = dest / rel
        if manifest.get(rel) == etag and target.is_file() and target.stat().st_size == size:
            result.unchanged.append(rel)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = _temporary(target)
        s3.download_file(Bucket=bucket, Key=key_prefix + rel, Filename=str(tmp))
        if tmp.stat().st_size != size:
            tmp.unlink()
            raise SyncError(f"s3://{bucket}/{key_prefix}{rel} changed during the copy; run the sync again")
        os.replace(tmp, target)
        manifest[rel] = etag
        result.copied.append(rel)
    for rel in sorted(set(manifest) - set(remote)) if delete_stale else ():
        stale = dest / rel
        if stale.is_file():
            stale.unlink()
        del manifest[rel]
        result.deleted.append(rel)
    _write_atomic(dest / MANIFEST, json.dumps(manifest, sort_keys=True, indent=1))
    LOG.info(
        "synced %s: %d copied, %d unchanged, %d deleted",
        version,
        len(result.copied),
        len(result.unchanged),
        len(result.deleted),
    )
    return result


def version_of_key(key: str, prefix: str) -> str:
    """`weights/v2/model.safetensors` -> `v2`."""
    if not key.startswith(prefix):
        raise SyncError(f"object key {key!r} is outside {prefix!r}")
    version = key[len(prefix) :].split("/", 1)[0]
    if not _VERSION_RE.match(version):
        raise SyncError(f"object key {key!r} has no weights version folder under {prefix!r}")
    return version


def dispatch(event: dict[str, Any], s3: S3Like, bucket: str, prefix: str, mount: Path) -> dict[str, Any]:
    """Route one invocation; returns the Provider-framework response or a summary."""
    if "RequestType" in event:  # CloudFormation custom resource, via the CDK Provider framework
        version = str(event.get("ResourceProperties", {}).get("Version", ""))
        physical_id = f"weights-sync-{version}"
        if event["RequestType"] == "Delete":
            # Keep the files: the service (or a rollback) may still read them; the file system owns them.
            return {"PhysicalResourceId": event.get("PhysicalResourceId", physical_id)}
        result = sync_version(s3, bucket, prefix, version, mount)
        return {"PhysicalResourceId": physical_id, "Data": result.as_dict()}
    if event.get("source") == "aws.s3":  # EventBridge notification from the weights bucket
        detail = event.get("detail", {})
        event_bucket = detail.get("bucket", {}).get("name")
        if event_bucket != bucket:
            raise SyncError(f"event for bucket {event_bucket!r}, but this function syncs {bucket!r}")
        version = version_of_key(detail.get("object", {}).get("key", ""), prefix)
        try:
            return sync_version(s3, bucket, prefix, version, mount, delete_stale=False).as_dict()
        except EmptyVersionError:
            # The whole folder was deleted from S3. Its EFS copy stays: running tasks or a rollback may
            # still need it, and deleting it is an explicit operator decision, not an event side effect.
            LOG.info("weights/%s is gone from the bucket; its EFS copy is kept", version)
            return {"Version": version, "Copied": 0, "Unchanged": 0, "Deleted": 0, "EmptyInBucket": True}
    if "version" in event:  # manual invoke
        return sync_version(s3, bucket, prefix, str(event["version"]), mount).as_dict()
    raise SyncError(
        "unrecognised event: expected a CloudFormation request, an S3 EventBridge event or "
        '{"version": "<folder>"}'
    )


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    import boto3  # in the Lambda runtime; imported here so tests of the logic need no AWS SDK setup

    return dispatch(
        event,
        boto3.client("s3"),
        bucket=os.environ["WEIGHTS_BUCKET"],
        prefix=os.environ["WEIGHTS_PREFIX"],
        mount=Path(os.environ["MOUNT_PATH"]),
    )

# Every target bootstraps what it needs on first use: the Debian packages (idempotent) and a virtual
# environment built from the pinned requirements. A second run reuses both and starts in seconds.
SHELL := /bin/bash
PY_BOOT ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
APT_PACKAGES := festival festvox-us-slt-hts festvox-kallpc16k festvox-italp16k festvox-czech-dita festvox-ca-ona-hts \
  festvox-suopuhe-lj festvox-te-nsk graphviz
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export PYTHONUNBUFFERED := 1

.PHONY: demo test synth serve lint data train evaluate bench audit apt venv clean image-lock

$(STAMP): requirements.txt requirements-dev.txt
	@test -x $(PY) || $(PY_BOOT) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $(STAMP)

venv: $(STAMP)

# Debian packages: Festival voices are teacher audio for `make data`, graphviz draws `make audit`'s boundary
# diagrams; installed only when missing.
apt:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing Debian packages:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; fi

# The main job on the bundled defaults: synthesize every stack, start the server, speak a sentence.
demo: $(STAMP)
	$(PY) -m model_server.demo --cdk-out cdk.out --wav demo.wav

test: $(STAMP) apt
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -q

synth: $(STAMP)
	CDK_OUTDIR=cdk.out $(PY) app.py

serve: $(STAMP)
	$(PY) -m model_server serve --host 127.0.0.1 --port 8080

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

data: $(STAMP) apt   # LANGUAGES=all or LANGUAGES=it,zh,...: the catalog languages' voices instead
	$(PY) -m model_server.data $(if $(LANGUAGES),--languages $(LANGUAGES))

train: $(STAMP)   # ARGS="--resume", ARGS="--minutes 120 --init model_server/weights/default": see docs/model.md
	$(PY) -m model_server.train $(ARGS)

evaluate: $(STAMP) apt   # LANGUAGES=all or LANGUAGES=it,ja,...: per-language intelligibility instead
	$(PY) -m model_server.evaluate $(if $(LANGUAGES),--languages $(LANGUAGES)) $(ARGS)

bench: $(STAMP)
	$(PY) -m model_server.bench --local --update-docs

audit: $(STAMP) apt
	$(PY) -m tools.audit

# Read-only checks of the AWS account (quotas, zone offerings, Lambda concurrency) with the context of
# `cdk deploy`; pass the same overrides: make preflight ARGS="-c deployment=both".
.PHONY: preflight
preflight: $(STAMP)
	$(PY) -m tools.preflight $(ARGS)

# The server image's Python lock (model_server/requirements-image.lock): every package with its hashes, wheels
# only, for linux/x86_64 and CPython 3.12 (the image's Ubuntu 24.04 python3). Candidates are limited to
# uploads before IMAGE_LOCK_DATE, so rerunning gives the same lock; move the date to take newer releases.
# --upgrade: resolve afresh, not from the pins already in the output file (uv prefers those), so the committed lock
# is what a clean resolution gives (tests/server/test_image_lock.py resolves into an empty file).
IMAGE_LOCK_DATE ?= 2026-11-30T00:00:00Z
IMAGE_LOCK_OUT ?= model_server/requirements-image.lock
image-lock: $(STAMP)
	$(VENV)/bin/uv pip compile model_server/requirements-image.in \
	  --excludes model_server/requirements-image.exclude \
	  --python-platform x86_64-manylinux_2_28 --python-version 3.12 --only-binary :all: \
	  --generate-hashes --index-url https://pypi.org/simple --exclude-newer $(IMAGE_LOCK_DATE) \
	  --custom-compile-command "make image-lock" --upgrade --quiet -o $(IMAGE_LOCK_OUT)

clean:
	rm -rf cdk.out .pytest_cache .ruff_cache

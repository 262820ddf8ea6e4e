# guilab — the two commands: `make reproduce` (main job) and `make test`. `make setup` is idempotent.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-stamp
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: setup system-deps reproduce docs gpu-smoke test check-export lint-imports nbtest pytest perf clean

setup: $(STAMP) system-deps

# Python side: venv, the local CPU torch wheel first (an unpinned torch would pull a multi-GB CUDA build),
# then the package with its dev, browser, train and apps extras (transformers, trl: tiny models run on this CPU; the real web
# applications of the grounding capture), and a `python3` kernelspec inside the venv for papermill.
$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[dev,browser,train,apps,docs]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (guilab)" >/dev/null
	@# Jupyter pre-save hook: notebooks of nbs/ saved from JupyterLab are nbdev-clean (no display-name or count diffs)
	mkdir -p $(VENV)/etc/jupyter
	printf '%s\n' '# guilab (make setup): notebooks of nbs/ are saved nbdev-clean from JupyterLab (guilab.reproduce.clean_on_save)' \
	  'try:' '    from guilab.reproduce import clean_on_save' '    c.ContentsManager.pre_save_hook = clean_on_save' \
	  'except ImportError:' '    pass' > $(VENV)/etc/jupyter/jupyter_server_config.py
	touch $@

# System side: Chromium, ffmpeg, tesseract and a CJK font (the seeds' quotes in the gallery are Chinese: without one,
# Chromium draws them as empty boxes) from apt when missing (as root), and ffmpeg linked where Playwright looks for
# its own build (Playwright's browser downloads are not reachable from these machines).
system-deps: $(STAMP)
	@missing=""; for b in chromium ffmpeg tesseract; do command -v $$b >/dev/null || missing="$$missing $$b"; done; \
	fc-list :lang=zh family 2>/dev/null | grep -q . || missing="$$missing fonts-noto-cjk"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing from apt:$$missing"; apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium ffmpeg tesseract-ocr fonts-noto-cjk >/dev/null; \
	  else echo "WARNING: missing$$missing (not root: install chromium ffmpeg tesseract-ocr fonts-noto-cjk yourself; browser tests will say they are skipped; without fonts-noto-cjk the gallery's Chinese quotes show as boxes)"; fi; \
	fi
	@$(BIN)/python -c "import json, os, pathlib, shutil, playwright; \
	bj = pathlib.Path(playwright.__file__).parent/'driver'/'package'/'browsers.json'; \
	rev = [b['revision'] for b in json.loads(bj.read_text())['browsers'] if b['name'] == 'ffmpeg'][0]; \
	root = pathlib.Path(os.environ.get('PLAYWRIGHT_BROWSERS_PATH') or pathlib.Path.home()/'.cache'/'ms-playwright'); \
	dst = root/f'ffmpeg-{rev}'/'ffmpeg-linux'; src = shutil.which('ffmpeg'); \
	(dst.parent.mkdir(parents=True, exist_ok=True), dst.unlink(missing_ok=True), dst.symlink_to(src), (dst.parent/'INSTALLATION_COMPLETE').touch()) if src else None"
	@# JSXGraph (the browser app `guilab perf` times beside the simulator) from the npm registry into a git-ignored
	@# cache; idempotent, and never fatal: without npm or the registry the perf row says it was skipped.
	@tgz=.cache/jsxgraph/jsxgraph-1.13.3.tgz; if [ -s $$tgz ]; then :; \
	elif command -v npm >/dev/null; then mkdir -p .cache/jsxgraph && (cd .cache/jsxgraph && npm pack jsxgraph@1.13.3 >/dev/null 2>&1) \
	  || { rm -f $$tgz; echo "WARNING: npm pack jsxgraph@1.13.3 failed (the JSXGraph row of guilab perf will say skipped)"; }; \
	else echo "WARNING: npm missing: JSXGraph not fetched (the JSXGraph row of guilab perf will say skipped)"; fi

reproduce: setup
	$(BIN)/guilab reproduce --params params/default.yaml

# The documentation site, offline (docs/build.py: Sphinx + MyST-NB): README, guides, the library notebooks, the executed
# reproduction notebooks and the gallery, into _docs/html (open _docs/html/index.html). tests/test_docs.py builds and opens it.
docs: setup
	$(BIN)/python docs/build.py

# One GPU, ≤ 10 min: params/full.yaml's GPU code paths at tiny scale (guilab.gpu). Needs the gpu extra (vLLM, DeepSpeed)
# and a CUDA build of torch, which `setup` does not install (it pins the CPU wheel); says NOT RUN and exits 2 without a GPU.
gpu-smoke: setup
	$(BIN)/guilab gpu-smoke --params params/gpu_smoke.yaml

# lib/ must equal a fresh export of nbs/ (and nbs/ must be clean): snapshot, clean + export, compare.
check-export: setup
	@snap() { find nbs lib -type f ! -path '*/__pycache__/*' ! -path '*.egg-info/*' ! -path '*/.ipynb_checkpoints/*' -print0 | sort -z | xargs -0 sha256sum; }; \
	before="$$(snap)"; $(BIN)/nbdev-clean && $(BIN)/nbdev-export; after="$$(snap)"; \
	if [ "$$before" != "$$after" ]; then \
	  echo "FAIL: nbdev-clean && nbdev-export changed files (lib/ must be a fresh export of clean nbs/):"; \
	  diff <(echo "$$before") <(echo "$$after") | grep '^[<>]' | awk '{print $$1, $$3}' | sort -u -k2; exit 1; \
	else echo "lib/ equals a fresh export of nbs/"; fi

# Import layers (docs/architecture.md; contracts in pyproject.toml [tool.importlinter]): no cycle, no upward import.
lint-imports: setup
	$(BIN)/lint-imports --no-cache

nbtest: setup
	$(BIN)/nbdev-test --n-workers 2 --timing

pytest: setup
	$(BIN)/python -m pytest tests -q --durations=15

test: check-export lint-imports nbtest pytest

# Speed benchmarks (guilab.perf.*) on one core -> figures/perf.md.
perf: setup
	$(BIN)/guilab perf

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis

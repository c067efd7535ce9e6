PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
# test processes (pytest-xdist): one per core; TEST_WORKERS=0 runs the suite in this process
TEST_WORKERS ?= auto

.PHONY: run test test-fast bench bench-train bench-service bench-load example translations screenshots clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "error: Python 3.11 or newer is required (PYTHON=$(PYTHON))" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

run: $(VENV)/.installed-run
	@mkdir -p instance
	@test -s instance/secret_key || \
		(umask 077 && $(BIN)/python -c 'import secrets; print(secrets.token_hex(32))' > instance/secret_key)
	$(BIN)/quizsvc db upgrade
	$(BIN)/quizsvc content validate
	$(BIN)/quizsvc user demo
	@echo "serving on http://127.0.0.1:$(PORT) (Ctrl-C stops)"
	@# one worker process per core (WORKERS=n to choose), each with 8 threads; the workers
	@# share everything through the database (docs/deploy.md); gunicorn.conf.py: request limits
	QUIZSVC_SECRET_KEY="$$(cat instance/secret_key)" $(BIN)/gunicorn --config gunicorn.conf.py \
		--bind 127.0.0.1:$(PORT) --workers $(or $(WORKERS),$(shell nproc)) --threads 8 \
		--access-logfile - \
		'quizsvc.web:create_app()'

# make test: ruff, then every test (browser ones included; `bash .ci/run` runs this against
# PostgreSQL as well). make test-fast: the inner loop, under a minute on 2 cores: ruff check
# and every test but those marked browser, postgres or slow (pyproject.toml lists the
# markers), with pytest's compiled test modules kept between runs (its collection takes
# twice as long without). pytest exits 5 when it selects no test: a failure like any other.
test: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest --numprocesses $(TEST_WORKERS) --dist worksteal

test-fast: $(VENV)/.installed-test
	$(BIN)/ruff check .
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest --numprocesses $(TEST_WORKERS) -m "not browser and not postgres and not slow"

# The interface's gettext catalogs (quizsvc/web/translations), after a text in the code or a
# template changed: the msgids extracted anew (babel.cfg), each catalog updated to them (a new
# msgid arrives untranslated, a changed one as fuzzy: translate it in zh/.../messages.po and
# remove the fuzzy flag, then run this again), English given its source texts, compiled.
# tests/web/test_web_i18n.py fails until the catalogs match the code.
TRANSLATIONS := quizsvc/web/translations
translations: $(VENV)/.installed-run
	$(BIN)/pybabel --quiet extract --mapping-file babel.cfg --keywords N_ --keywords lazy_gettext \
		--no-location --sort-output --project quizsvc --version 0.1.0 \
		--copyright-holder "the quizsvc authors" \
		--output-file $(TRANSLATIONS)/messages.pot .
	$(BIN)/pybabel --quiet update --input-file $(TRANSLATIONS)/messages.pot \
		--output-dir $(TRANSLATIONS) --ignore-obsolete --ignore-pot-creation-date
	rm $(TRANSLATIONS)/messages.pot
	$(BIN)/python -m quizsvc.web.catalogs
	$(BIN)/pybabel compile --statistics --directory $(TRANSLATIONS)

example: $(VENV)/.installed-run
	$(BIN)/quizsvc chapter

# The student's pages at a phone's and a laptop's size, zh and en, as PNGs in screenshots/
# (and the two the README shows, in docs/img): tools/screenshots.py, with Chromium at
# /usr/bin/chromium and a CJK font (Debian: fonts-noto-cjk) for the Chinese pages
screenshots: $(VENV)/.installed-test
	$(BIN)/python tools/screenshots.py

bench: $(VENV)/.installed-run
	$(BIN)/python benchmarks/engine.py

# one training step beside a raw matmul, and beside PyTorch where torch is importable
bench-train: $(VENV)/.installed-run
	$(BIN)/python benchmarks/training.py

bench-service: $(VENV)/.installed-run
	$(BIN)/python benchmarks/service.py

# the service under 50 concurrent connections beside a bare Flask app, served as `make run`
# serves; needs wrk (Debian: apt-get install -y wrk)
bench-load: $(VENV)/.installed-run
	$(BIN)/python benchmarks/load.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis

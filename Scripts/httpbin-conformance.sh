#!/usr/bin/env bash
# Wire-conformance check of NetLayer against a real httpbin on loopback.
#
# Creates (once) a virtualenv with httpbin + gunicorn under .build/httpbin-venv, starts httpbin on a
# free 127.0.0.1 port, runs Scripts/Conformance (one line per case, then "N passed, M failed"), then
# the seeded request fuzzer of the test suite (Tests/NetLayerTests/Fuzz) against the same httpbin,
# and always stops httpbin again. Exit status: non-zero if any conformance case or any fuzz case
# failed.
#
# Needs only Swift and Python 3 (with venv) on the machine; pip fetches from PyPI the first time.
# Environment: PYTHON (default python3), CONFIGURATION (debug or release, default debug — the
# debug build is the faster one overall here), FUZZ_CASES (default 2000; 0 skips the fuzzer),
# FUZZ_SEED (default: random, printed), FUZZ_ONLY (run only that case index of the seed).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PYTHON="${PYTHON:-python3}"
CONFIGURATION="${CONFIGURATION:-debug}"
VENV="$ROOT/.build/httpbin-venv"
# Versions checked together on Python 3.11 (httpbin 0.10.x runs on Flask 3 / Werkzeug 3; flasgger
# is optional and left out: httpbin then serves a static landing page instead of Swagger).
REQUIREMENTS=(
    "httpbin==0.10.4"
    "gunicorn==27.0.1"
    "flask==3.1.3"
    "werkzeug==3.1.9"
)
STAMP="$VENV/.netlayer-requirements"

# Everything this script talks to (besides pip) is on loopback: never route it through a proxy.
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"
export no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

log() { printf '[httpbin-conformance] %s\n' "$*" >&2; }

# 1. The virtualenv, rebuilt only when missing, broken or pinned differently.
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
    log "creating virtualenv at ${VENV#"$ROOT"/}"
    rm -rf "$VENV"
    mkdir -p "$ROOT/.build"
    "$PYTHON" -m venv "$VENV"
fi
if [[ ! -f "$STAMP" ]] || [[ "$(cat "$STAMP")" != "${REQUIREMENTS[*]}" ]] \
    || ! "$VENV/bin/python" -c 'import httpbin, gunicorn' 2>/dev/null; then
    log "installing ${REQUIREMENTS[*]}"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${REQUIREMENTS[@]}"
    printf '%s' "${REQUIREMENTS[*]}" >"$STAMP"
fi

# 2. A free loopback port and httpbin on it, stopped on any exit.
PORT="$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
GUNICORN_LOG="$(mktemp "${TMPDIR:-/tmp}/httpbin-gunicorn.XXXXXX")"
GUNICORN_PID=""
cleanup() {
    local status=$?
    if [[ -n "$GUNICORN_PID" ]] && kill -0 "$GUNICORN_PID" 2>/dev/null; then
        # SIGINT is gunicorn's quick shutdown (SIGTERM would wait for graceful worker exit).
        kill -INT "$GUNICORN_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$GUNICORN_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$GUNICORN_PID" 2>/dev/null || true
        wait "$GUNICORN_PID" 2>/dev/null || true
    fi
    rm -f "$GUNICORN_LOG"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "starting httpbin on 127.0.0.1:$PORT"
# --no-control-socket: gunicorn >= 24 otherwise opens a control socket under ~/.gunicorn, shared by
# concurrent runs.
"$VENV/bin/gunicorn" -k gthread --threads 8 -b "127.0.0.1:$PORT" --log-level warning --no-control-socket \
    httpbin:app >"$GUNICORN_LOG" 2>&1 &
GUNICORN_PID=$!

# Wait (at most 30 s) until it answers, giving up at once if gunicorn dies.
if ! "$VENV/bin/python" - "$PORT" "$GUNICORN_PID" <<'PY'; then
import os, sys, time, urllib.request
port, pid = sys.argv[1], int(sys.argv[2])
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
        with open(f"/proc/{pid}/stat") as stat:
            if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                raise OSError("zombie")
    except FileNotFoundError:
        pass  # no /proc (macOS): os.kill alone decides
    except OSError:
        sys.exit("gunicorn exited before answering")
    try:
        with opener.open(f"http://127.0.0.1:{port}/get", timeout=2) as response:
            if response.status == 200:
                sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit("httpbin did not answer within 30 s")
PY
    log "httpbin is not usable on 127.0.0.1:$PORT; gunicorn log:"
    cat "$GUNICORN_LOG" >&2
    exit 1
fi

# 3. The conformance run.
status=0
swift run --package-path "$ROOT/Scripts/Conformance" -c "$CONFIGURATION" httpbin-conformance "127.0.0.1:$PORT" \
    || status=$?

# 4. The fuzzer: FUZZ_CASES generated calls, each compared with httpbin's view of it; a failure is
# shrunk and printed as Swift source with the seed that reproduces it.
FUZZ_CASES="${FUZZ_CASES:-2000}"
if [[ "$FUZZ_CASES" != "0" ]]; then
    fuzz_status=0
    swift run --package-path "$ROOT/Scripts/Conformance" -c "$CONFIGURATION" httpbin-conformance "127.0.0.1:$PORT" \
        fuzz "$FUZZ_CASES" "${FUZZ_SEED:-}" ${FUZZ_ONLY:+"$FUZZ_ONLY"} || fuzz_status=$?
    if [[ "$status" -eq 0 ]]; then status=$fuzz_status; fi
fi
exit "$status"

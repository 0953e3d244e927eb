#!/usr/bin/env bash
# Runs the public HTTP cache test suite (http-tests/cache-tests) through NetLayer and scores it.
#
# usage: Scripts/cache-tests.sh [--optional] [RESULTS.json]
#
# Starts the suite's server (Node.js only) on a free 127.0.0.1 port, dumps the test definitions,
# builds and runs Scripts/CacheTests (every test that applies to a private cache, each request sent
# through a NetLayer Resource), writes the results in the suite's format to RESULTS.json (default
# Docs/cache-tests-results.json), and scores them with the suite's own determineTestResult
# (Scripts/cache-tests-score.mjs): required and optimal passed/total, the published browsers'
# figures, and one line per test that did not pass. The server is always stopped again.
#
# --optional: without `node` or without the suite, print why and exit 0 ("skipped") instead of
# failing.
# Environment: CACHE_TESTS_DIR (the suite; default ../shared/cache-tests from the repository root),
# CONFIGURATION (release or debug, default release), CACHE_TESTS_ONLY (space-separated test ids to
# run alone; the score then counts the others as untested), CACHE_TESTS_MIN_REQUIRED and
# CACHE_TESTS_MIN_OPTIMAL (floors: a lower score exits 1; unset, no floor), CACHE_TESTS_STORAGE
# (memory, the default, or disk: the cache's entries in a new directory under the run's scratch one).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf '[cache-tests] %s\n' "$*" >&2; }

OPTIONAL=0
RESULTS=""
for argument in "$@"; do
    case "$argument" in
        --optional) OPTIONAL=1 ;;
        -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) log "unknown option $argument"; exit 2 ;;
        *) RESULTS="$argument" ;;
    esac
done
RESULTS="${RESULTS:-Docs/cache-tests-results.json}"
CONFIGURATION="${CONFIGURATION:-release}"
SUITE="${CACHE_TESTS_DIR:-../shared/cache-tests}"
case "$SUITE" in /*) ;; *) SUITE="$ROOT/$SUITE" ;; esac

# 1. Node.js and the suite.
if ! command -v node >/dev/null 2>&1; then
    if [[ "$OPTIONAL" == 1 ]]; then
        log "skipped: node (Node.js 14.8 or later) is not installed; it runs the suite's server"
        exit 0
    fi
    log "node (Node.js 14.8 or later) is required to run the suite's server; install it (Debian: nodejs)"
    exit 1
fi
if [[ ! -f "$SUITE/test-engine/server/server.mjs" || ! -f "$SUITE/tests/index.mjs" ]]; then
    if [[ "$OPTIONAL" == 1 ]]; then
        log "skipped: no cache-tests suite at $SUITE (set CACHE_TESTS_DIR to a copy of http-tests/cache-tests)"
        exit 0
    fi
    log "no cache-tests suite at $SUITE (set CACHE_TESTS_DIR to a copy of http-tests/cache-tests)"
    exit 1
fi

# Everything this script talks to is on loopback: never route it through a proxy.
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}"
export no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/cache-tests.XXXXXX")"
SERVER_PID=""
cleanup() {
    local status=$?
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    if [[ -s "$WORK/server.pid" ]]; then
        # The pid the server wrote itself, in case it is not the one started here.
        kill "$(cat "$WORK/server.pid")" 2>/dev/null || true
    fi
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# 2. A free loopback port, and the suite's server on it (on 127.0.0.1 only: see the preload).
PORT="$(node -e '
const server = require("net").createServer()
server.listen(0, "127.0.0.1", () => { console.log(server.address().port); server.close() })')"
log "starting the suite's server on 127.0.0.1:$PORT"
(cd "$SUITE" && exec env npm_config_protocol=http npm_config_port="$PORT" npm_config_pidfile="$WORK/server.pid" \
    node --require "$ROOT/Scripts/cache-tests-loopback.cjs" test-engine/server/server.mjs) >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

# Wait (at most 30 s) until it answers, giving up at once if it exits.
BASE_URL="http://127.0.0.1:$PORT"
if ! node - "$BASE_URL" "$SERVER_PID" <<'JS'; then
const [base, pid] = process.argv.slice(2)
const deadline = Date.now() + 30000
async function poll () {
  while (Date.now() < deadline) {
    try { process.kill(Number(pid), 0) } catch { console.error('the server exited'); process.exit(1) }
    // Any answer will do (an unknown state is a 404): the server is up. (http.get, not fetch:
    // the server itself needs only Node.js 14.8.)
    const answered = await new Promise(resolve => {
      require('http').get(`${base}/state/ready-check`, response => {
        response.resume()
        resolve(true)
      }).on('error', () => resolve(false))
    })
    if (answered) process.exit(0)
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  console.error('the server did not answer within 30 s')
  process.exit(1)
}
poll()
JS
    log "the suite's server is not usable; its log:"
    cat "$WORK/server.log" >&2
    exit 1
fi

# 3. The definitions, as JSON.
(cd "$SUITE" && node --input-type=module \
    -e "import('./tests/index.mjs').then(m => console.log(JSON.stringify(m.default)))") >"$WORK/definitions.json"

# 4. The run, through NetLayer.
ONLY=()
for id in ${CACHE_TESTS_ONLY:-}; do ONLY+=(--only "$id"); done
case "${CACHE_TESTS_STORAGE:-memory}" in
    memory) ;;
    disk) ONLY+=(--disk "$WORK/cache") ;;
    *) log "CACHE_TESTS_STORAGE must be memory or disk, not $CACHE_TESTS_STORAGE"; exit 2 ;;
esac
mkdir -p "$(dirname "$RESULTS")"
swift run --package-path "$ROOT/Scripts/CacheTests" -c "$CONFIGURATION" cache-tests-runner \
    "$BASE_URL" "$WORK/definitions.json" --output "$RESULTS" ${ONLY[@]+"${ONLY[@]}"}
log "results written to $RESULTS"

# 5. The score.
node "$ROOT/Scripts/cache-tests-score.mjs" "$SUITE" "$WORK/definitions.json" "$RESULTS"

#!/usr/bin/env bash
# The SQL engine past one machine, for .ci/run (docs/sql.md §5). Debian, as root:
#
#   scripts/ci-topologies.sh citus     builds Citus (scripts/citus-build.sh: the source folder is
#                                      TAGTRACK_CITUS_SOURCE, default /usr/local/src/citus), starts
#                                      a coordinator and two workers (scripts/citus-cluster.sh),
#                                      runs the routing test, the SQL differential test and the
#                                      live upkeep test (appends = refresh) there,
#                                      then the reference server over the coordinator with the
#                                      canonical fixture, and the suite against it in fixture mode
#                                      and in blind mode with the fixture's 12 credentials
#   scripts/ci-topologies.sh standby   starts a primary and a streaming standby
#                                      (scripts/standby-cluster.sh), the server on each (the
#                                      primary's loads the fixture), appends records on the
#                                      primary while the suite runs in blind mode against the
#                                      standby's server, and checks they reached the standby
#
# Exit 0 when every check held (0 failed, 0 errors), 1 when one did not, 3 when Citus's source
# is missing (citus only; the message says where to put it).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "ci-topologies: $*" >&2; }
work="$(mktemp -d)"
pids=()
# the cluster scripts whose clusters this run started (stopped on exit; one running before is left running)
started=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for s in "${started[@]}"; do "$s" stop >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

node conformance/bin/tagtrack-conformance.js fixture --format csv --out "$work/fixture" >/dev/null
profile="$work/fixture/canonical-profile.json"

# Starts the reference server on a free port with the given flags; sets server_url.
start_server() {
  local out="$work/server-$RANDOM.log"
  : >"$out"
  nice node apps/server/bin/tagtrack-server.js --port 0 "$@" >"$out" 2>&1 &
  pids+=($!)
  local pid=$! i
  for i in $(seq 1 900); do
    server_url="$(sed -n 's/^tagtrack-server listening on //p' "$out" || true)"
    if [ -n "$server_url" ]; then
      sed -n '2p' "$out" >&2
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || {
      cat "$out" >&2
      return 1
    }
    sleep 1
  done
  log "the server did not start in 900 s"
  return 1
}

# Runs the suite against $server_url in mode $1; fails unless it passes with 0 failed and 0
# errors; prints its summary line.
suite() {
  local mode="$1" out="$work/suite-$1.txt"
  if ! nice node conformance/bin/tagtrack-conformance.js run --base-url "$server_url" --mode "$mode" \
    --profile "$profile" --seed 20261128 --no-color >"$out" 2>&1; then
    tail -n 40 "$out" >&2
    log "the suite in $mode mode did not pass"
    return 1
  fi
  local summary
  summary="$(grep -E '^[0-9]+ checks, ' "$out" | tail -n 1)"
  echo "$mode mode: $summary"
  grep -qE ', 0 failed, 0 errors' <<<"$summary" || {
    log "the suite in $mode mode reported failures or errors"
    return 1
  }
}

case "${1:-}" in
citus)
  status=0
  scripts/citus-build.sh || status=$?
  [ "$status" = 0 ] || exit "$status"
  scripts/citus-cluster.sh status >/dev/null 2>&1 || started+=(scripts/citus-cluster.sh)
  url="$(scripts/citus-cluster.sh)"
  export TAGTRACK_TEST_CITUS_URL="$url"
  log "routing test, SQL differential test and live upkeep test on the coordinator"
  # one file at a time: they share the coordinator's one database (each load replaces its tables)
  (cd packages/engine && nice npx vitest run --no-file-parallelism test/sql.citus-routing.test.ts \
    test/sql.oracle.test.ts test/sql.upkeep.test.ts -t 'Citus')
  log "the server over the coordinator, canonical fixture"
  start_server --database-url "$url" --dataset "$work/fixture"
  suite fixture
  suite blind
  ;;
standby)
  scripts/standby-cluster.sh status >/dev/null 2>&1 || started+=(scripts/standby-cluster.sh)
  mapfile -t urls < <(scripts/standby-cluster.sh)
  primary="${urls[0]}"
  standby="${urls[1]}"
  start_server --database-url "$primary" --dataset "$work/fixture"
  start_server --database-url "$standby"
  # records appended on the primary by a vendor's own INSERTs (the upkeep triggers keep the
  # counters in the same transaction), as team1's admin: they must reach the standby's answers
  admin_auth="$(node -e 'const p=require(process.argv[1]);console.log(p.credentials.find((c)=>c.label==="team1-admin").authId)' "$profile")"
  append() {
    local n="$1"
    psql "$primary" -qtAX -v ON_ERROR_STOP=1 -v auth="$admin_auth" <<SQL
BEGIN;
INSERT INTO tags ("tagID", "memberID", subject, "dateSent")
  SELECT 'ci-live-$n', "memberID", 'appended $n', now() FROM credentials WHERE "authId" = :'auth';
INSERT INTO recipients ("tagID", position, name, email)
  VALUES ('ci-live-$n', 0, 'Appended $n', 'appended-$n@example.com');
INSERT INTO opens (position, "tagID", email, date, device, os, browser, counry, region, city,
                   latitude, longitude)
  SELECT coalesce(max(position), -1) + 1, 'ci-live-$n', 'appended-$n@example.com', now(),
         'desktop', 'Linux', 'Firefox', 'DE', 'BE', 'Berlin', 52.52, 13.40 FROM opens;
COMMIT;
SQL
  }
  for n in 1 2 3; do append "$n"; done
  seen=""
  for _ in $(seq 1 60); do
    seen="$(psql "$standby" -qtAX -c "SELECT \"totalOpens\" FROM tagtrack_tag_counters WHERE \"tagID\" = 'ci-live-3'")"
    [ "$seen" = 1 ] && break
    sleep 1
  done
  [ "$seen" = 1 ] || {
    log "tags and opens appended on the primary did not reach the standby's counters in 60 s"
    exit 1
  }
  answer="$(node conformance/bin/tagtrack-conformance.js request GET /opens/tag/ci-live-3 \
    --base-url "$server_url" --profile "$profile" --credential team1-admin 2>&1)"
  grep -q '"tagID":"ci-live-3"' <<<"$answer" || {
    echo "$answer" >&2
    log "the standby's server does not answer the open appended on the primary"
    exit 1
  }
  log "tags, recipients and opens appended on the primary reached the standby's server's answers"
  suite blind
  ;;
*)
  log "usage: scripts/ci-topologies.sh citus|standby"
  exit 2
  ;;
esac

#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests, on a Debian machine, as root:
#
#   scripts/postgres-cluster.sh [start]   installs Debian's `postgresql` when missing, creates the
#                                         cluster `tagtrack` (UTF-8, locale C.UTF-8) listening on
#                                         127.0.0.1 only, starts it, creates the role `tagtrack`
#                                         (password `tagtrack`, CREATEDB) and its database
#                                         `tagtrack_test`; prints the URL (the only stdout line)
#   scripts/postgres-cluster.sh stop      stops the cluster (keeps it for the next start)
#   scripts/postgres-cluster.sh status    exit 0 when the cluster is running, 3 when not
#   scripts/postgres-cluster.sh url       prints the URL
#
# Every step is idempotent: run it again and it only starts what is stopped (starting it also
# drops the tagtrack_t_* databases a killed test run left behind). The port is
# TAGTRACK_PG_PORT (default 54329). The cluster trades durability for speed (fsync off): it
# holds test data only. The tests read the URL from TAGTRACK_TEST_DATABASE_URL:
#
#   export TAGTRACK_TEST_DATABASE_URL=$(scripts/postgres-cluster.sh)
set -euo pipefail

port="${TAGTRACK_PG_PORT:-54329}"
cluster=tagtrack
role=tagtrack
password=tagtrack
database=tagtrack_test
url="postgres://${role}:${password}@127.0.0.1:${port}/${database}"

log() { echo "postgres-cluster: $*" >&2; }
die() {
  log "$*"
  exit 1
}

command_name="${1:-start}"
case "$command_name" in
start | stop | status | url) ;;
*) die "unknown command '$command_name' (expected start, stop, status or url)" ;;
esac

if [ "$command_name" = url ]; then
  echo "$url"
  exit 0
fi

# The version the cluster was created with, or the newest installed one for a new cluster.
cluster_version() {
  if command -v pg_lsclusters >/dev/null 2>&1; then
    pg_lsclusters --no-header 2>/dev/null | awk -v c="$cluster" '$2 == c { print $1; exit }'
  fi
}
installed_version() {
  local dir v=""
  for dir in /usr/lib/postgresql/*/bin/postgres; do
    [ -x "$dir" ] || continue
    dir="${dir#/usr/lib/postgresql/}"
    dir="${dir%%/*}"
    if [ -z "$v" ] || [ "$dir" -gt "$v" ]; then v="$dir"; fi
  done
  echo "$v"
}
is_running() {
  local v
  v="$(cluster_version)"
  [ -n "$v" ] || return 1
  if [ "$(id -u)" = 0 ]; then
    pg_ctlcluster "$v" "$cluster" status >/dev/null 2>&1
  else # the data directory is the postgres user's only: ask the server instead
    pg_isready -q -h 127.0.0.1 -p "$port"
  fi
}

if [ "$command_name" = status ]; then
  if is_running; then
    log "cluster $cluster is running on 127.0.0.1:$port"
    exit 0
  fi
  log "cluster $cluster is not running"
  exit 3
fi

if [ "$command_name" = stop ]; then
  version="$(cluster_version)"
  if [ -n "$version" ] && is_running; then
    [ "$(id -u)" = 0 ] || die "stopping the cluster needs root (pg_ctlcluster)"
    pg_ctlcluster "$version" "$cluster" stop -m fast
    log "stopped cluster $version/$cluster"
  else
    log "cluster $cluster is not running"
  fi
  exit 0
fi

# start
[ "$(id -u)" = 0 ] ||
  die "must run as root (it installs Debian's postgresql and runs pg_createcluster); without root, point TAGTRACK_TEST_DATABASE_URL at any PostgreSQL whose role may CREATE DATABASE"

if [ -z "$(installed_version)" ] || ! command -v pg_createcluster >/dev/null 2>&1; then
  command -v apt-get >/dev/null 2>&1 || die "postgresql is not installed and apt-get is missing (not Debian?)"
  # (clusters are read from /etc, not pg_lsclusters: postgresql-common may be missing while
  # clusters of an earlier install remain)
  clusters_before="$(ls -d /etc/postgresql/*/* /var/lib/postgresql/*/* 2>/dev/null || true)"
  log "installing postgresql (Debian package)"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
  # The package's postinst creates (and, under systemd, starts) a `main` cluster on 5432; one
  # that this install created is dropped, so the machine runs only the cluster below.
  new_version="$(installed_version)"
  if [ -n "$new_version" ] && [ -d "/etc/postgresql/${new_version}/main" ] &&
    ! grep -qxE "/(etc|var/lib)/postgresql/${new_version}/main" <<<"$clusters_before"; then
    log "dropping the empty cluster $new_version/main the package created"
    pg_dropcluster --stop "$new_version" main >&2
  fi
fi

version="$(cluster_version)"
if [ -z "$version" ]; then
  version="$(installed_version)"
  [ -n "$version" ] || die "no PostgreSQL server binaries under /usr/lib/postgresql after installing"
  log "creating cluster $version/$cluster on 127.0.0.1:$port"
  # Explicit --auth-* leaves initdb's pg_hba.conf as is: peer for the postgres user on the Unix
  # socket (how this script connects), a password for every TCP connection.
  pg_createcluster "$version" "$cluster" --port "$port" --locale C.UTF-8 --encoding UTF8 \
    --start-conf manual \
    -- --auth-local=peer --auth-host=scram-sha-256 >&2
fi

# Settings, appended once after the defaults (later lines win). Written here, not with
# pg_createcluster -o, which writes 127.0.0.1 unquoted (a syntax error to the server).
conf="/etc/postgresql/$version/$cluster/postgresql.conf"
[ -f "$conf" ] || die "cluster $version/$cluster has no $conf"
if ! grep -q '^# tagtrack test cluster' "$conf"; then
  cat >>"$conf" <<'CONF'
# tagtrack test cluster (scripts/postgres-cluster.sh): loopback only; durability traded for speed
listen_addresses = '127.0.0.1'
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
  if is_running; then pg_ctlcluster "$version" "$cluster" restart >&2; fi
fi
conf_port="$(pg_lsclusters --no-header | awk -v c="$cluster" '$2 == c { print $3; exit }')"
[ "$conf_port" = "$port" ] ||
  die "cluster $version/$cluster exists on port ${conf_port:-?}, not $port: set TAGTRACK_PG_PORT=${conf_port:-?}, or run pg_dropcluster --stop $version $cluster to recreate it"

started=0
if ! is_running; then
  started=1
  log "starting cluster $version/$cluster"
  if ! pg_ctlcluster "$version" "$cluster" start >&2; then
    tail -n 20 "/var/log/postgresql/postgresql-${version}-${cluster}.log" >&2 || true
    die "cluster $version/$cluster did not start (is port $port taken?)"
  fi
fi

psql_admin() {
  runuser -u postgres -- psql --no-psqlrc -qtAX -v ON_ERROR_STOP=1 -p "$port" -d postgres "$@"
}
# The role's password is (re)set on every start, so the printed URL always works.
psql_admin -v role="$role" -v password="$password" >/dev/null <<'SQL'
SELECT format('CREATE ROLE %I LOGIN CREATEDB', :'role')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role') \gexec
SELECT format('ALTER ROLE %I WITH LOGIN CREATEDB PASSWORD %L', :'role', :'password') \gexec
SQL
# Databases the tests create (tagtrack_t_*, packages/engine/test/databases.ts) that a killed run
# left behind are dropped when the cluster was just started: no test can be using them then.
if [ "$started" = 1 ]; then
  psql_admin <<'SQL' | sed 's/^/postgres-cluster: dropped leftover test database /' >&2
SELECT datname FROM pg_database WHERE datname LIKE 'tagtrack\_t\_%';
SELECT format('DROP DATABASE %I', datname) FROM pg_database
WHERE datname LIKE 'tagtrack\_t\_%' \gexec
SQL
fi
if [ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$database'")" != 1 ]; then
  log "creating database $database"
  runuser -u postgres -- createdb -p "$port" -O "$role" -E UTF8 --locale C.UTF-8 -T template0 "$database"
fi

echo "$url"

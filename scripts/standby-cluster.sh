#!/usr/bin/env bash
# A throwaway PostgreSQL primary and its hot standby (streaming replication, PostgreSQL's own)
# on one machine, for the SQL engine's read-replica test. Debian, as root:
#
#   scripts/standby-cluster.sh [start]   creates (first time) and starts the primary and the
#                                        standby (pg_basebackup -R from the primary), the role
#                                        `tagtrack` (password `tagtrack`, REPLICATION) and the
#                                        database `tagtrack_standby`; prints two lines: the
#                                        primary's URL, then the standby's
#   scripts/standby-cluster.sh stop      stops both (keeps them for the next start)
#   scripts/standby-cluster.sh drop      stops them and deletes their data directories
#   scripts/standby-cluster.sh status    exit 0 when both run and the standby streams, 3 when not
#   scripts/standby-cluster.sh url       prints the two URLs
#
# Ports: TAGTRACK_STANDBY_PORT (default 54350) for the primary, the next one for the standby
# (never the shared test cluster's 54329). Data directories under TAGTRACK_STANDBY_DIR (default
# /var/tmp/tagtrack-standby). Test data only: fsync off, loopback only.
set -euo pipefail

port="${TAGTRACK_STANDBY_PORT:-54350}"
root="${TAGTRACK_STANDBY_DIR:-/var/tmp/tagtrack-standby}"
bin=/usr/lib/postgresql/15/bin
role=tagtrack
password=tagtrack
database=tagtrack_standby
primary_url="postgres://${role}:${password}@127.0.0.1:${port}/${database}"
standby_url="postgres://${role}:${password}@127.0.0.1:$((port + 1))/${database}"

log() { echo "standby-cluster: $*" >&2; }
die() {
  log "$*"
  exit 1
}
as_postgres() { runuser -u postgres -- env PGPASSFILE="$root/pgpass" "$@"; }
running() { [ -d "$root/$1" ] && as_postgres "$bin/pg_ctl" status -D "$root/$1" >/dev/null 2>&1; }
psql_primary() { as_postgres psql --no-psqlrc -qtAX -v ON_ERROR_STOP=1 -h "$root" -p "$port" "$@"; }
start_node() {
  local n="$1"
  if ! running "$n"; then
    log "starting the $n"
    as_postgres "$bin/pg_ctl" start -D "$root/$n" -l "$root/$n.log" -w -t 60 >&2 || {
      tail -n 20 "$root/$n.log" >&2
      die "the $n did not start"
    }
  fi
}

command_name="${1:-start}"
case "$command_name" in
url)
  echo "$primary_url"
  echo "$standby_url"
  exit 0
  ;;
status)
  running primary && running standby || {
    log "not running"
    exit 3
  }
  [ "$(psql_primary -d postgres -c 'SELECT count(*) FROM pg_stat_replication')" -ge 1 ] || {
    log "the standby is not streaming"
    exit 3
  }
  log "primary on 127.0.0.1:$port, standby streaming on $((port + 1))"
  exit 0
  ;;
stop | drop)
  for n in standby primary; do
    if running "$n"; then as_postgres "$bin/pg_ctl" stop -D "$root/$n" -m fast -w >&2; fi
  done
  if [ "$command_name" = drop ]; then rm -rf "$root" && log "deleted $root"; fi
  exit 0
  ;;
start) ;;
*) die "unknown command '$command_name' (expected start, stop, drop, status or url)" ;;
esac

[ "$(id -u)" = 0 ] || die "must run as root (runs the servers as the postgres user)"
if [ ! -x "$bin/postgres" ]; then
  command -v apt-get >/dev/null 2>&1 || die "no PostgreSQL 15 under $bin and no apt-get"
  log "installing postgresql-15 (Debian package)"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >&2
fi

mkdir -p "$root"
chown postgres:postgres "$root"
printf '127.0.0.1:*:*:%s:%s\n' "$role" "$password" >"$root/pgpass"
chown postgres:postgres "$root/pgpass"
chmod 600 "$root/pgpass"

if [ ! -f "$root/primary/PG_VERSION" ]; then
  log "creating the primary in $root/primary"
  as_postgres "$bin/initdb" -D "$root/primary" -U postgres --locale C.UTF-8 --encoding UTF8 \
    --auth-local=peer --auth-host=scram-sha-256 >/dev/null
  cat >>"$root/primary/postgresql.conf" <<CONF
# tagtrack standby test (scripts/standby-cluster.sh): loopback only; speed over durability
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$root'
fsync = off
synchronous_commit = off
full_page_writes = on
wal_level = replica
max_wal_senders = 5
hot_standby = on
CONF
  echo "host replication $role 127.0.0.1/32 scram-sha-256" >>"$root/primary/pg_hba.conf"
fi
start_node primary
psql_primary -d postgres -v role="$role" -v password="$password" >/dev/null <<'SQL'
SELECT format('CREATE ROLE %I LOGIN', :'role')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role') \gexec
SELECT format('ALTER ROLE %I WITH LOGIN CREATEDB REPLICATION PASSWORD %L', :'role', :'password') \gexec
SQL
if [ "$(psql_primary -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$database'")" != 1 ]; then
  log "creating database $database"
  as_postgres createdb -h "$root" -p "$port" -O "$role" -E UTF8 --locale C.UTF-8 -T template0 "$database"
fi

if [ ! -f "$root/standby/PG_VERSION" ]; then
  log "copying the primary to the standby (pg_basebackup -R)"
  as_postgres "$bin/pg_basebackup" -h 127.0.0.1 -p "$port" -U "$role" -D "$root/standby" -R -X stream
  cat >>"$root/standby/postgresql.conf" <<CONF
port = $((port + 1))
CONF
fi
start_node standby
echo "$primary_url"
echo "$standby_url"

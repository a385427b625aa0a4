#!/usr/bin/env bash
# A throwaway Citus cluster on one machine for the SQL engine's tests: a coordinator and two
# workers, each its own PostgreSQL 15 data directory listening on 127.0.0.1 only. Debian, as
# root, Citus installed (scripts/citus-build.sh):
#
#   scripts/citus-cluster.sh [start]   creates (first time) and starts the three nodes, the role
#                                      `tagtrack` (password `tagtrack`) and the database
#                                      `tagtrack_citus` with the citus extension on every node,
#                                      registers the workers; prints the coordinator's URL (the
#                                      only stdout line)
#   scripts/citus-cluster.sh stop      stops the three nodes (keeps them for the next start)
#   scripts/citus-cluster.sh drop      stops them and deletes their data directories
#   scripts/citus-cluster.sh status    exit 0 when all three run, 3 when not
#   scripts/citus-cluster.sh url       prints the coordinator's URL
#
# Ports: TAGTRACK_CITUS_PORT (default 54340) for the coordinator, the next two for the workers
# (never the shared test cluster's 54329). Data directories under TAGTRACK_CITUS_DIR (default
# /var/tmp/tagtrack-citus). Like scripts/postgres-cluster.sh it trades durability for speed
# (fsync off): test data only. The nodes reach each other as `tagtrack` through a password
# file of their own (PGPASSFILE in the servers' environment).
set -euo pipefail

port="${TAGTRACK_CITUS_PORT:-54340}"
root="${TAGTRACK_CITUS_DIR:-/var/tmp/tagtrack-citus}"
bin=/usr/lib/postgresql/15/bin
role=tagtrack
password=tagtrack
database=tagtrack_citus
url="postgres://${role}:${password}@127.0.0.1:${port}/${database}"
nodes=(coordinator worker1 worker2)

log() { echo "citus-cluster: $*" >&2; }
die() {
  log "$*"
  exit 1
}
node_port() {
  case "$1" in
  coordinator) echo "$port" ;;
  worker1) echo $((port + 1)) ;;
  worker2) echo $((port + 2)) ;;
  esac
}
as_postgres() { runuser -u postgres -- env PGPASSFILE="$root/pgpass" PGOPTIONS="-c client_min_messages=warning" "$@"; }
running() { as_postgres "$bin/pg_ctl" status -D "$root/$1" >/dev/null 2>&1; }

command_name="${1:-start}"
case "$command_name" in
url)
  echo "$url"
  exit 0
  ;;
status)
  for n in "${nodes[@]}"; do
    [ -d "$root/$n" ] && running "$n" || {
      log "$n is not running"
      exit 3
    }
  done
  log "coordinator on 127.0.0.1:$port, workers on $((port + 1)) and $((port + 2))"
  exit 0
  ;;
stop | drop)
  for n in "${nodes[@]}"; do
    if [ -d "$root/$n" ] && running "$n"; then as_postgres "$bin/pg_ctl" stop -D "$root/$n" -m fast -w >&2; fi
  done
  if [ "$command_name" = drop ]; then rm -rf "$root" && log "deleted $root"; fi
  exit 0
  ;;
start) ;;
*) die "unknown command '$command_name' (expected start, stop, drop, status or url)" ;;
esac

[ "$(id -u)" = 0 ] || die "must run as root (runs the nodes as the postgres user)"
[ -x "$bin/postgres" ] || die "no PostgreSQL 15 under $bin (apt-get install postgresql-15)"
[ -f "$("$bin/pg_config" --pkglibdir)/citus.so" ] || die "Citus is not installed: run scripts/citus-build.sh first"

mkdir -p "$root"
chown postgres:postgres "$root"
# every node connects to the others as the session's role: tagtrack, or postgres (the
# superuser, whose password is random, kept in this folder for the nodes only)
if [ ! -f "$root/superuser-password" ]; then
  head -c 24 /dev/urandom | base64 | tr -d '/+=' >"$root/superuser-password"
  chmod 600 "$root/superuser-password"
fi
superuser_password="$(cat "$root/superuser-password")"
printf '127.0.0.1:*:*:%s:%s\n127.0.0.1:*:*:postgres:%s\n' "$role" "$password" "$superuser_password" >"$root/pgpass"
chown postgres:postgres "$root/pgpass"
chmod 600 "$root/pgpass"

for n in "${nodes[@]}"; do
  dir="$root/$n"
  if [ ! -f "$dir/PG_VERSION" ]; then
    log "creating $n in $dir"
    pwfile="$(mktemp)"
    echo "$password" >"$pwfile"
    chown postgres "$pwfile"
    as_postgres "$bin/initdb" -D "$dir" -U postgres --locale C.UTF-8 --encoding UTF8 \
      --auth-local=peer --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    cat >>"$dir/postgresql.conf" <<CONF
# tagtrack Citus test cluster (scripts/citus-cluster.sh): loopback only; speed over durability
listen_addresses = '127.0.0.1'
port = $(node_port "$n")
unix_socket_directories = '$root'
shared_preload_libraries = 'citus'
max_connections = 200
shared_buffers = 256MB
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = logical
max_wal_senders = 10
max_replication_slots = 10
citus.shard_count = 32
CONF
  fi
  if ! running "$n"; then
    log "starting $n on 127.0.0.1:$(node_port "$n")"
    as_postgres "$bin/pg_ctl" start -D "$dir" -l "$root/$n.log" -w -t 60 >&2 ||
      {
        tail -n 20 "$root/$n.log" >&2
        die "$n did not start (is port $(node_port "$n") taken?)"
      }
  fi
done

psql_node() {
  local n="$1"
  shift
  as_postgres psql --no-psqlrc -qtAX -v ON_ERROR_STOP=1 -h "$root" -p "$(node_port "$n")" "$@"
}
for n in "${nodes[@]}"; do
  psql_node "$n" -d postgres -v password="$superuser_password" >/dev/null <<'SQL'
SELECT format('ALTER ROLE postgres WITH PASSWORD %L', :'password') \gexec
SQL
  psql_node "$n" -d postgres -v role="$role" -v password="$password" >/dev/null <<'SQL'
SELECT format('CREATE ROLE %I LOGIN', :'role')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role') \gexec
SELECT format('ALTER ROLE %I WITH LOGIN CREATEDB PASSWORD %L', :'role', :'password') \gexec
SQL
  if [ "$(psql_node "$n" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$database'")" != 1 ]; then
    log "creating database $database on $n"
    as_postgres createdb -h "$root" -p "$(node_port "$n")" -O "$role" -E UTF8 --locale C.UTF-8 -T template0 "$database"
  fi
  psql_node "$n" -d "$database" -c 'CREATE EXTENSION IF NOT EXISTS citus' >/dev/null
  # (the database's owner is the engine's role, so it owns the public schema: PostgreSQL 15's
  # pg_database_owner; no GRANT, which Citus refuses on a worker once it is in the cluster)
done
psql_node coordinator -d "$database" >/dev/null <<SQL
SELECT citus_set_coordinator_host('127.0.0.1', $port);
SELECT citus_add_node('127.0.0.1', $((port + 1)))
WHERE NOT EXISTS (SELECT FROM pg_dist_node WHERE nodeport = $((port + 1)));
SELECT citus_add_node('127.0.0.1', $((port + 2)))
WHERE NOT EXISTS (SELECT FROM pg_dist_node WHERE nodeport = $((port + 2)));
SQL
echo "$url"

#!/usr/bin/env bash
# Builds and installs the Citus extension into Debian's PostgreSQL 15, for the SQL engine's
# tests past one machine (scripts/citus-cluster.sh, .ci/run). Debian, as root:
#
#   scripts/citus-build.sh        builds and installs Citus unless the installed one is
#                                 already this version; prints nothing on stdout
#
# Citus is in no package registry reachable from CI, so its source is read from a folder
# outside this repository: TAGTRACK_CITUS_SOURCE (default /usr/local/src/citus), holding
# the release tarball citus-13.2.2-src.tar.gz (upstream tag v13.2.2) and, optionally,
# pg15.18-compat.patch (applied with patch -p1; Debian's PostgreSQL 15.18 exports
# have_createdb_privilege, which Citus 13.2.2 declares static). Nothing of Citus is kept in
# or copied into this repository (it is AGPL-3.0; the tarball holds its LICENSE). When the
# folder is missing, the script says so and exits 3: put the tarball there, or set
# TAGTRACK_CITUS_SOURCE to where it is.
set -euo pipefail

version=13.2.2
source_dir="${TAGTRACK_CITUS_SOURCE:-/usr/local/src/citus}"
tarball="$source_dir/citus-${version}-src.tar.gz"
pg_major=15
pg_config="/usr/lib/postgresql/${pg_major}/bin/pg_config"

log() { echo "citus-build: $*" >&2; }

if [ ! -f "$tarball" ]; then
  log "no Citus source at $tarball: put citus-${version}-src.tar.gz (and pg15.18-compat.patch) in $source_dir, or set TAGTRACK_CITUS_SOURCE to the folder holding them"
  exit 3
fi
[ "$(id -u)" = 0 ] || {
  log "must run as root (apt-get install, make install into PostgreSQL's folders)"
  exit 1
}

# The build records the Citus version and the server version it was compiled against: a
# citus.so built for another minor version of the server can fail to load (undefined symbol).
stamp_file() { echo "$("$pg_config" --pkglibdir)/citus.tagtrack-build"; }
build_stamp() { echo "citus ${version} for $("$pg_config" --version)"; }
installed() {
  [ -x "$pg_config" ] && [ -f "$("$pg_config" --pkglibdir)/citus.so" ] &&
    [ "$(cat "$(stamp_file)" 2>/dev/null)" = "$(build_stamp)" ]
}
if installed; then
  log "Citus ${version} is installed in PostgreSQL ${pg_major}"
  exit 0
fi

log "installing the build dependencies (Debian packages)"
apt-get update -qq >&2
# The server headers of exactly the installed server's version: installing the newest
# postgresql-server-dev would upgrade postgresql-${pg_major} under clusters already running,
# whose new backends then fail to load the newer plpgsql.so (undefined symbol).
# (apt-get would otherwise upgrade the server and client to satisfy the newest dependencies:
# every one of the three is pinned to the installed server's version)
server_version="$(dpkg-query -W -f='${Version}' "postgresql-${pg_major}" 2>/dev/null || true)"
if [ -n "$server_version" ]; then
  server_packages=("postgresql-${pg_major}=${server_version}"
    "postgresql-client-${pg_major}=${server_version}"
    "postgresql-server-dev-${pg_major}=${server_version}")
else
  server_packages=("postgresql-${pg_major}" "postgresql-server-dev-${pg_major}")
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends --allow-downgrades \
  "${server_packages[@]}" build-essential \
  libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev libssl-dev libselinux1-dev \
  libxslt1-dev libpam0g-dev libreadline-dev zlib1g-dev >&2

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
cd "$work/citus-${version}"
if [ -f "$source_dir/pg15.18-compat.patch" ]; then patch -p1 <"$source_dir/pg15.18-compat.patch" >&2; fi
# (with_llvm=no: no LLVM bitcode for JIT inlining, which the engine turns off: half the build)
log "building Citus ${version} (about a minute on 2 idle cores, 20 on a busy machine)"
PG_CONFIG="$pg_config" nice ./configure >"$work/configure.log" 2>&1 || {
  tail -n 30 "$work/configure.log" >&2
  exit 1
}
nice make -j2 with_llvm=no >"$work/make.log" 2>&1 || {
  grep -E 'error' "$work/make.log" | tail -n 20 >&2
  exit 1
}
make install with_llvm=no >"$work/install.log" 2>&1 || {
  tail -n 20 "$work/install.log" >&2
  exit 1
}
build_stamp >"$(stamp_file)"
log "installed Citus ${version} into PostgreSQL ${pg_major}"

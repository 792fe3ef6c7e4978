#!/usr/bin/env bash
# Real PostgreSQL 15 + pgvector and Neo4j 5.26 for development and CI, without Docker
# (how and why: docs/SERVICES.md). Installs whatever is missing from the package registries,
# so it works on a fresh Debian 12 machine, and is fast when everything is already there.
#
#   scripts/services.sh [start]   install if needed, start (or reuse) both, print exports; a Neo4j
#                                 started from an older launcher or JAVA_OPTS is restarted
#                                 (alone: PostgreSQL keeps running)
#   scripts/services.sh stop      stop both; nothing is left listening
#   scripts/services.sh env       print the exports only
#
# Typical use:  eval "$(scripts/services.sh start)"   (or: . "$SERVICES_DIR/env.sh")
# Progress goes to stderr; stdout carries only `export NAME='value'` lines.
#
# Settings (environment):
#   SWITCHBOARD_SERVICES_DIR  state + build cache (default /var/tmp/switchboard-services;
#                             kept outside the repo so it survives between runs)
#   PGPORT_SWITCHBOARD        PostgreSQL port on 127.0.0.1 (default 55432)
#   NEO4J_BOLT_PORT           Neo4j Bolt port on 127.0.0.1 (default 57687)
#   NEO4J_START_TIMEOUT       seconds to wait for Neo4j (default 180)
set -euo pipefail

CMD=${1:-start}
SVC_DIR=${SWITCHBOARD_SERVICES_DIR:-/var/tmp/switchboard-services}
PG_PORT=${PGPORT_SWITCHBOARD:-55432}
BOLT_PORT=${NEO4J_BOLT_PORT:-57687}
NEO4J_TIMEOUT=${NEO4J_START_TIMEOUT:-180}

PG_BIN=/usr/lib/postgresql/15/bin
PG_DIR=$SVC_DIR/pg        # data/ (cluster), run/ (unix socket), postgres.log
NEO_DIR=$SVC_DIR/neo4j    # build/ (launcher jar + lib/), tmp/ (database files), neo4j.log, neo4j.pid
LAUNCHER_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/services/neo4j-launcher
LAUNCHER_CLASS=switchboard.services.Launcher
# add-opens: Neo4j's page cache and Netty reach into JDK internals (docs/SERVICES.md); -Xmx bounds
# the heap on the shared 2-core/24 GiB machines.
# TieredStopAtLevel=1 (C1 JIT only): ~40% less CPU to start, and test queries are small.
# No -XX:+ExitOnOutOfMemoryError, as in Neo4j's own distribution: tests run Cypher that a model
# could write, and a value built inside one expression (not tracked by the transaction memory
# limits the launcher sets) can exhaust the heap. Neo4j then fails that query with
# Neo.TransientError.General.OutOfMemoryError and keeps serving; with the flag the JVM exited
# and took every test on the machine with it (issue 10).
JAVA_OPTS=(-Xmx1g -XX:TieredStopAtLevel=1
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED)

log() { echo "services: $*" >&2; }
die() { echo "services: ERROR: $*" >&2; exit 1; }

print_env() {
  # Single quotes: the '?' in the URLs must not be globbed when the caller evals this.
  cat <<EOF
export DATABASE_URL='postgres://postgres@127.0.0.1:$PG_PORT/switchboard?sslmode=disable'
export TEST_DATABASE_URL='postgres://postgres@127.0.0.1:$PG_PORT/switchboard_test?sslmode=disable'
export NEO4J_URI='bolt://127.0.0.1:$BOLT_PORT'
export TEST_NEO4J_URI='bolt://127.0.0.1:$BOLT_PORT'
EOF
}

# Runs a command with its output in a log file; on failure shows the tail and exits.
run_logged() {
  local logfile=$1; shift
  if ! "$@" >>"$logfile" 2>&1; then
    tail -n 40 "$logfile" >&2
    die "'$*' failed (full log: $logfile)"
  fi
}

listening() { ss -Hltn "( sport = :$1 )" 2>/dev/null | grep -q .; }

# Postgres refuses to run as root: run its tools as the postgres user when we are root.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# ---------------------------------------------------------------- installing what is missing

APT_UPDATED=0
apt_update() {
  [ "$APT_UPDATED" = 1 ] && return 0
  log "apt-get update"
  run_logged "$SVC_DIR/apt.log" apt-get update
  APT_UPDATED=1
}

apt_install() {
  [ "$(id -u)" = 0 ] || die "missing packages ($*); run as root to install them"
  log "apt-get install $*"
  # A stale package list is the usual cause of a failed install: refresh once and retry.
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" \
      >"$SVC_DIR/apt.log" 2>&1; then
    apt_update
    run_logged "$SVC_DIR/apt.log" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends "$@"
  fi
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }

ensure_base_tools() {
  local missing=()
  [ -x "$PG_BIN/initdb" ] || missing+=(postgresql-15)
  if [ ! -x "$PG_BIN/psql" ] || [ ! -x "$PG_BIN/pg_config" ]; then missing+=(postgresql-client-15); fi
  if ! command -v java >/dev/null || ! command -v javac >/dev/null; then
    missing+=(openjdk-17-jdk-headless)
  fi
  command -v mvn >/dev/null || missing+=(maven)
  command -v ss >/dev/null || missing+=(iproute2)
  if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
}

# Debian 12 has no pgvector binary; Debian 13 ships its source package, which builds
# against PG 15 in seconds (docs/SERVICES.md). Only done when the extension is not installed.
ensure_pgvector() {
  local sharedir pkglibdir
  sharedir=$("$PG_BIN/pg_config" --sharedir)
  pkglibdir=$("$PG_BIN/pg_config" --pkglibdir)
  if [ -f "$sharedir/extension/vector.control" ] && [ -f "$pkglibdir/vector.so" ]; then
    return 0
  fi
  log "pgvector not installed: building it from the Debian 13 source package"
  local src=/etc/apt/sources.list.d/trixie-src.sources
  if [ ! -f "$src" ]; then
    [ "$(id -u)" = 0 ] || die "pgvector is missing and only root can install it"
    # deb-src only: lets apt see trixie source packages; nothing gets upgraded.
    cat >"$src" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  fi
  # apt only knows trixie's sources after an update that saw the file above.
  if ! ls /var/lib/apt/lists/*_dists_trixie_*Sources* >/dev/null 2>&1; then apt_update; fi
  installed postgresql-server-dev-15 || apt_install postgresql-server-dev-15
  if ! command -v make >/dev/null || ! command -v gcc >/dev/null; then apt_install make gcc; fi

  local work; work=$(mktemp -d)
  # shellcheck disable=SC2064  # expand $work now
  trap "rm -rf '$work'" EXIT
  (
    cd "$work"
    run_logged "$SVC_DIR/pgvector.log" apt-get source --download-only pgvector
    tar xf pgvector_*.orig.tar.*
    cd pgvector-*/
    # OPTFLAGS="": no -march=native, so the installed .so survives a move to another CPU.
    run_logged "$SVC_DIR/pgvector.log" make -j2 PG_CONFIG="$PG_BIN/pg_config" OPTFLAGS=""
    run_logged "$SVC_DIR/pgvector.log" make install PG_CONFIG="$PG_BIN/pg_config" OPTFLAGS=""
  )
  rm -rf "$work"; trap - EXIT
  [ -f "$sharedir/extension/vector.control" ] || die "pgvector build did not install vector.control"
  log "pgvector installed"
}

# The launcher is rebuilt only when its sources change (hash stamp in the build dir).
launcher_hash() {
  (cd "$LAUNCHER_SRC" && find . -type f \( -name pom.xml -o -name '*.java' \) | LC_ALL=C sort |
    xargs sha256sum) | sha256sum | cut -c1-16
}

ensure_launcher() {
  local build=$NEO_DIR/build hash
  hash=$(launcher_hash)
  if [ -f "$build/neo4j-launcher.jar" ] && [ -d "$build/lib" ] &&
     [ "$(cat "$build/.source-hash" 2>/dev/null)" = "$hash" ]; then
    return 0
  fi
  log "building the Neo4j launcher with Maven (first time downloads ~150 MB of jars)"
  rm -rf "$build"
  run_logged "$NEO_DIR/build.log" mvn -q -B -f "$LAUNCHER_SRC/pom.xml" -DbuildDir="$build" package
  echo "$hash" >"$build/.source-hash"
}

# ---------------------------------------------------------------- PostgreSQL

pg_running() { [ -f "$PG_DIR/data/PG_VERSION" ] && as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" status >/dev/null 2>&1; }
# Ready on our port, and the port is our cluster's (line 4 of postmaster.pid), not another server's.
pg_ready() {
  [ "$(sed -n 4p "$PG_DIR/data/postmaster.pid" 2>/dev/null)" = "$PG_PORT" ] &&
    "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres
}
psql_pg() { PGOPTIONS='-c client_min_messages=warning' "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres "$@"; }

start_pg() {
  mkdir -p "$PG_DIR/run"
  [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$PG_DIR"
  if [ ! -f "$PG_DIR/data/PG_VERSION" ]; then
    log "initdb $PG_DIR/data"
    rm -rf "$PG_DIR/data"
    # trust: throw-away cluster reachable only on 127.0.0.1 and a private socket dir.
    run_logged "$PG_DIR/initdb.log" as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres \
      -A trust -E UTF8 --locale=C.UTF-8
    # Durability is worthless for test data; skipping fsync makes test suites much faster.
    cat >>"$PG_DIR/data/postgresql.conf" <<'EOF'
# switchboard services.sh: throw-away test cluster
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
  fi

  if pg_running && pg_ready; then
    log "PostgreSQL already running on 127.0.0.1:$PG_PORT"
  else
    if pg_running; then
      log "PostgreSQL running but not on port $PG_PORT: restarting it"
      as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop >&2 9>&-
    fi
    listening "$PG_PORT" && die "port $PG_PORT is taken by another process (set PGPORT_SWITCHBOARD)"
    log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
    # Port/listen address/socket dir on the command line so a changed port needs no re-init.
    # 9>&- : the server must not inherit our lock fd, or it would hold the lock forever.
    if ! as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/postgres.log" -w -t 60 \
        -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k '$PG_DIR/run'" start >&2 9>&-; then
      tail -n 30 "$PG_DIR/postgres.log" >&2 || true
      die "PostgreSQL did not start (log: $PG_DIR/postgres.log)"
    fi
  fi

  local db
  for db in switchboard switchboard_test; do
    if [ -z "$(psql_pg -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
      log "creating database $db"
      psql_pg -d postgres -c "CREATE DATABASE $db"
    fi
    psql_pg -d "$db" -c "CREATE EXTENSION IF NOT EXISTS vector"
  done
}

stop_pg() {
  if pg_running; then
    log "stopping PostgreSQL"
    as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 60 stop >&2 9>&-
  fi
}

# ---------------------------------------------------------------- Neo4j

# What a Neo4j JVM was started with: the launcher's sources and JAVA_OPTS. A JVM started with
# anything else is restarted by `start`, so that a changed launcher setting (memory limits)
# reaches the running server without stopping PostgreSQL.
neo_stamp() { { launcher_hash; printf '%s\n' "${JAVA_OPTS[@]}"; } | sha256sum | cut -c1-16; }

# Our JVM: pid from the pidfile, alive, and really running the launcher class.
neo_pid() {
  local pid
  pid=$(cat "$NEO_DIR/neo4j.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$LAUNCHER_CLASS" && echo "$pid"
}

start_neo4j() {
  local pid stamp
  # Built before a running server is stopped for a new one, so that it is down for seconds.
  ensure_launcher
  stamp=$(neo_stamp)
  if pid=$(neo_pid); then
    if [ "$(cat "$NEO_DIR/neo4j.stamp" 2>/dev/null)" != "$stamp" ]; then
      log "Neo4j (pid $pid) runs an older launcher or JVM options: restarting it"
      stop_neo4j
    elif grep -q "^READY bolt://127.0.0.1:$BOLT_PORT/" "$NEO_DIR/neo4j.log" 2>/dev/null &&
       listening "$BOLT_PORT"; then
      log "Neo4j already running on 127.0.0.1:$BOLT_PORT (pid $pid)"
      return 0
    else
      log "Neo4j (pid $pid) is not serving on port $BOLT_PORT: restarting it"
      stop_neo4j
    fi
  fi
  rm -f "$NEO_DIR/neo4j.pid"
  listening "$BOLT_PORT" && die "port $BOLT_PORT is taken by another process (set NEO4J_BOLT_PORT)"

  # A fresh tmp dir each start: the launcher keeps its database there, so a killed JVM's
  # leftovers are dropped here.
  rm -rf "$NEO_DIR/tmp" && mkdir -p "$NEO_DIR/tmp"
  log "starting Neo4j on 127.0.0.1:$BOLT_PORT"
  # setsid: own session, so the caller's Ctrl-C or exit does not reach it; --no-stdin because
  # stdin is /dev/null here (the launcher otherwise exits on stdin EOF); 9>&- drops the lock fd.
  setsid java "${JAVA_OPTS[@]}" -Djava.io.tmpdir="$NEO_DIR/tmp" \
    -cp "$NEO_DIR/build/neo4j-launcher.jar:$NEO_DIR/build/lib/*" \
    "$LAUNCHER_CLASS" --no-stdin "$BOLT_PORT" \
    </dev/null >"$NEO_DIR/neo4j.log" 2>&1 9>&- &
  pid=$!
  echo "$pid" >"$NEO_DIR/neo4j.pid"
  echo "$stamp" >"$NEO_DIR/neo4j.stamp"

  local waited=0
  until grep -q '^READY ' "$NEO_DIR/neo4j.log" && listening "$BOLT_PORT"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 40 "$NEO_DIR/neo4j.log" >&2
      die "Neo4j exited during start-up (log: $NEO_DIR/neo4j.log)"
    fi
    if [ "$waited" -ge "$NEO4J_TIMEOUT" ]; then
      tail -n 40 "$NEO_DIR/neo4j.log" >&2
      stop_neo4j
      die "Neo4j not ready after ${NEO4J_TIMEOUT}s (log: $NEO_DIR/neo4j.log)"
    fi
    sleep 1; waited=$((waited + 1))
  done
  log "Neo4j ready after ~${waited}s (pid $pid)"
}

stop_neo4j() {
  local pid _
  if pid=$(neo_pid); then
    log "stopping Neo4j (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true   # shutdown hook closes the database cleanly
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "Neo4j did not stop in 30s: killing it"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 1
    fi
  fi
  rm -f "$NEO_DIR/neo4j.pid" "$NEO_DIR/neo4j.stamp"
  rm -rf "$NEO_DIR/tmp"
}

# ---------------------------------------------------------------- main

lock() {
  mkdir -p "$SVC_DIR" "$NEO_DIR"
  # One start/stop at a time (parallel test runs or engineers share the same services).
  exec 9>"$SVC_DIR/.lock"
  flock -w 600 9 || die "timed out waiting for another services.sh on $SVC_DIR/.lock"
}

case "$CMD" in
  start)
    lock
    ensure_base_tools
    ensure_pgvector
    start_pg
    start_neo4j
    print_env >"$SVC_DIR/env.sh"
    log "ready; exports also in $SVC_DIR/env.sh"
    print_env
    ;;
  stop)
    lock
    stop_neo4j
    stop_pg
    for p in "$PG_PORT" "$BOLT_PORT"; do
      if listening "$p"; then die "port $p is still listening after stop"; fi
    done
    log "stopped"
    ;;
  env)
    print_env
    ;;
  *)
    die "usage: $0 [start|stop|env]"
    ;;
esac

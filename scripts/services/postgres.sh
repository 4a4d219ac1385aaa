#!/usr/bin/env bash
# A private PostgreSQL cluster for the durable-run tests (capstan/dbos): bound to 127.0.0.1, its socket and
# data in one directory, run as the `postgres` user when we are root (initdb refuses root).
#   scripts/services/postgres.sh start   init (once) and start; prints the URL for CAPSTAN_TEST_POSTGRES_URL
#   scripts/services/postgres.sh stop    stop the cluster this script started (by the postmaster's pid)
# CAPSTAN_PG_DIR (default /tmp/capstan-postgres) and CAPSTAN_PG_PORT (default 54329) choose where.
set -euo pipefail
dir=${CAPSTAN_PG_DIR:-/tmp/capstan-postgres}
port=${CAPSTAN_PG_PORT:-54329}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
[ -n "$bin" ] || { echo "postgres.sh: no PostgreSQL server (apt-get install -y postgresql)" >&2; exit 1; }

as_owner() {
	if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}

case "${1:-}" in
start)
	mkdir -p "$dir"
	[ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
	if [ ! -f "$dir/data/PG_VERSION" ]; then
		as_owner "'$bin/initdb' -D '$dir/data' -U postgres --auth=trust -E UTF8 >'$dir/initdb.log'"
	fi
	if [ -f "$dir/data/postmaster.pid" ] && kill -0 "$(head -1 "$dir/data/postmaster.pid")" 2>/dev/null; then
		echo "postgres.sh: already running (pid $(head -1 "$dir/data/postmaster.pid"))" >&2
	else
		as_owner "'$bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -o \"-c listen_addresses=127.0.0.1 -p $port -k '$dir' -c max_connections=200 -c fsync=off\" start >/dev/null"
	fi
	echo "postgresql://postgres@127.0.0.1:$port/postgres"
	;;
stop)
	pidfile="$dir/data/postmaster.pid"
	[ -f "$pidfile" ] || { echo "postgres.sh: not running" >&2; exit 0; }
	pid=$(head -1 "$pidfile")
	kill -INT "$pid" 2>/dev/null || true # SIGINT: PostgreSQL's fast shutdown
	for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.1; done
	echo "postgres.sh: pid $pid did not stop" >&2
	exit 1
	;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac

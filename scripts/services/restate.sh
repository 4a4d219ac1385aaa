#!/usr/bin/env bash
# A private Restate server for the durable-run tests (capstan/restate): the restate-server binary that ships in
# its npm package (no download of its own: CI reaches only the npm registry), bound to 127.0.0.1 on free ports,
# its data under a run directory, stopped by its pid.
#
#   scripts/services/restate.sh start   # prints `export CAPSTAN_TEST_RESTATE_URL=…` lines: eval them
#   scripts/services/restate.sh stop    # kills the server by its pid and removes the run directory
#   scripts/services/restate.sh env     # prints the export lines of the running server again
#
# CAPSTAN_RESTATE_RUN_DIR picks the run directory (default: one per user under $TMPDIR). `start` on a directory
# that holds data restarts the server from that data, on the same ports — the kill test relies on it.
# CAPSTAN_RESTATE_HOME is where the server package is installed (default: a per-version cache directory).
set -euo pipefail

VERSION=1.7.12 # exact, known-good: the server package and its platform binary are pinned together
run_dir=${CAPSTAN_RESTATE_RUN_DIR:-${TMPDIR:-/tmp}/capstan-restate-$(id -u)}
home=${CAPSTAN_RESTATE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/capstan/restate-server-$VERSION}

log() { echo "restate.sh: $*" >&2; }

# The platform binary inside @restatedev/restate-server's optional dependency for this OS and CPU.
server_binary() {
	local binary
	binary=$(cd "$home" 2>/dev/null && node -e '
		const os = require("node:os");
		process.stdout.write(require.resolve(`@restatedev/restate-server-${os.platform()}-${os.arch()}/bin/restate-server`));
	' 2>/dev/null) || binary=""
	if [[ -z $binary ]]; then
		log "installing @restatedev/restate-server@$VERSION into $home"
		mkdir -p "$home"
		# --ignore-scripts: the package's only install script is an analytics ping, which must not run here.
		npm install --prefix "$home" --no-audit --no-fund --silent --ignore-scripts --no-save \
			"@restatedev/restate-server@$VERSION" >&2
		binary=$(cd "$home" && node -e '
			const os = require("node:os");
			process.stdout.write(require.resolve(`@restatedev/restate-server-${os.platform()}-${os.arch()}/bin/restate-server`));
		')
	fi
	echo "$binary"
}

# Three ports the OS says are free now (the server binds them a moment later; a clash fails loudly below).
free_ports() {
	node -e '
		const net = require("node:net");
		const take = () => new Promise((resolve) => {
			const server = net.createServer().listen(0, "127.0.0.1", () => {
				const { port } = server.address();
				server.close(() => resolve(port));
			});
		});
		(async () => {
			const ports = new Set();
			while (ports.size < 3) ports.add(await take());
			console.log([...ports].join(" "));
		})();
	'
}

print_env() {
	# shellcheck disable=SC1091
	source "$run_dir/ports"
	echo "export CAPSTAN_TEST_RESTATE_URL=http://127.0.0.1:$ingress_port"
	echo "export CAPSTAN_TEST_RESTATE_ADMIN_URL=http://127.0.0.1:$admin_port"
	echo "export CAPSTAN_TEST_RESTATE_RUN_DIR=$run_dir"
}

# Alive, and not a zombie: a killed server whose parent is gone may wait to be reaped by an init that never does.
alive() {
	local state
	state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[[ -n $state && $state != Z* ]]
}

running() {
	[[ -f "$run_dir/pid" ]] && alive "$(cat "$run_dir/pid")"
}

start() {
	if running; then
		log "already running (pid $(cat "$run_dir/pid"))"
		print_env
		return
	fi
	local binary
	binary=$(server_binary)
	mkdir -p "$run_dir/data"
	if [[ ! -f "$run_dir/ports" ]]; then
		read -r node_port ingress_port admin_port < <(free_ports)
		printf 'node_port=%s\ningress_port=%s\nadmin_port=%s\n' "$node_port" "$ingress_port" "$admin_port" >"$run_dir/ports"
	fi
	# shellcheck disable=SC1091
	source "$run_dir/ports"
	# Small memory budgets and 4 partitions: the CI machine has 2 cores shared with the whole suite.
	# A short retry policy, so a run whose worker was killed resumes within a second of a new worker coming up.
	cat >"$run_dir/config.toml" <<EOF
node-name = "capstan-test"
cluster-name = "capstan-test"
bind-address = "127.0.0.1:$node_port"
advertised-address = "http://127.0.0.1:$node_port/"
disable-telemetry = true
rocksdb-total-memory-size = "256 MiB"
default-num-partitions = 4
log-disable-ansi-codes = true

[default-retry-policy]
initial-interval = "100ms"
exponentiation-factor = 2.0
max-interval = "1s"
max-attempts = 200
on-max-attempts = "pause"

[admin]
bind-address = "127.0.0.1:$admin_port"
disable-web-ui = true

[admin.query-engine]
memory-size = "64 MiB"

[ingress]
bind-address = "127.0.0.1:$ingress_port"
EOF
	(cd "$run_dir" && exec "$binary" --config-file "$run_dir/config.toml" --base-dir "$run_dir/data" \
		--no-logo --listen-mode tcp </dev/null >>"$run_dir/server.log" 2>&1) &
	echo $! >"$run_dir/pid"
	for _ in $(seq 1 150); do
		if curl -fsS "http://127.0.0.1:$admin_port/health" >/dev/null 2>&1 &&
			curl -fsS "http://127.0.0.1:$ingress_port/restate/health" >/dev/null 2>&1; then
			log "up (pid $(cat "$run_dir/pid"), ingress :$ingress_port, admin :$admin_port, data $run_dir/data)"
			print_env
			return
		fi
		if ! running; then break; fi
		sleep 0.2
	done
	log "the server did not come up; its log:"
	tail -n 40 "$run_dir/server.log" >&2 || true
	stop
	exit 1
}

stop() {
	if [[ -f "$run_dir/pid" ]]; then
		local pid
		pid=$(cat "$run_dir/pid")
		if alive "$pid"; then
			kill "$pid"
			for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.2; done
			if alive "$pid"; then kill -9 "$pid"; fi
		fi
	fi
	rm -rf "$run_dir"
}

case ${1:-} in
start) start ;;
stop) stop ;;
env) print_env ;;
*)
	echo "usage: $0 start|stop|env" >&2
	exit 2
	;;
esac

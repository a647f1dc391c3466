#!/usr/bin/env bash
# Makes sure the services the test suite talks to are up: PostgreSQL, Redis, MariaDB and RabbitMQ.
# Starts a stopped one with the machine's own command when run as root; otherwise says what is missing.
set -u

up() { timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

start_service() {
  local name=$1 port=$2 cmd=$3
  if up "$port"; then echo "[services] $name is up on :$port"; return 0; fi
  if [ "$(id -u)" != 0 ]; then echo "[services] $name is down on :$port and I am not root to start it: $cmd" >&2; return 1; fi
  echo "[services] starting $name…"
  bash -c "$cmd" >/dev/null 2>&1 || true
  for _ in $(seq 1 30); do up "$port" && { echo "[services] $name is up on :$port"; return 0; }; sleep 1; done
  echo "[services] $name did not come up on :$port" >&2
  return 1
}

status=0
start_service PostgreSQL 5432 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql | head -n1) main start' || status=1
start_service Redis 6379 'mkdir -p /var/lib/redis /var/log/redis; redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log' || status=1
start_service MariaDB 3306 'mkdir -p /run/mysqld; chown mysql:mysql /run/mysqld 2>/dev/null; start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd' || status=1
start_service RabbitMQ 5672 'rabbitmq-server -detached' || status=1
exit $status

#!/usr/bin/env bash
# npm run test:engines [-- --down] [-- <vitest options, e.g. -t 'a test name'>]
#
# Runs the suites that are skipped unless a SQL Server, an Oracle or a MongoDB server is named
# (TEST_MSSQL_URL, TEST_ORACLE_URL, TEST_MONGO_URL) against the `engines` profile of
# docker/compose.yml: starts those containers, waits until they are healthy with their fixtures
# loaded, points the variables at them and runs the suites with TZ=UTC.
#
# The containers are left running, so the next run starts in seconds instead of minutes (Oracle
# creates its database on first start). --down removes them after the run; by hand:
#   docker compose -f docker/compose.yml --profile engines rm -s -f -v sqlserver sqlserver-init oracle mongodb
#
# Exit status: vitest's; 1 when the containers do not come up; 2 when Docker is missing.
set -uo pipefail

# Only shell builtins until Docker is known to be there: the "missing" path must work on a bare PATH.
script_dir=${BASH_SOURCE[0]%/*}
[ "$script_dir" = "${BASH_SOURCE[0]}" ] && script_dir=.
root=$(cd "$script_dir/.." && pwd) || exit 1

services=(sqlserver oracle mongodb)
# Every suite gated on one of the three variables (test/docker/test-engines.spec.ts keeps this list
# equal to the suites that read them).
suites=(
  test/integration/filter-differential-gated.spec.ts
  test/integration/mongodb-connector.spec.ts
  test/integration/mongodb-filters.spec.ts
  test/integration/mongodb-incremental.spec.ts
  test/integration/mongodb-scenarios.spec.ts
  test/integration/oracle-connector.spec.ts
  test/integration/oracle-incremental.spec.ts
  test/integration/oracle-scenarios.spec.ts
  test/integration/oracle-streaming.spec.ts
  test/integration/sqlserver-connect.spec.ts
  test/integration/sqlserver-connector.spec.ts
  test/integration/sqlserver-incremental.spec.ts
  test/integration/sqlserver-scenarios.spec.ts
  test/integration/sqlserver-streaming.spec.ts
)

down=0
vitest_args=()
for arg in "$@"; do
  case $arg in
    --down) down=1 ;;
    -h | --help)
      printf '%s\n' 'usage: npm run test:engines [-- --down] [-- <vitest options>]' \
        'Starts SQL Server, Oracle and MongoDB from docker/compose.yml (profile engines) and runs the suites gated on them.' \
        '--down  remove the containers after the run (default: leave them running for the next run)'
      exit 0
      ;;
    *) vitest_args+=("$arg") ;;
  esac
done

requirements() {
  printf '%s\n' "[test:engines] $1" \
    '' \
    'npm run test:engines needs:' \
    '  - Docker Engine (or Docker Desktop) with the compose plugin: `docker compose version` must work (Compose v2);' \
    '    see https://docs.docker.com/engine/install/ and https://docs.docker.com/compose/install/linux/' \
    '  - about 6 GB of memory for the containers (SQL Server and Oracle Free want about 2 GB each) and' \
    '    about 5 GB of disk for the images, pulled on the first run;' \
    '  - free host ports 127.0.0.1:1433 (SQL Server), 127.0.0.1:1521 (Oracle) and 127.0.0.1:27017 (MongoDB).' \
    'The rest of the suite runs without Docker: npm test.' >&2
  exit 2
}

command -v docker >/dev/null 2>&1 || requirements 'docker is not on PATH.'
docker compose version >/dev/null 2>&1 || requirements 'docker is there, but not its compose plugin (docker compose).'
docker info >/dev/null 2>&1 || requirements 'the Docker daemon does not answer (is it running, and may this user use it?).'

compose=(docker compose -f "$root/docker/compose.yml" --profile engines)
cd "$root" || exit 1

remove_containers() {
  if [ "$down" = 1 ]; then
    printf '[test:engines] removing the engine containers\n'
    "${compose[@]}" rm -s -f -v "${services[@]}" sqlserver-init
  else
    printf '%s\n' '[test:engines] the engine containers are left running; remove them with' \
      "  docker compose -f docker/compose.yml --profile engines rm -s -f -v ${services[*]} sqlserver-init"
  fi
}

printf '[test:engines] starting %s (the first start pulls the images and takes minutes)\n' "${services[*]}"
if ! "${compose[@]}" up -d --wait "${services[@]}"; then
  printf '%s\n' '[test:engines] the engines did not become healthy; see' \
    "  docker compose -f docker/compose.yml --profile engines logs ${services[*]}" >&2
  remove_containers
  exit 1
fi
# The walkthrough's SQL Server sample (idempotent): a one-shot container, which `up --wait` would count as a failure.
if ! "${compose[@]}" run --rm -T sqlserver-init; then
  printf '[test:engines] loading docker/fixtures/sqlserver/init.sql failed\n' >&2
  remove_containers
  exit 1
fi

# The ports, logins and databases of docker/compose.yml and docker/fixtures. SQL Server's
# certificate is self-signed: the suites connect without TLS (ssl=disable) and TEST_MSSQL_CA stays unset.
export TZ=UTC
export TEST_MSSQL_URL='mssql://sa:Passw0rd!@127.0.0.1:1433/fetcher_test'
export TEST_ORACLE_URL='oracle://fetcher:secret@127.0.0.1:1521/FREEPDB1'
export TEST_MONGO_URL='mongodb://root:mongo-pw@127.0.0.1:27017/fetcher_test?authSource=admin&directConnection=true'
unset TEST_MSSQL_CA

# The ${a[@]+…} form: bash 3.2 (macOS) calls an empty array unbound under set -u.
npx vitest run "${suites[@]}" ${vitest_args[@]+"${vitest_args[@]}"}
status=$?
remove_containers
exit "$status"

#!/bin/sh
# Virtuoso (Debian's virtuoso-opensource-7) as ToxGraph's store, in the toxgraph-services image.
# Its database is in /var/lib/toxgraph/virtuoso (the volume). At the first start it sets the
# dba password and creates ToxGraph's own account, both read from secret files, and leaves the
# anonymous SPARQL user read-only; ToxGraph signs in to /sparql-auth (HTTP Digest).
#   DBA_PASSWORD_FILE    (/run/secrets/virtuoso-dba-password)
#   STORE_USER           (toxgraph)
#   STORE_PASSWORD_FILE  (/run/secrets/store-password)
#   VIRTUOSO_BUFFERS     (100000: 8 KiB pages kept in memory, about 800 MiB)
set -eu
DIR="${VIRTUOSO_DIR:-/var/lib/toxgraph/virtuoso}"
DBA_PASSWORD_FILE="${DBA_PASSWORD_FILE:-/run/secrets/virtuoso-dba-password}"
STORE_USER="${STORE_USER:-toxgraph}"
STORE_PASSWORD_FILE="${STORE_PASSWORD_FILE:-/run/secrets/store-password}"
BUFFERS="${VIRTUOSO_BUFFERS:-100000}"
mkdir -p "$DIR"
cd "$DIR"
# virtuoso.ini; with "http", its HTTP server on port 8890 of every address. (Virtuoso binds its
# /sparql and /sparql-auth paths to the address its HTTP server has when the database is made:
# written with an address such as 0.0.0.0:8890 they answer 404 to every other Host.)
write_ini() {
http=""
[ "${1:-}" = http ] && http="[HTTPServer]
ServerPort = 8890
ServerRoot = $DIR
ServerThreads = 20
MaxClientConnections = 20
Charset = UTF-8"
cat > virtuoso.ini <<INI
[Database]
DatabaseFile = $DIR/virtuoso.db
ErrorLogFile = $DIR/virtuoso.log
LockFile = $DIR/virtuoso.lck
TransactionFile = $DIR/virtuoso.trx
xa_persistent_file = $DIR/virtuoso.pxa
[TempDatabase]
DatabaseFile = $DIR/virtuoso-temp.db
TransactionFile = $DIR/virtuoso-temp.trx
[Parameters]
ServerPort = 127.0.0.1:1111
DisableUnixSocket = 1
NumberOfBuffers = $BUFFERS
MaxDirtyBuffers = $((BUFFERS * 3 / 4))
CheckpointInterval = 60
DirsAllowed = .
$http
[SPARQL]
ResultSetMaxRows = 100000000
MaxQueryCostEstimationTime = 0
MaxQueryExecutionTime = 0
INI
}

# a secret file's text without its final line break (as ToxGraph reads it: one \n or \r\n),
# quoted for SQL
secret() {
  [ -r "$1" ] || { echo "virtuoso.sh: cannot read $1" >&2; exit 1; }
  nl='
'
  cr="$(printf '\r')"
  text="$(cat "$1"; printf x)"
  text="${text%x}"
  case "$text" in *"$nl") text="${text%"$nl"}" && text="${text%"$cr"}" ;; esac
  printf '%s' "$text" | sed "s/'/''/g"
}

case "$STORE_USER" in *[!A-Za-z0-9_]* | '') echo "virtuoso.sh: STORE_USER is letters, digits and _ only" >&2; exit 1 ;; esac

# The database is set up once; .toxgraph-ready says it was, whole. A first start cut short (a
# failure, a stop) leaves no database behind, so the next start sets it up again rather than
# serving one without its accounts and with dba's default password.
if [ ! -f .toxgraph-ready ]; then
  rm -f virtuoso.db virtuoso.trx virtuoso.pxa virtuoso-temp.db virtuoso-temp.trx virtuoso.lck setup.log
  dba="$(secret "$DBA_PASSWORD_FILE")"
  store="$(secret "$STORE_PASSWORD_FILE")"
  # set up without its HTTP server: ToxGraph waits for a refused connection, not for the 401s
  # of an account not made yet
  write_ini
  virtuoso-t -f -c virtuoso.ini &
  pid=$!
  abandon() {
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -f setup.log virtuoso.db virtuoso.trx virtuoso.pxa virtuoso-temp.db virtuoso-temp.trx virtuoso.lck
  }
  trap 'abandon; exit 1' INT TERM
  i=0
  until isql-vt 1111 dba dba 'exec=status();' >/dev/null 2>&1; do
    i=$((i + 1))
    if [ "$i" -ge 300 ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "virtuoso.sh: Virtuoso did not start" >&2
      abandon
      exit 1
    fi
    sleep 0.2
  done
  # on standard input, not in the arguments every process in the container can read
  printf '%s\n' "DB.DBA.USER_CREATE('$STORE_USER', '$store');" "GRANT SPARQL_SELECT TO \"$STORE_USER\";" \
    "GRANT SPARQL_UPDATE TO \"$STORE_USER\";" "DB.DBA.RDF_DEFAULT_USER_PERMS_SET('$STORE_USER', 15);" \
    "USER_SET_PASSWORD('dba', '$dba');" "checkpoint;" | isql-vt 1111 dba dba >setup.log 2>&1 || true
  if grep -q '\*\*\* Error' setup.log || ! grep -q 'Done' setup.log; then
    # the error lines only: the statements around them hold the passwords
    echo "virtuoso.sh: setting up the accounts failed:" >&2
    grep '\*\*\* Error' setup.log >&2 || true
    abandon
    exit 1
  fi
  rm -f setup.log
  kill "$pid"
  wait "$pid" || true
  trap - INT TERM
  touch .toxgraph-ready
fi
write_ini http
exec virtuoso-t -f -c virtuoso.ini

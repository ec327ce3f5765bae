#!/usr/bin/env bash
# Provisions a local Elasticsearch 8.19 for tests and benchmarks, from Maven
# Central's integ-test-zip distribution, run with the machine's JDK 17 as a
# non-root user, single node, security off, loopback only.
#
#   scripts/elasticsearch.sh install          fetch and unpack (cached under .cache/es), and build and
#                                              install the Chinese analysis plugin (scripts/es-analysis-zh:
#                                              Lucene's smartcn and cjk analyzers, Tair's jieba on
#                                              jieba-analysis 1.0.2; all from Maven Central)
#   scripts/elasticsearch.sh start [PORT]      start (default port 9201), wait for /_cluster/health,
#                                              print the URL; the PID goes to .cache/es/run-PORT/es.pid
#   scripts/elasticsearch.sh stop [PORT]       stop by PID
#   scripts/elasticsearch.sh url [PORT]        print the URL of a running instance
#   scripts/elasticsearch.sh pid [PORT]        print the PID of a running instance (tests pause it)
set -euo pipefail

VERSION=${ES_VERSION:-8.19.21}
ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:${VERSION}:zip"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${ES_CACHE:-$ROOT/.cache/es}
HOME_DIR="$CACHE/elasticsearch-$VERSION"
ES_USER=${ES_USER:-tairbench-es}
HEAP=${ES_HEAP:-1g}

log() { echo "elasticsearch.sh: $*" >&2; }

java_home() {
  if [ -n "${ES_JAVA_HOME:-}" ]; then echo "$ES_JAVA_HOME"; return; fi
  for d in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk-arm64 /usr/lib/jvm/java-17-openjdk*; do
    if [ -x "$d/bin/java" ]; then echo "$d"; return; fi
  done
  if command -v java >/dev/null; then dirname "$(dirname "$(readlink -f "$(command -v java)")")"; return; fi
  log "no JDK found: install openjdk-17-jre-headless or set ES_JAVA_HOME"; exit 1
}

install() {
  if [ -x "$HOME_DIR/bin/elasticsearch" ]; then install_zh; return; fi
  command -v mvn >/dev/null || { log "maven (mvn) is needed to fetch Elasticsearch from Maven Central"; exit 1; }
  mkdir -p "$CACHE"
  log "fetching $ARTIFACT from Maven Central"
  MAVEN_OPTS="${MAVEN_OPTS:-} -XX:-UsePerfData" mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$ARTIFACT" -DoutputDirectory="$CACHE" -Dmdep.overWriteIfNewer=true >&2
  local zip="$CACHE/elasticsearch-$VERSION.zip"
  [ -f "$zip" ] || { log "download failed: $zip missing"; exit 1; }
  log "unpacking $zip"
  python3 -m zipfile -e "$zip" "$CACHE" >&2
  chmod -R a+rX "$HOME_DIR"
  chmod +x "$HOME_DIR"/bin/*
  [ -x "$HOME_DIR/bin/elasticsearch" ] || { log "unexpected archive layout under $CACHE"; exit 1; }
  install_zh
}

# install_zh builds the analysis plugin of scripts/es-analysis-zh against this
# distribution's own jars, with Lucene's smartcn jar of the distribution's
# Lucene version and the Java port of jieba, and installs it in the
# distribution's plugins folder. A source newer than the built jar rebuilds it.
JIEBA=com.huaban:jieba-analysis:1.0.2
install_zh() {
  local dir="$HOME_DIR/plugins/tairbench-analysis-zh" src="$ROOT/scripts/es-analysis-zh"
  if [ -f "$dir/tairbench-analysis-zh.jar" ] && [ -z "$(find "$src" -type f -newer "$dir/tairbench-analysis-zh.jar")" ]; then return; fi
  local lucene; lucene=$(ls "$HOME_DIR"/lib/lucene-core-*.jar | sed 's/.*lucene-core-\(.*\)\.jar/\1/')
  local jh; jh=$(java_home)
  [ -x "$jh/bin/javac" ] || { log "javac is needed to build the Chinese analysis plugin: install openjdk-17-jdk-headless"; exit 1; }
  log "building the Chinese analysis plugin (Lucene smartcn $lucene, $JIEBA)"
  local build="$CACHE/build-zh"
  rm -rf "$build"; mkdir -p "$build/classes"
  local a
  for a in "org.apache.lucene:lucene-analysis-smartcn:$lucene:jar" "$JIEBA:jar"; do
    MAVEN_OPTS="${MAVEN_OPTS:-} -XX:-UsePerfData" mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="$a" -DoutputDirectory="$build" >&2
  done
  local jieba; jieba=$(basename "$build"/jieba-analysis-*.jar)
  find "$src" -name '*.java' >"$build/sources"
  "$jh/bin/javac" -J-XX:-UsePerfData -nowarn -d "$build/classes" -cp "$HOME_DIR/lib/*:$build/lucene-analysis-smartcn-$lucene.jar:$build/$jieba" \
    @"$build/sources" >&2
  "$jh/bin/jar" -J-XX:-UsePerfData cf "$build/tairbench-analysis-zh.jar" -C "$build/classes" .
  rm -rf "$dir"; mkdir -p "$dir"
  cp "$build/tairbench-analysis-zh.jar" "$build/lucene-analysis-smartcn-$lucene.jar" "$build/$jieba" "$dir/"
  sed "s/@ES_VERSION@/$VERSION/" "$src/plugin-descriptor.properties" >"$dir/plugin-descriptor.properties"
  chmod -R a+rX "$dir"
  rm -rf "$build"
}

ensure_user() {
  if [ "$(id -u)" != 0 ]; then return; fi # a non-root user runs it as itself
  id "$ES_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$ES_USER"
}

run_as() {
  if [ "$(id -u)" = 0 ]; then
    su -s /bin/bash "$ES_USER" -c "$*"
  else
    bash -c "$*"
  fi
}

health() { curl -fsS --max-time 2 "http://127.0.0.1:$1/_cluster/health" >/dev/null 2>&1; }

# reachable makes sure the non-root user can read the distribution and
# write its run folder: a checkout under a private folder (such as /root)
# is not reachable, so the distribution is copied to a public cache.
reachable() {
  [ "$(id -u)" = 0 ] || return 0
  if su -s /bin/bash "$ES_USER" -c "test -r '$HOME_DIR/bin/elasticsearch' && test -x '$CACHE'" 2>/dev/null; then return 0; fi
  local pub=/var/cache/tairbench-es
  if [ ! -x "$pub/elasticsearch-$VERSION/bin/elasticsearch" ]; then
    log "copying Elasticsearch to $pub (the user $ES_USER cannot reach $CACHE)"
    mkdir -p "$pub"
    cp -r "$HOME_DIR" "$pub/"
    chmod -R a+rX "$pub"
  fi
  rm -rf "$pub/elasticsearch-$VERSION/plugins" # the plugins as install built them
  cp -r "$HOME_DIR/plugins" "$pub/elasticsearch-$VERSION/plugins"
  chmod -R a+rX "$pub/elasticsearch-$VERSION/plugins"
  HOME_DIR="$pub/elasticsearch-$VERSION"
  CACHE="$pub"
}

start() {
  local port=${1:-9201}
  install
  ensure_user
  reachable
  local run="$CACHE/run-$port"
  if [ -f "$run/es.pid" ] && kill -0 "$(cat "$run/es.pid")" 2>/dev/null && health "$port"; then
    echo "http://127.0.0.1:$port"; return
  fi
  rm -rf "$run"
  mkdir -p "$run/data" "$run/logs" "$run/config" "$run/tmp"
  cp -r "$HOME_DIR/config/." "$run/config/"
  if [ "$(id -u)" = 0 ]; then chown -R "$ES_USER" "$run"; fi
  local jh; jh=$(java_home)
  log "starting Elasticsearch $VERSION on 127.0.0.1:$port (JDK $jh, heap $HEAP)"
  # CLI_JAVA_OPTS: the launcher's own JVM writes its final-flags folder in
  # java.io.tmpdir, which is otherwise the system's temporary folder;
  # -XX:-UsePerfData keeps every JVM from making /tmp/hsperfdata_USER
  # (JAVA_TOOL_OPTIONS reaches the launcher's Java version check too).
  run_as "JAVA_TOOL_OPTIONS='-XX:-UsePerfData' ES_JAVA_HOME='$jh' ES_PATH_CONF='$run/config' ES_TMPDIR='$run/tmp' ES_JAVA_OPTS='-Xms$HEAP -Xmx$HEAP -XX:-UsePerfData' \
    CLI_JAVA_OPTS='-Djava.io.tmpdir=$run/tmp -XX:-UsePerfData' \
    '$HOME_DIR/bin/elasticsearch' -d -p '$run/es.pid' \
    -E discovery.type=single-node -E xpack.security.enabled=false \
    -E network.host=127.0.0.1 -E http.port=$port -E transport.port=$((port + 100)) \
    -E path.data='$run/data' -E path.logs='$run/logs' -E cluster.name=tairbench-$port \
    >'$run/stdout.log' 2>&1"
  for _ in $(seq 180); do
    if health "$port"; then echo "http://127.0.0.1:$port"; return; fi
    if [ -f "$run/es.pid" ] && ! kill -0 "$(cat "$run/es.pid")" 2>/dev/null; then break; fi
    sleep 1
  done
  log "Elasticsearch did not become healthy; last log lines:"
  tail -n 30 "$run/stdout.log" "$run"/logs/*.log 2>/dev/null >&2 || true
  stop "$port"
  exit 1
}

stop() {
  local port=${1:-9201}
  local pidfile="$CACHE/run-$port/es.pid"
  [ -f "$pidfile" ] || pidfile="/var/cache/tairbench-es/run-$port/es.pid"
  [ -f "$pidfile" ] || return 0
  local pid; pid=$(cat "$pidfile")
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$(dirname "$pidfile")" # its data and logs: every start begins empty
}

case "${1:-}" in
  install) install ;;
  start) start "${2:-9201}" ;;
  stop) stop "${2:-9201}" ;;
  url) health "${2:-9201}" && echo "http://127.0.0.1:${2:-9201}" ;;
  pid)
    f="$CACHE/run-${2:-9201}/es.pid"
    [ -f "$f" ] || f="/var/cache/tairbench-es/run-${2:-9201}/es.pid"
    cat "$f" ;;
  *) echo "usage: $0 install|start [PORT]|stop [PORT]|url [PORT]|pid [PORT]" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# Fetches YCSB's core (site.ycsb:core:0.17.0, Apache-2.0) and what its
# client needs at run time from Maven Central into the local Maven
# repository, and prints the Java classpath. The tests run YCSB's own
# generators through its BasicDB (which prints every operation and key) to
# compare them with tairbench's.
set -euo pipefail
repo=${MAVEN_REPO:-$HOME/.m2/repository}
need() { # groupId artifactId version
  local jar="$repo/${1//.//}/$2/$3/$2-$3.jar"
  if [ ! -f "$jar" ]; then
    MAVEN_OPTS="${MAVEN_OPTS:-} -XX:-UsePerfData" mvn -q -B -Dstyle.color=never dependency:get -Dartifact="$1:$2:$3" -Dtransitive=false >/dev/null 2>&1 || true
  fi
  [ -f "$jar" ] || { echo "ycsb-core: cannot fetch $1:$2:$3 from Maven Central" >&2; exit 1; }
  printf '%s' "$jar"
}
cp=$(need site.ycsb core 0.17.0)
cp+=:$(need org.hdrhistogram HdrHistogram 2.1.4)
cp+=:$(need org.codehaus.jackson jackson-core-asl 1.9.4)
cp+=:$(need org.codehaus.jackson jackson-mapper-asl 1.9.4)
cp+=:$(need org.apache.htrace htrace-core4 4.1.0-incubating)
echo "$cp"

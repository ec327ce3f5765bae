#!/usr/bin/env bash
# Installs what the tests and benchmarks need on a fresh Debian machine (as
# root): Go (Debian's, which fetches the go.mod toolchain from the module
# proxy), gcc for the race detector and make bench-client's floor client,
# redis-server and redis-tools, prometheus, for Elasticsearch
# (scripts/elasticsearch.sh) and YCSB's core JDK 17, Maven and curl,
# Chromium and a font with Chinese glyphs (WenQuanYi Micro Hei) for the HTML
# report's browser test, PostgreSQL for the results store's tests, tcpdump
# for the packet captures of capture --pcap's test, and PyPI's jieba.
#
#   install-deps.sh        everything the tests need
#   install-deps.sh build  only what building needs (Go)
set -euo pipefail

need=()
command -v go >/dev/null 2>&1 || need+=(golang-go)
if [ "${1:-all}" != build ]; then
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v redis-benchmark >/dev/null 2>&1 || need+=(redis-tools)
command -v taskset >/dev/null 2>&1 || need+=(util-linux)
[ -x /usr/bin/time ] || need+=(time) # make bench-size's peak memory
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v bzip2 >/dev/null 2>&1 || need+=(bzip2)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v tcpdump >/dev/null 2>&1 || need+=(tcpdump) # capture --pcap's test records loopback
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql) # the results store's PostgreSQL tests
[ -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || need+=(fonts-wqy-microhei) # Chinese text in the report's browser test
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
ls /usr/lib/jvm/java-17-openjdk-*/bin/javac >/dev/null 2>&1 || need+=(openjdk-17-jdk-headless) # javac: the Chinese analysis plugin
fi

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing ${need[*]}; run as root or install them" >&2
    exit 1
  fi
  echo "install-deps: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Debian enables and starts the packaged redis-server (and PostgreSQL's
# main cluster, where it can); the tests start their own instances on free
# ports and do not use them.

# PyPI's jieba, the reference the embedded server's jieba analyzer is tested
# against, into an ignored folder of the checkout (not the system's Python).
if [ "${1:-all}" != build ]; then
  py="$(cd "$(dirname "$0")/.." && pwd)/.cache/py"
  if [ ! -f "$py/jieba/__init__.py" ]; then
    echo "install-deps: installing PyPI jieba 0.42.1 into $py" >&2
    pip=(python3 -m pip install -q --disable-pip-version-check --target "$py" jieba==0.42.1)
    "${pip[@]}" 2>/dev/null || "${pip[@]}" --break-system-packages
  fi
  # PyPI's resp-benchmark, the peer 'tairbench resp-benchmark' is run beside.
  rb="$(cd "$(dirname "$0")/.." && pwd)/.cache/respbench"
  if [ ! -f "$rb/bin/resp-benchmark" ]; then
    echo "install-deps: installing PyPI resp-benchmark 0.2.5 into $rb" >&2
    pip=(python3 -m pip install -q --disable-pip-version-check --target "$rb" resp-benchmark==0.2.5)
    "${pip[@]}" 2>/dev/null || "${pip[@]}" --break-system-packages
  fi
fi

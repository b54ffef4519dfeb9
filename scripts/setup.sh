# SPDX-License-Identifier: MIT
# Sourced by demo.sh and check.sh: install what the build needs (Debian 12),
# then configure and build in ./build. Set SHMTRACE_NO_APT=1 to skip apt-get.

shmtrace_packages="gcc g++ make autoconf automake libtool pkg-config \
liblz4-dev liburcu-dev check babeltrace2 lz4 python3 libjemalloc2 lttng-tools liblttng-ust-dev \
python3-numpy python3-setuptools python3-venv python3-pip python3-bt2"

shmtrace_install_deps() {
	local missing="" p
	for p in $shmtrace_packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ -n "${SHMTRACE_NO_APT:-}" ]; then
		echo "missing packages:$missing" >&2
		return 1
	fi
	echo "Installing:$missing"
	local sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
}

shmtrace_build() {
	local top jobs
	top=$(pwd)
	jobs=$(nproc 2>/dev/null || echo 2)
	if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
		autoreconf -fi >/dev/null
	fi
	mkdir -p build
	if [ ! -f build/Makefile ] || [ configure -nt build/config.status ]; then
		(cd build && "$top/configure" --enable-werror >/dev/null)
	fi
	make -C build -s -j"$jobs" >/dev/null
}

shmtrace_setup() {
	shmtrace_install_deps && shmtrace_build
}

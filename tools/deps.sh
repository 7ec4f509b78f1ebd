#!/usr/bin/env bash
# deps.sh: installs, with apt-get, what building and testing need and this machine lacks.
# `tools/deps.sh` covers build, run and tests; `tools/deps.sh dev` adds lint and fuzz tools.
set -eu
need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pc() { have_cmd pkg-config && pkg-config --exists "$1"; }

have_cmd cc || need+=(gcc)
have_cmd make || need+=(make)
have_cmd pkg-config || need+=(pkg-config)
have_pc ncursesw || need+=(libncurses-dev)
[ -e /usr/include/CL/cl.h ] || need+=(opencl-headers)
have_pc OpenCL || need+=(ocl-icd-opencl-dev)
have_pc libmicrohttpd || need+=(libmicrohttpd-dev) # --listen serves /metrics through it
have_pc inih || need+=(libinih-dev) # the dashboard's config file is read with it
# An OpenCL device to run on: PoCL (the CPU) unless some other ICD is registered.
ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1 || need+=(pocl-opencl-icd)
have_cmd tmux || need+=(tmux)
have_cmd python3 || need+=(python3)
# test_observe.sh observes a PyOpenCL program of the question's structure (Debian's python3).
for m in pyopencl:python3-pyopencl mako:python3-mako numpy:python3-numpy; do
	/usr/bin/python3 -c "import ${m%%:*}" 2>/dev/null || need+=("${m#*:}")
done
have_cmd timeout || need+=(coreutils)
have_cmd ps || need+=(procps)
have_cmd localedef || need+=(locales) # the locale test generates de_DE.UTF-8
# The Prometheus tests: promtool checks both outputs, a real server scrapes --listen.
{ have_cmd prometheus && have_cmd promtool; } || need+=(prometheus)
# The report test renders --report's page in a headless browser.
{ have_cmd chromium || have_cmd chromium-browser; } || need+=(chromium)
if [ "${1:-}" = dev ]; then
	have_cmd clang || need+=(clang)
	[ -n "$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ] ||
		need+=(libclang-rt-14-dev)
	have_cmd cppcheck || need+=(cppcheck)
	have_cmd clang-tidy || need+=(clang-tidy)
	have_cmd clang-format || need+=(clang-format)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "gputop-decode needs: ${need[*]}; install them as root: apt-get install ${need[*]}" >&2
	exit 1
fi
echo "installing: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null

#!/usr/bin/env bash
# lint.sh: the tree's structure (tools/structure.py: layers of includes, the contracts of
# include/gputop/, where a header lives, file and function sizes), then cppcheck and clang-tidy
# over the sources with the checked-in configuration (.clang-tidy), and cppcheck's whole-program
# check for functions that nothing in src/ calls (a function only tests call does not ship);
# exits non-zero on any finding. `tools/lint.sh structure` runs the structure check alone.
set -u
cd "$(dirname "$0")/.."
flags=(-std=c11 -D_GNU_SOURCE -Iinclude -Isrc -Itests/unit $(pkg-config --cflags ncursesw OpenCL 2>/dev/null))
status=0
python3 tools/structure.py || status=1
if [ "${1:-}" = structure ]; then
	exit $status
fi
mapfile -t srcs < <(find src -name "*.c" | sort)
echo "cppcheck: ${#srcs[@]} files"
cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	--inline-suppr --suppress=missingIncludeSystem --std=c11 -D_GNU_SOURCE -Iinclude -Isrc "${srcs[@]}" || status=1
echo "cppcheck unusedFunction: ${#srcs[@]} files"
cppcheck --quiet --error-exitcode=1 --enable=unusedFunction --inline-suppr --suppress=missingIncludeSystem \
	--std=c11 -D_GNU_SOURCE -Iinclude -Isrc "${srcs[@]}" || status=1
echo "clang-tidy: ${#srcs[@]} files"
for f in "${srcs[@]}"; do
	out=$(clang-tidy --quiet "$f" -- "${flags[@]}" 2>/dev/null)
	if [ -n "$out" ]; then
		echo "$out"
		status=1
	fi
done
[ $status -eq 0 ] && echo "lint: no findings"
exit $status
